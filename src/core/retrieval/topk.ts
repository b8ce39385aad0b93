/** Ranked hits: the best `k` by score, ties broken by the lower document number (file order). */

/** A ranked document: its number in the corpus and its score. */
export interface Hit {
  /** Document number in the corpus (0-based). */
  doc: number;
  score: number;
}

const better = (sa: number, da: number, sb: number, db: number) => sa > sb || (sa === sb && da < db);

/** Top `k` of `candidates` by `scoreOf`, best first. A binary min-heap of size k: O(n log k). */
export function topK(candidates: ArrayLike<number>, scoreOf: (doc: number) => number, k: number): Hit[] {
  if (k <= 0) return [];
  const hd: number[] = [];
  const hs: number[] = [];
  const worseAt = (i: number, j: number) => better(hs[j], hd[j], hs[i], hd[i]); // heap[i] worse than heap[j]
  const swap = (i: number, j: number) => {
    const d = hd[i];
    hd[i] = hd[j];
    hd[j] = d;
    const s = hs[i];
    hs[i] = hs[j];
    hs[j] = s;
  };
  const down = (i: number) => {
    const n = hd.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && worseAt(l, m)) m = l;
      if (r < n && worseAt(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let c = 0; c < candidates.length; c++) {
    const d = candidates[c];
    const s = scoreOf(d);
    if (hd.length < k) {
      hd.push(d);
      hs.push(s);
      let i = hd.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worseAt(i, p)) break;
        swap(i, p);
        i = p;
      }
    } else if (better(s, d, hs[0], hd[0])) {
      hd[0] = d;
      hs[0] = s;
      down(0);
    }
  }
  const out = hd.map((doc, i) => ({ doc, score: hs[i] }));
  out.sort((a, b) => (better(a.score, a.doc, b.score, b.doc) ? -1 : 1));
  return out;
}
