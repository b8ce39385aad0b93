/**
 * Reciprocal rank fusion as in the paper: each retriever returns 2× the wanted
 * count; a document's fused score is Σ over the lists that hold it of 1/(60 + rank),
 * rank counted from 1. Ties: the better best rank, then the lower document number.
 */

import { minOf } from '../arrays.ts';
import type { Hit } from './topk.ts';

/** The rank offset of reciprocal rank fusion (60, as the paper). */
export const RRF_K = 60;

/** A fused hit, with its rank in each input list. */
export interface FusedHit extends Hit {
  /** Rank (1-based) in each input list, null when absent. */
  ranks: (number | null)[];
}

/** Fuses ranked lists by reciprocal rank (see the module comment) and returns the best `k`. */
export function reciprocalRankFusion(
  lists: readonly (readonly Hit[])[],
  k: number,
  rrfK = RRF_K,
): FusedHit[] {
  const by = new Map<number, FusedHit>();
  lists.forEach((list, li) => {
    list.forEach((h, i) => {
      let f = by.get(h.doc);
      if (!f) {
        f = { doc: h.doc, score: 0, ranks: lists.map(() => null) };
        by.set(h.doc, f);
      }
      f.score += 1 / (rrfK + i + 1);
      f.ranks[li] = i + 1;
    });
  });
  const best = (f: FusedHit) => minOf(f.ranks.map((r) => r ?? Number.POSITIVE_INFINITY));
  return [...by.values()]
    .sort((a, b) => b.score - a.score || best(a) - best(b) || a.doc - b.doc)
    .slice(0, Math.max(0, k));
}
