import { describe, expect, it } from 'vitest';
import { FALLBACK_LABEL, HashedNgramEmbedder } from '../../src/core/retrieval/index.ts';

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const ch of s) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

describe('fallback embedder (hashed character n-grams)', () => {
  it('is named as a fallback, not a model', () => {
    const e = new HashedNgramEmbedder();
    expect(e.kind).toBe('fallback');
    expect(e.label).toBe(FALLBACK_LABEL);
    expect(e.label).toContain('not a neural model');
    expect(e.id).toMatch(/^fallback:hashed-char-ngrams/);
  });

  it('hashes the 3- and 4-grams of "<token>" into signed dimensions, L2-normalised', async () => {
    const e = new HashedNgramEmbedder(64);
    const v = await e.embed(['AB!']);
    // token "ab" → "<ab>": 3-grams "<ab", "ab>"; 4-gram "<ab>"
    const expected = new Float64Array(64);
    for (const g of ['<ab', 'ab>', '<ab>']) {
      const h = fnv1a(g);
      expected[h % 64] += h & 0x80000000 ? -1 : 1;
    }
    const norm = Math.hypot(...expected);
    for (let j = 0; j < 64; j++) expect(v[j]).toBeCloseTo(expected[j] / norm, 6);
  });

  it('is deterministic: same texts, same vectors, across instances and batch positions', async () => {
    const texts = ['Caroline went to the LGBTQ support group', 'Melanie painted a sunrise in 2022', ''];
    const a = await new HashedNgramEmbedder().embed(texts);
    const b = await new HashedNgramEmbedder().embed([...texts].reverse());
    const d = 256;
    for (let i = 0; i < texts.length; i++)
      expect(Array.from(a.subarray(i * d, (i + 1) * d))).toEqual(
        Array.from(b.subarray((texts.length - 1 - i) * d, (texts.length - i) * d)),
      );
    expect(a.subarray(2 * d).every((x) => x === 0)).toBe(true); // empty text → zero vector
  });

  it('puts texts sharing words closer than unrelated ones, and can be cancelled', async () => {
    const e = new HashedNgramEmbedder();
    const v = await e.embed(['support group meeting', 'the support group met', 'chocolate cake recipe']);
    const dot = (i: number, j: number) => {
      let s = 0;
      for (let k = 0; k < 256; k++) s += v[i * 256 + k] * v[j * 256 + k];
      return s;
    };
    expect(dot(0, 1)).toBeGreaterThan(dot(0, 2) + 0.2);
    const ac = new AbortController();
    ac.abort();
    await expect(e.embed(Array(5000).fill('x'), { signal: ac.signal })).rejects.toThrow();
  });
});
