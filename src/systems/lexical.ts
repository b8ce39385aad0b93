/**
 * Retrieval of the offline mode: an incremental Okapi BM25 over a changing set of
 * documents (memory units are added, rewritten and deleted while a system runs) and a
 * hashed bag-of-words vector as a deterministic stand-in for an embedder.
 */

import { fnv1a } from '../core/hash/index.ts';
import { BM25_DEFAULTS, bm25Idf } from '../core/retrieval/index.ts';
import { contentTokens, tokens } from './text.ts';

const { k1: K1, b: B } = BM25_DEFAULTS;

export interface Scored<K> {
  key: K;
  score: number;
}

/**
 * BM25 (core's: `BM25_DEFAULTS`, `bm25Idf`) over documents that can be set and removed at any time. A search
 * scores only what can reach the top k (exactly, MaxScore-style): query terms are taken rarest
 * first through their postings, and once the k-th best score beats what the terms left could
 * add at most (a term adds less than idf × 2.2), no unseen document can enter. Scoring every
 * document made Mem0's offline run quadratic in its store: every fact shares the speaker's name.
 */
export class LexicalIndex<K> {
  private readonly docs = new Map<K, Map<string, number>>();
  private readonly lengths = new Map<K, number>();
  private readonly postings = new Map<string, Set<K>>();
  /** When each document was (last) set: equal scores rank by it, as in insertion order. */
  private readonly seq = new Map<K, number>();
  private nextSeq = 0;
  private totalLength = 0;

  get size(): number {
    return this.docs.size;
  }

  set(key: K, text: string): void {
    this.remove(key);
    const tf = new Map<string, number>();
    const toks = tokens(text);
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) {
      const list = this.postings.get(t);
      if (list) list.add(key);
      else this.postings.set(t, new Set([key]));
    }
    this.docs.set(key, tf);
    this.lengths.set(key, toks.length);
    this.seq.set(key, this.nextSeq++);
    this.totalLength += toks.length;
  }

  remove(key: K): void {
    const tf = this.docs.get(key);
    if (!tf) return;
    for (const t of tf.keys()) {
      const list = this.postings.get(t);
      list?.delete(key);
      if (list?.size === 0) this.postings.delete(t);
    }
    this.totalLength -= this.lengths.get(key) ?? 0;
    this.docs.delete(key);
    this.lengths.delete(key);
    this.seq.delete(key);
  }

  /** Top-k keys by BM25; ties keep insertion order. Only documents sharing a term are returned. */
  search(query: string, k: number, filter?: (key: K) => boolean): Scored<K>[] {
    const q = tokens(query);
    const n = this.docs.size;
    if (n === 0 || q.length === 0 || k <= 0) return [];
    const avg = this.totalLength / n || 1;
    const idf = (t: string) => bm25Idf(n, this.postings.get(t)?.size ?? 0);
    // What each distinct term can add at most (a query may repeat a term: it counts each time).
    const weights = q.map((t) => (this.postings.has(t) ? idf(t) : 0)); // idf per query token, once
    const bound = new Map<string, number>();
    q.forEach((t, i) => {
      if (weights[i] > 0) bound.set(t, (bound.get(t) ?? 0) + weights[i] * (K1 + 1));
    });
    const terms = [...bound.keys()].sort((a, b) => bound.get(b)! - bound.get(a)!);
    let left = terms.reduce((sum, t) => sum + bound.get(t)!, 0);
    const seen = new Set<K>();
    const out: (Scored<K> & { seq: number })[] = [];
    const best: number[] = []; // the k best scores so far, descending
    for (const term of terms) {
      if (best.length === k && left < best[k - 1]) break; // no unseen document can reach the top k
      for (const key of this.postings.get(term)!) {
        if (seen.has(key)) continue;
        seen.add(key);
        if (filter && !filter(key)) continue;
        const s = this.score(key, q, weights, avg);
        if (s <= 0) continue;
        out.push({ key, score: s, seq: this.seq.get(key)! });
        if (best.length < k || s > best[best.length - 1]) {
          let i = Math.min(best.length, k - 1);
          if (best.length < k) best.push(s);
          while (i > 0 && best[i - 1] < s) {
            best[i] = best[i - 1];
            i--;
          }
          best[i] = s;
        }
      }
      left -= bound.get(term)!;
    }
    out.sort((a, b) => b.score - a.score || a.seq - b.seq);
    return out.slice(0, k).map(({ key, score }) => ({ key, score }));
  }

  /** A document's BM25 score for the query tokens (summed in query order, as a full scan would). */
  private score(key: K, q: string[], weights: number[], avg: number): number {
    const tf = this.docs.get(key)!;
    const norm = K1 * (1 - B + (B * (this.lengths.get(key) ?? 0)) / avg);
    let s = 0;
    for (let i = 0; i < q.length; i++) {
      const f = tf.get(q[i]);
      if (f) s += weights[i] * ((f * (K1 + 1)) / (f + norm));
    }
    return s;
  }
}

function topK<K>(items: Scored<K>[], k: number): Scored<K>[] {
  // Stable: equal scores keep their order.
  return items
    .map((x, i) => ({ x, i }))
    .sort((a, b) => b.x.score - a.x.score || a.i - b.i)
    .slice(0, k)
    .map((e) => e.x);
}

const DIMS = 512;

/** Offline "embedding": hashed content-token and bigram counts, L2-normalised (not a neural model). */
export function hashedVector(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  const toks = contentTokens(text);
  toks.forEach((t, i) => {
    v[fnv1a(t) % DIMS] += 1;
    if (i > 0) v[fnv1a(`${toks[i - 1]} ${t}`) % DIMS] += 0.5;
  });
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < DIMS; i++) v[i] /= norm;
  return v;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A vector store of keys (cosine top-k). */
export class VectorIndex<K> {
  // Sparse copies of the vectors (non-zero positions ascending): the dot product adds the same
  // terms in the same order as `cosine`, without the zeros, so scores are identical and faster.
  private readonly vectors = new Map<K, { at: Uint16Array; x: Float32Array }>();
  get size(): number {
    return this.vectors.size;
  }
  set(key: K, text: string): void {
    const v = hashedVector(text);
    const at: number[] = [];
    for (let i = 0; i < v.length; i++) if (v[i] !== 0) at.push(i);
    this.vectors.set(key, { at: Uint16Array.from(at), x: Float32Array.from(at, (i) => v[i]) });
  }
  remove(key: K): void {
    this.vectors.delete(key);
  }
  search(query: string, k: number, filter?: (key: K) => boolean): Scored<K>[] {
    const q = hashedVector(query);
    const out: Scored<K>[] = [];
    for (const [key, v] of this.vectors) {
      if (filter && !filter(key)) continue;
      let s = 0;
      for (let j = 0; j < v.at.length; j++) s += q[v.at[j]] * v.x[j];
      out.push({ key, score: s });
    }
    return topK(out, k);
  }
}

/** Reciprocal rank fusion of ranked lists (score = Σ 1/(k + rank), rank from 1). */
export function rrf<K>(lists: Scored<K>[][], k: number): Scored<K>[] {
  const scores = new Map<K, number>();
  for (const list of lists)
    list.forEach((h, i) => {
      scores.set(h.key, (scores.get(h.key) ?? 0) + 1 / (k + i + 1));
    });
  return topK(
    [...scores].map(([key, score]) => ({ key, score })),
    scores.size,
  );
}
