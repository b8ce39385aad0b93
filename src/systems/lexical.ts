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

/**
 * BM25 (k1 = 1.2, b = 0.75) over documents that can be set and removed at any time. Postings
 * (term → documents) keep a search to the documents sharing a query term: scoring every
 * document made Mem0's offline run quadratic in its store.
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
    if (n === 0 || q.length === 0) return [];
    const avg = this.totalLength / n || 1;
    const candidates = new Set<K>();
    for (const t of q) for (const key of this.postings.get(t) ?? []) candidates.add(key);
    const out: (Scored<K> & { seq: number })[] = [];
    for (const key of candidates) {
      if (filter && !filter(key)) continue;
      const tf = this.docs.get(key)!;
      let s = 0;
      const norm = 1.2 * (1 - 0.75 + (0.75 * (this.lengths.get(key) ?? 0)) / avg);
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const d = this.postings.get(t)?.size ?? 0;
        s += Math.log(1 + (n - d + 0.5) / (d + 0.5)) * ((f * 2.2) / (f + norm));
      }
      if (s > 0) out.push({ key, score: s, seq: this.seq.get(key)! });
    }
    out.sort((a, b) => b.score - a.score || a.seq - b.seq);
    return out.slice(0, k).map(({ key, score }) => ({ key, score }));
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
  private readonly vectors = new Map<K, Float32Array>();
  get size(): number {
    return this.vectors.size;
  }
  set(key: K, text: string): void {
    this.vectors.set(key, hashedVector(text));
  }
  remove(key: K): void {
    this.vectors.delete(key);
  }
  search(query: string, k: number, filter?: (key: K) => boolean): Scored<K>[] {
    const q = hashedVector(query);
    const out: Scored<K>[] = [];
    for (const [key, v] of this.vectors) if (!filter || filter(key)) out.push({ key, score: cosine(q, v) });
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
