import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from '../../src/core/retrieval/index.ts';

const list = (...docs: number[]) => docs.map((doc, i) => ({ doc, score: 100 - i }));

describe('reciprocal rank fusion (Σ 1/(60 + rank))', () => {
  it('orders a worked example', () => {
    // BM25: A(10) B(11) C(12) D(13); dense: C(12) A(10) E(14) B(11)
    // A: 1/61 + 1/62 = 0.032522…   C: 1/63 + 1/61 = 0.032266…   B: 1/62 + 1/64 = 0.031754…
    // D: 1/64 = 0.015625           E: 1/63 = 0.015873…          → A, C, B, E, D
    const fused = reciprocalRankFusion([list(10, 11, 12, 13), list(12, 10, 14, 11)], 5);
    expect(fused.map((f) => f.doc)).toEqual([10, 12, 11, 14, 13]);
    expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 62, 15);
    expect(fused[1].score).toBeCloseTo(1 / 63 + 1 / 61, 15);
    expect(fused[2].score).toBeCloseTo(1 / 62 + 1 / 64, 15);
    expect(fused[3].score).toBeCloseTo(1 / 63, 15);
    expect(fused[4].score).toBeCloseTo(1 / 64, 15);
    expect(fused[1].ranks).toEqual([3, 1]);
    expect(fused[3].ranks).toEqual([null, 3]);
  });

  it('keeps k and breaks equal scores by the better single rank, then document order', () => {
    // X is 1st in list one only, Y 1st in list two only: equal scores, X has the lower doc number.
    const fused = reciprocalRankFusion([list(5, 7), list(3, 7)], 3);
    expect(fused.map((f) => f.doc)).toEqual([7, 3, 5]);
    expect(reciprocalRankFusion([list(1, 2, 3)], 2).map((f) => f.doc)).toEqual([1, 2]);
  });
});
