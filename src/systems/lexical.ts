/**
 * Retrieval of the offline mode: an incremental Okapi BM25 over a changing set of
 * documents (memory units are added, rewritten and deleted while a system runs) and a
 * hashed bag-of-words vector as a deterministic stand-in for an embedder.
 */
import { contentTokens, tokens } from './text.ts';

export interface Scored<K> {
  key: K;
  score: number;
}

/** BM25 (k1 = 1.2, b = 0.75) over documents that can be set and removed at any time. */
export class LexicalIndex<K> {
  private readonly docs = new Map<K, Map<string, number>>();
  private readonly lengths = new Map<K, number>();
  private readonly df = new Map<string, number>();
  private totalLength = 0;

  get size(): number {
    return this.docs.size;
  }

  set(key: K, text: string): void {
    this.remove(key);
    const tf = new Map<string, number>();
    const toks = tokens(text);
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.docs.set(key, tf);
    this.lengths.set(key, toks.length);
    this.totalLength += toks.length;
  }

  remove(key: K): void {
    const tf = this.docs.get(key);
    if (!tf) return;
    for (const t of tf.keys()) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n === 0) this.df.delete(t);
      else this.df.set(t, n);
    }
    this.totalLength -= this.lengths.get(key) ?? 0;
    this.docs.delete(key);
    this.lengths.delete(key);
  }

  /** Top-k keys by BM25; ties keep insertion order. Only documents sharing a term are returned. */
  search(query: string, k: number, filter?: (key: K) => boolean): Scored<K>[] {
    const q = tokens(query);
    const n = this.docs.size;
    if (n === 0 || q.length === 0) return [];
    const avg = this.totalLength / n || 1;
    const out: Scored<K>[] = [];
    for (const [key, tf] of this.docs) {
      if (filter && !filter(key)) continue;
      let s = 0;
      const norm = 1.2 * (1 - 0.75 + (0.75 * (this.lengths.get(key) ?? 0)) / avg);
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const d = this.df.get(t) ?? 0;
        s += Math.log(1 + (n - d + 0.5) / (d + 0.5)) * ((f * 2.2) / (f + norm));
      }
      if (s > 0) out.push({ key, score: s });
    }
    return topK(out, k);
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

function hash(t: string): number {
  let h = 2166136261;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Offline "embedding": hashed content-token and bigram counts, L2-normalised (not a neural model). */
export function hashedVector(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  const toks = contentTokens(text);
  toks.forEach((t, i) => {
    v[hash(t) % DIMS] += 1;
    if (i > 0) v[hash(`${toks[i - 1]} ${t}`) % DIMS] += 0.5;
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
