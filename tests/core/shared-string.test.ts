import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { syntheticText } from '../../bench/synthetic.ts';
import { seededRandom } from '../../src/core/random.ts';
import {
  parseTraceText,
  parseValue,
  sharedString,
  shareVersionTexts,
  type TraceDocument,
  valueCut,
} from '../../src/core/trace/index.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

/** Python's repr of a str, written here: single quotes unless the text has one and no double quote. */
function pyRepr(text: string): string {
  const q = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = [...text]
    .map((ch) => {
      if (ch === '\\') return '\\\\';
      if (ch === q) return `\\${q}`;
      if (ch === '\n') return '\\n';
      if (ch === '\t') return '\\t';
      if (ch === '\u0007') return '\\x07';
      if (ch === '\u2028') return '\\u2028';
      return ch;
    })
    .join('');
  return `${q}${body}${q}`;
}

/** Every shared record's string, as `sharedString` gives it, against its value read and parsed whole. */
function expectAsParsed(records: object[]): number {
  let read = 0;
  for (const r of records) {
    const s = sharedString(r);
    if (s === null) continue;
    read++;
    expect(s).toBe(parseValue((r as { value: string }).value));
  }
  return read;
}

describe('sharedString', () => {
  it("reads each window of a long-context trace as its value parsed whole, from its segment's text", () => {
    const doc = parseTraceText(syntheticText({ targetBytes: 600_000, windowChars: 6_000, questions: 2 }), {
      file: 'f.json',
    });
    expect(doc.ok).toBe(true);
    if (!doc.ok) return;
    const windows = doc.doc.data.nodes.filter((n) => valueCut(n));
    expect(windows.length).toBeGreaterThan(20);
    expect(expectAsParsed(windows)).toBe(windows.length);
  });

  it('reads windows full of escapes, trimmed anywhere, in either kind of quotes, as parsed whole', () => {
    const rand = seededRandom(3);
    const PIECES = [
      'a',
      'word ',
      "'",
      '"',
      '\\',
      '\n',
      '\t',
      'é',
      '😀',
      '\u0007',
      '\u2028',
      ' | ',
      'x'.repeat(30),
    ];
    const piece = () => PIECES[Math.floor(rand() * PIECES.length)];
    let text = Array.from({ length: 400 }, piece).join('');
    const records: { name: string; version: number; value: string }[] = [];
    for (let version = 1; version <= 60; version++) {
      records.push({ name: 'window', version, value: pyRepr(text) });
      text =
        text.slice(Math.floor(rand() * 30)) +
        Array.from({ length: 1 + Math.floor(rand() * 5) }, piece).join('');
    }
    const expected = records.map((r) => parseValue(r.value));
    shareVersionTexts(records);
    expect(records.filter((r) => valueCut(r)).length).toBeGreaterThan(30);
    expect(expectAsParsed(records)).toBeGreaterThan(10);
    expect(records.map((r) => parseValue(r.value))).toEqual(expected);
  });

  it('reads the real traces as parsed whole, and nothing that is not a string', () => {
    for (const file of smartcommentFiles()) {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument;
      shareVersionTexts(doc.data.nodes);
      expectAsParsed(doc.data.nodes);
      for (const n of doc.data.nodes) if (typeof n.value !== 'string') expect(sharedString(n)).toBeNull();
    }
  });
});
