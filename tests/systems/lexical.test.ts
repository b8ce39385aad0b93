/**
 * The offline BM25 index (src/systems/lexical.ts) against a brute-force BM25 written here:
 * the same top-k keys, scores and tie order after random sets, rewrites and removals.
 */
import { describe, expect, it } from 'vitest';
import { LexicalIndex, tokens } from '../../src/systems/index.ts';

/** Okapi BM25 (k1 1.2, b 0.75, idf log(1 + (N − df + .5)/(df + .5))) over every document, in insertion order. */
function bruteForce(docs: Map<number, string>, query: string, k: number) {
  const toks = new Map([...docs].map(([key, text]) => [key, tokens(text)]));
  const n = docs.size;
  const avg = [...toks.values()].reduce((a, t) => a + t.length, 0) / n || 1;
  const q = tokens(query);
  const scored: { key: number; score: number }[] = [];
  for (const [key, t] of toks) {
    let s = 0;
    for (const term of q) {
      const f = t.filter((x) => x === term).length;
      if (!f) continue;
      const df = [...toks.values()].filter((d) => d.includes(term)).length;
      const norm = 1.2 * (1 - 0.75 + (0.75 * t.length) / avg);
      s += Math.log(1 + (n - df + 0.5) / (df + 0.5)) * ((f * 2.2) / (f + norm));
    }
    if (s > 0) scored.push({ key, score: s });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, k); // Array sort is stable: ties keep insertion order
}

describe('LexicalIndex', () => {
  it('matches a brute-force BM25 over random adds, rewrites and removals', () => {
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
    let seed = 7;
    const rand = (m: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % m;
    };
    // Most documents share one very common word (as every Mem0 fact holds the speaker's name).
    const text = () =>
      `${rand(5) ? 'speaker ' : ''}${Array.from({ length: 1 + rand(8) }, () => words[rand(words.length)]).join(' ')}`;
    const index = new LexicalIndex<number>();
    const docs = new Map<number, string>();
    for (let step = 0; step < 1500; step++) {
      const key = rand(300);
      if (rand(5) === 0) {
        index.remove(key);
        docs.delete(key);
      } else {
        const t = text();
        index.set(key, t);
        docs.delete(key); // a rewrite moves the document to the end, as the index does
        docs.set(key, t);
      }
      if (step % 10 === 0) {
        const q = text();
        const k = [1, 5, 10][step % 3];
        const got = index.search(q, k);
        const want = bruteForce(docs, q, k);
        expect(got.map((h) => h.key)).toEqual(want.map((h) => h.key));
        for (const [i, h] of got.entries()) expect(h.score).toBeCloseTo(want[i].score, 12);
      }
    }
  });
});
