/**
 * Small rules of the workspace (issue 24): search marks whole words and whole phrases; a
 * message stored as a JSON / Python dict reads "speaker: text" with escapes decoded; chart
 * label columns fit their longest label or cut it with "…"; the word-vector cache reads the
 * package's head and keeps exactly what parsing the whole JSON keeps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phraseMarks, wordSnippet } from '../../src/core/graph/index.ts';
import { labelColumn, rateBars, textWidth } from '../../src/core/report/index.ts';
import { keptVectors, VOCABULARY_SIZE } from '../../src/core/semantic/word-vectors.node.ts';
import { messageText, readableValue } from '../../src/core/trace/index.ts';

const marked = (text: string, words: string[]) =>
  phraseMarks(text, words).map(([a, n]) => text.slice(a, a + n));

describe('search marks', () => {
  const text = 'The car accident near the carpet shop; a scar. Car  Accident again, and cars.';
  it('marks the whole phrase where it occurs, not its first word alone', () => {
    expect(marked(text, ['car', 'accident'])).toEqual(['car accident', 'Car  Accident']);
  });
  it('marks a word as a whole word, never inside another word', () => {
    expect(marked(text, ['car'])).toEqual(['car', 'Car']);
    expect(marked('a scar on the carpet', ['car'])).toEqual(['carpet']); // a word it begins, marked whole
    expect(marked('a scar', ['car'])).toEqual([]);
  });
  it('a snippet carries every mark inside it', () => {
    const s = wordSnippet(text, ['car', 'accident'], 200);
    expect(s.marks.map(([a, n]) => s.snippet.slice(a, a + n))).toEqual(['car accident', 'Car  Accident']);
    expect(s.snippet.slice(s.at, s.at + s.length)).toBe('car accident');
  });
});

describe('messages', () => {
  it('reads a JSON message inside a Python string as speaker and text, escapes decoded', () => {
    expect(messageText(`'{"role": "user", "content": "I love it \\\\ud83e\\\\udd29"}'`)).toBe(
      'user: I love it 🤩',
    );
    expect(readableValue(`'{"name": "Caroline", "content": "Hi!", "timestamp": "8 May 2023"}'`)).toBe(
      'Caroline: Hi!  (8 May 2023)',
    );
    expect(readableValue(`{'speaker': 'Ana', 'text': 'Hello'}`)).toBe('Ana: Hello');
  });
  it('leaves other values as they were, and pretty-prints JSON held in a string', () => {
    expect(messageText(`'just text'`)).toBeNull();
    expect(readableValue(`'just text'`)).toBe('just text');
    expect(readableValue(`'{"a": "\\\\u00e9t\\\\u00e9"}'`)).toBe('{\n  "a": "été"\n}');
  });
});

describe('chart labels', () => {
  it('the label column fits the longest label, or cuts labels with "…"', () => {
    const labels = ['session-summary memory (74)', 'x'];
    const wide = labelColumn(labels, 100, 400);
    expect(wide.width).toBeGreaterThanOrEqual(textWidth(labels[0]));
    expect(wide.fit(labels[0])).toBe(labels[0]);
    const narrow = labelColumn(labels, 60, 90);
    expect(narrow.width).toBe(90);
    expect(narrow.fit(labels[0]).endsWith('…')).toBe(true);
    expect(textWidth(narrow.fit(labels[0]))).toBeLessThan(90);
  });
  it("the HTML report's rate bars start after the longest label", () => {
    const label = 'session-summary memory (74)';
    const svg = rateBars([{ label, rate: 0.5, low: 0.4, high: 0.6, note: '74 · 50 %' }]);
    const x = Number(/<rect x="([\d.]+)"/.exec(svg)![1]);
    expect(x).toBeGreaterThanOrEqual(textWidth(label));
    expect(svg).toContain(`>${label}</text>`);
  });
});

describe('word-vector cache', () => {
  it('keeps from the head of the file what parsing the whole JSON keeps (keys with "]", escapes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-vectors-'));
    try {
      const words = ['the', ']', 'café', 'do"n\\t', "it's", 'well-known', 'Bob', 'zebra'];
      const vec = (i: number) => [i + 0.5, -(i + 1), 0.25, 7.125 * (i + 1), i];
      const json = (order: number[]) =>
        `{"size":${words.length},"dimensions":3,"words":${JSON.stringify(words)},"vectors":{${order
          .map((i) => `${JSON.stringify(words[i])}:[${vec(i).join(',')}]`)
          .join(',')}},"unkVector":[0,0,0,0,-1]}`;
      // What the slow path keeps: the words in order that match the vocabulary rule and have a vector.
      const expected = words
        .map((w, i): [string, number[]] => [w, vec(i)])
        .filter(([w]) => /^[a-z]+(?:['-][a-z]+)*$/.test(w))
        .slice(0, VOCABULARY_SIZE);
      const inOrder = join(dir, 'ordered.json');
      writeFileSync(inOrder, json(words.map((_, i) => i)));
      expect(keptVectors(inOrder)).toEqual({ dims: 3, kept: expected });
      // Rows out of the frequency order: read by parsing the whole file, same result.
      const shuffled = join(dir, 'shuffled.json');
      writeFileSync(shuffled, json([2, 0, 1, 3, 4, 5, 6, 7]));
      expect(keptVectors(shuffled)).toEqual({ dims: 3, kept: expected });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
