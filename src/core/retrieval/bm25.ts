/**
 * Okapi BM25 over the paper's tokens (see tokenize.ts):
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 *   idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5)),  k1 = 1.2, b = 0.75.
 * A query term that occurs twice counts twice (as rank_bm25 and Lucene sum clauses).
 * Only documents sharing at least one term with the query are ranked.
 *
 * Storage: terms get integer ids; postings are compressed sparse rows
 * (`offsets[t]..offsets[t+1]` into `postDocs`/`postTf`, documents ascending).
 */
import { pack, unpack } from './pack.ts';
import { TermTable } from './tokenize.ts';
import { type Hit, topK } from './topk.ts';

/** BM25's term-frequency saturation `k1` and length normalisation `b`. */
export interface Bm25Params {
  k1: number;
  b: number;
}
/** The paper's BM25 parameters (k1 = 1.2, b = 0.75). */
export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75 };

/** idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5)) for `n` of `N` documents holding the term. */
export function bm25Idf(N: number, n: number): number {
  return Math.log(1 + (N - n + 0.5) / (n + 0.5));
}

/** Options of `Bm25Index.build`: parameters, cancellation and progress. */
export interface Bm25BuildOptions {
  params?: Partial<Bm25Params>;
  signal?: AbortSignal;
  /** Called every few thousand documents with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/** A growable Int32 buffer. */
class IntBuf {
  a = new Int32Array(1024);
  n = 0;
  push(v: number) {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/**
 * A BM25 index over a document list (see the module comment): built once, searched for the top k,
 * serialised with `pack`.
 */
export class Bm25Index {
  /** Per-document length normalisation k1·(1 − b + b·|d|/avgdl), computed once. */
  private readonly norm: Float64Array;
  private table: TermTable | null;

  private constructor(
    readonly params: Bm25Params,
    readonly terms: string[],
    table: TermTable | null,
    readonly offsets: Int32Array,
    readonly postDocs: Int32Array,
    readonly postTf: Int32Array,
    readonly docLen: Int32Array,
  ) {
    this.table = table;
    const n = docLen.length;
    let total = 0;
    for (let d = 0; d < n; d++) total += docLen[d];
    this.avgdl = n === 0 ? 0 : total / n;
    this.norm = new Float64Array(n);
    const { k1, b } = params;
    for (let d = 0; d < n; d++) this.norm[d] = k1 * (1 - b + (b * docLen[d]) / (this.avgdl || 1));
  }

  readonly avgdl: number;

  get docCount(): number {
    return this.docLen.length;
  }

  /** Term → id (rebuilt lazily after deserialising). */
  get termTable(): TermTable {
    if (!this.table) this.table = TermTable.fromTerms(this.terms);
    return this.table;
  }

  static async build(docs: ArrayLike<string>, options: Bm25BuildOptions = {}): Promise<Bm25Index> {
    const params = { ...BM25_DEFAULTS, ...options.params };
    const n = docs.length;
    const table = new TermTable();
    const terms = table.terms;
    const docLen = new Int32Array(n);
    const pairStart = new Int32Array(n + 1);
    const pairTerm = new IntBuf();
    const pairTf = new IntBuf();
    let lastDoc = new Int32Array(1024).fill(-1);
    let tfSlot = new Int32Array(1024); // index into pairTf of the term's entry for the current doc
    let df = new Int32Array(1024);
    let d = 0;
    let len = 0;
    const add = (id: number) => {
      if (id === lastDoc.length) {
        const grow = (a: Int32Array, fill: number) => {
          const b = new Int32Array(a.length * 2).fill(fill);
          b.set(a);
          return b;
        };
        lastDoc = grow(lastDoc, -1);
        tfSlot = grow(tfSlot, 0);
        df = grow(df, 0);
      }
      len++;
      if (lastDoc[id] === d) pairTf.a[tfSlot[id]]++;
      else {
        lastDoc[id] = d;
        tfSlot[id] = pairTf.n;
        df[id]++;
        pairTerm.push(id);
        pairTf.push(1);
      }
    };
    let sinceReport = 0;
    for (d = 0; d < n; d++) {
      if (sinceReport > 1 << 20) {
        // Every ~1M characters: progress, cancellation, and a turn of the event loop for abort messages.
        sinceReport = 0;
        options.signal?.throwIfAborted();
        options.onProgress?.(d, n);
        if (options.signal) await new Promise((r) => setTimeout(r, 0));
      }
      sinceReport += docs[d].length;
      len = 0;
      table.scan(docs[d], add);
      docLen[d] = len;
      pairStart[d + 1] = pairTerm.n;
    }
    options.onProgress?.(n, n);
    // Counting sort of (doc, term, tf) pairs by term: postings come out in document order.
    const nt = terms.length;
    const offsets = new Int32Array(nt + 1);
    for (let t = 0; t < nt; t++) offsets[t + 1] = offsets[t] + df[t];
    const fill = offsets.slice(0, nt);
    const total = pairTerm.n;
    const postDocs = new Int32Array(total);
    const postTf = new Int32Array(total);
    for (let doc = 0; doc < n; doc++) {
      for (let p = pairStart[doc]; p < pairStart[doc + 1]; p++) {
        const t = pairTerm.a[p];
        const at = fill[t]++;
        postDocs[at] = doc;
        postTf[at] = pairTf.a[p];
      }
    }
    return new Bm25Index(params, terms, table, offsets, postDocs, postTf, docLen);
  }

  /** Number of documents containing the term (0 when unknown). */
  docFreq(term: string): number {
    const t = this.termTable.id(term);
    return t < 0 ? 0 : this.offsets[t + 1] - this.offsets[t];
  }

  idf(term: string): number {
    return bm25Idf(this.docCount, this.docFreq(term));
  }

  /** Scores of every document (0 for those sharing no term with the query). */
  scores(query: string): { scores: Float64Array; matched: Int32Array } {
    const N = this.docCount;
    const scores = new Float64Array(N);
    const seen = new Uint8Array(N);
    const matched = new IntBuf();
    const k1p1 = this.params.k1 + 1;
    const norm = this.norm;
    this.termTable.scan(
      query,
      (t) => {
        const lo = this.offsets[t];
        const hi = this.offsets[t + 1];
        const idf = bm25Idf(N, hi - lo);
        for (let p = lo; p < hi; p++) {
          const d = this.postDocs[p];
          const tf = this.postTf[p];
          scores[d] += (idf * (tf * k1p1)) / (tf + norm[d]);
          if (seen[d] === 0) {
            seen[d] = 1;
            matched.push(d);
          }
        }
      },
      false,
    );
    return { scores, matched: matched.a.subarray(0, matched.n) };
  }

  /** The best `k` documents for the query, best first. */
  search(query: string, k: number): Hit[] {
    const { scores, matched } = this.scores(query);
    return topK(matched, (d) => scores[d], k);
  }

  serialize(): Uint8Array {
    return pack(
      { kind: 'bm25', k1: this.params.k1, b: this.params.b },
      {
        terms: new TextEncoder().encode(this.terms.join('\n')),
        offsets: this.offsets,
        postDocs: this.postDocs,
        postTf: this.postTf,
        docLen: this.docLen,
      },
    );
  }

  static deserialize(bytes: Uint8Array): Bm25Index {
    const { meta, arrays } = unpack(bytes);
    if (meta.kind !== 'bm25') throw new Error('not a BM25 index');
    const text = new TextDecoder().decode(arrays.terms as Uint8Array);
    const terms = text === '' ? [] : text.split('\n');
    return new Bm25Index(
      { k1: Number(meta.k1), b: Number(meta.b) },
      terms,
      null,
      arrays.offsets as Int32Array,
      arrays.postDocs as Int32Array,
      arrays.postTf as Int32Array,
      arrays.docLen as Int32Array,
    );
  }
}
