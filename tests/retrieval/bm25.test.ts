import { describe, expect, it } from 'vitest';
import { BM25_DEFAULTS, Bm25Index, tokenize, tokenizeReference } from '../../src/core/retrieval/index.ts';

describe('tokenizer', () => {
  it('lower-cases and keeps [a-z0-9_] runs', () => {
    expect(tokenize("Hey Mel! It's 7 May_2023, café NAÏVE x-y")).toEqual([
      'hey',
      'mel',
      'it',
      's',
      '7',
      'may_2023',
      'caf',
      'na',
      've',
      'x',
      'y',
    ]);
  });

  it('equals lower() + findall([a-z0-9_]+) on random text, including İ and the Kelvin sign', () => {
    const alphabet = 'aZ9_ -.\n\tÉéİıKẞß€😀Ab\u0307';
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let n = 0; n < 2000; n++) {
      const chars = Array.from(alphabet);
      let s = '';
      const len = Math.floor(rnd() * 20);
      for (let i = 0; i < len; i++) s += chars[Math.floor(rnd() * chars.length)];
      expect(tokenize(s), JSON.stringify(s)).toEqual(tokenizeReference(s));
    }
  });
});

describe('Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5)))', () => {
  // N = 3 documents, lengths 3, 4, 1 → avgdl = 8/3.
  const docs = ['The cat sat.', 'the CAT, the cat', 'dog'];

  it('uses the paper parameters', () => {
    expect(BM25_DEFAULTS).toEqual({ k1: 1.2, b: 0.75 });
  });

  it('scores equal hand-computed values', async () => {
    const ix = await Bm25Index.build(docs);
    expect(ix.avgdl).toBeCloseTo(8 / 3, 15);
    // "cat": n = 2 → idf = ln(1 + 1.5/2.5) = ln 1.6
    expect(ix.idf('cat')).toBeCloseTo(Math.log(1.6), 15);
    // d0: tf 1, |d| 3: 1.2·(0.25 + 0.75·3/(8/3)) = 1.3125 → ln1.6 · 2.2 / 2.3125
    // d1: tf 2, |d| 4: 1.2·(0.25 + 0.75·4/(8/3)) = 1.65   → ln1.6 · 4.4 / 3.65
    const cat = ix.search('cat', 10);
    expect(cat.map((h) => h.doc)).toEqual([1, 0]);
    expect(cat[0].score).toBeCloseTo(0.5665797174469143, 14);
    expect(cat[1].score).toBeCloseTo(0.44713858782297017, 14);
    // "the dog": dog n = 1 → idf ln(1 + 2.5/1.5) = ln(8/3); d2: |d| 1: 1.2·(0.25 + 0.75/(8/3)) = 0.6375
    const q = ix.search('THE dog?', 10);
    expect(q.map((h) => h.doc)).toEqual([2, 1, 0]);
    expect(q[0].score).toBeCloseTo(1.3177553322905637, 14);
    expect(q[1].score).toBeCloseTo(0.5665797174469143, 14);
    expect(q[2].score).toBeCloseTo(0.44713858782297017, 14);
    // A repeated query term counts twice.
    expect(ix.search('cat cat', 1)[0].score).toBeCloseTo(2 * 0.5665797174469143, 14);
  });

  it('ranks only documents that share a term, best first, k at most', async () => {
    const ix = await Bm25Index.build(docs);
    expect(ix.search('unknown words', 5)).toEqual([]);
    expect(ix.search('the cat dog', 2)).toHaveLength(2);
  });

  it('breaks ties by document order', async () => {
    const ix = await Bm25Index.build(['x y', 'y x', 'x y']);
    expect(ix.search('x', 3).map((h) => h.doc)).toEqual([0, 1, 2]);
  });

  it('serialises and reads back with the same scores', async () => {
    const ix = await Bm25Index.build([...docs, 'İstanbul ünïcode', '']);
    const back = Bm25Index.deserialize(ix.serialize());
    expect(back.terms).toEqual(ix.terms);
    for (const q of ['cat', 'the dog', 'istanbul i', 'ünïcode'])
      expect(back.search(q, 10)).toEqual(ix.search(q, 10));
  });

  it('agrees with a direct evaluation of the formula on a random corpus', async () => {
    const words = 'alpha beta gamma delta eps zeta eta theta iota kappa'.split(' ');
    let seed = 7;
    const rnd = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const corpus = Array.from({ length: 200 }, () =>
      Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => words[Math.floor(rnd() * words.length)]).join(
        ' ',
      ),
    );
    const ix = await Bm25Index.build(corpus);
    const toks = corpus.map((d) => d.split(' '));
    const avgdl = toks.reduce((s, t) => s + t.length, 0) / toks.length;
    const query = ['beta', 'kappa', 'beta'];
    const direct = toks.map((t) => {
      let s = 0;
      for (const q of query) {
        const n = toks.filter((x) => x.includes(q)).length;
        const tf = t.filter((x) => x === q).length;
        const idf = Math.log(1 + (200 - n + 0.5) / (n + 0.5));
        s += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * t.length) / avgdl));
      }
      return s;
    });
    const { scores } = ix.scores(query.join(' '));
    for (let d = 0; d < 200; d++) expect(scores[d]).toBeCloseTo(direct[d], 12);
  });
});

describe('TermTable (allocation-free interning)', () => {
  it('yields the reference tokens as ids, and finds them again', async () => {
    const { TermTable } = await import('../../src/core/retrieval/index.ts');
    const t = new TermTable();
    const text =
      'The CAT the cat İstanbul KELVIN_K x1 x1 ' + Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const ids: number[] = [];
    t.scan(text, (id) => ids.push(id));
    expect(ids.map((id) => t.terms[id])).toEqual(tokenizeReference(text));
    expect(new Set(t.terms).size).toBe(t.terms.length);
    expect(t.id('cat')).toBe(ids[1]);
    expect(t.id('missing')).toBe(-1);
    const known: number[] = [];
    t.scan('CAT missing w2999', (id) => known.push(id), false);
    expect(known.map((id) => t.terms[id])).toEqual(['cat', 'w2999']);
    expect(TermTable.fromTerms(t.terms).terms).toEqual(t.terms);
  });
});
