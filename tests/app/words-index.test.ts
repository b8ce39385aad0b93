import { Index } from 'flexsearch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.ts';
import { shareVersionTexts, valueCut } from '../../src/core/trace/index.ts';
import { WordsIndex } from '../../workers/words-index.ts';

const SPECIAL = ['e-mail', '2023-05-07', "Caroline's", 'café', 'Melanie'];

/** A word from a small alphabet (many distinct words, each rare, sharing prefixes), now and then a special one. */
function word(rand: () => number): string {
  if (rand() < 0.05) return SPECIAL[Math.floor(rand() * SPECIAL.length)];
  const n = 2 + Math.floor(rand() * 6);
  return Array.from({ length: n }, () => 'abcde'[Math.floor(rand() * 5)]).join('');
}

type Rec = { name: string; class_name: string; version: number; value: string };

/** Long-context windows: each the previous one trimmed at the front (often inside a word) plus new words, as Python reprs. */
function windows(rand: () => number, name: string, count: number): Rec[] {
  const words = (n: number) => Array.from({ length: n }, () => word(rand)).join(' ');
  let text = words(300);
  const out: Rec[] = [];
  for (let version = 1; version <= count; version++) {
    out.push({ name, class_name: 'Window', version, value: `'${text}'` });
    const trim = rand() < 0.3 ? 0 : Math.floor(rand() * 40);
    text = `${text.slice(trim)}${rand() < 0.5 ? ' ' : ''}${words(1 + Math.floor(rand() * 6))}`;
  }
  return out;
}

describe('WordsIndex', () => {
  it('finds the versions a words index over each whole value finds, for words, prefixes and pairs', () => {
    const rand = seededRandom(7);
    const records: Rec[] = [
      ...windows(rand, 'context-a', 40),
      { name: 'note', class_name: '', version: 1, value: 'abc ab e-mail' },
      ...windows(rand, 'context-b', 25),
    ];
    // The oracle reads every value whole, as written (before any is stored shared).
    const oracle = new Index({ tokenize: 'forward' });
    records.forEach((r, i) => {
      oracle.add(i, r.value);
    });
    shareVersionTexts(records);
    expect(records.filter((r) => valueCut(r)).length).toBeGreaterThan(50);
    const index = new WordsIndex(records.length, (v) => valueCut(records[v]) ?? records[v].value);

    // Words of the windows (their first and last ones are where versions start and end), their prefixes, and pairs.
    const seen = records.flatMap((r) => {
      const w = r.value.slice(1, -1).split(' ');
      return [w[0], w[1], w[w.length - 1], w[Math.floor(w.length / 2)]];
    });
    const queries = [
      ...seen,
      ...seen.map((w) => w.slice(0, 2)),
      ...SPECIAL,
      'caroline',
      'mail',
      '2023',
      'zzz',
      '',
    ];
    for (let i = 0; i + 1 < seen.length; i += 3) queries.push(`${seen[i]} ${seen[i + 1]}`);
    for (const q of queries) {
      const want = (oracle.search(q, { limit: records.length }) as number[]).sort((a, b) => a - b);
      expect(index.search(q, records.length), q).toEqual(want);
    }
  });

  it('gives at most `limit` versions, the first in order', () => {
    const records = ['a lake', 'the lake camp', 'no', 'lake'];
    const index = new WordsIndex(records.length, (v) => records[v]);
    expect(index.search('lake', 2)).toEqual([0, 1]);
    expect(index.search('LAKE ca', 10)).toEqual([1]);
  });

  it('leaves out what it is given no text for', () => {
    const records = ['lake', 'lake'];
    const index = new WordsIndex(records.length, (v) => (v === 0 ? null : records[v]));
    expect(index.search('lake', 10)).toEqual([1]);
  });
});
