/**
 * One trace's retrieval index: BM25 over the documents, optionally dense vectors
 * from one embedder, and the three ways to rank (bm25, dense, hybrid RRF).
 * Built once, serialised to one binary blob (IndexedDB value / cache file), checked
 * against `indexKey` when loaded.
 */
import { Bm25Index } from './bm25.ts';
import { type Corpus, type DocScope, indexKey } from './corpus.ts';
import { DenseIndex } from './dense.ts';
import type { Embedder } from './embedder.ts';
import { pack, unpack } from './pack.ts';
import { reciprocalRankFusion } from './rrf.ts';
import type { Hit } from './topk.ts';

/** How `RetrievalIndex.search` ranks: BM25, dense vectors, or both fused by RRF. */
export type SearchMethod = 'bm25' | 'dense' | 'hybrid';
/** The search methods, in the order they are offered. */
export const SEARCH_METHODS: readonly SearchMethod[] = ['bm25', 'dense', 'hybrid'];

/** One ranked document: its id, score, 1-based rank and document number (hybrid: its rank in each list). */
export interface SearchHit {
  full_node_id: string;
  score: number;
  /** 1-based. */
  rank: number;
  /** Document number in the corpus. */
  doc: number;
  /** Hybrid only: rank in each retriever's 2k list (null when absent). */
  bm25Rank?: number | null;
  denseRank?: number | null;
}

/** Progress of building an index: which phase (BM25 or embedding) and how far. */
export interface BuildProgress {
  phase: 'bm25' | 'embed';
  done: number;
  total: number;
}

/** Options of `RetrievalIndex.build`: an embedder for dense vectors, cancellation and progress. */
export interface IndexBuildOptions {
  /** Also embed every document (dense + hybrid search). */
  embedder?: Embedder | null;
  signal?: AbortSignal;
  onProgress?: (p: BuildProgress) => void;
}

/**
 * One trace's retrieval index for one scope: BM25 and optional dense vectors, searched by BM25, dense or
 * hybrid, and serialised with its content key (`indexKey`).
 */
export class RetrievalIndex {
  constructor(
    readonly key: string,
    readonly scope: DocScope,
    readonly ids: string[],
    readonly bm25: Bm25Index,
    readonly dense: DenseIndex | null,
  ) {}

  get modelId(): string | null {
    return this.dense?.modelId ?? null;
  }

  static async build(corpus: Corpus, options: IndexBuildOptions = {}): Promise<RetrievalIndex> {
    const embedder = options.embedder ?? null;
    const bm25 = await Bm25Index.build(corpus.texts, {
      signal: options.signal,
      onProgress: (done, total) => options.onProgress?.({ phase: 'bm25', done, total }),
    });
    const dense = embedder
      ? await DenseIndex.build(embedder, corpus.texts, {
          signal: options.signal,
          onProgress: ({ done, total }) => options.onProgress?.({ phase: 'embed', done, total }),
        })
      : null;
    return new RetrievalIndex(indexKey(corpus, embedder?.id ?? null), corpus.scope, corpus.ids, bm25, dense);
  }

  /** True when this index was built from exactly these documents with this embedder. */
  matches(corpus: Corpus, modelId: string | null): boolean {
    return this.key === indexKey(corpus, modelId);
  }

  /**
   * The best `k` documents. `dense` and `hybrid` need the embedder the index was built
   * with (it embeds the query). Hybrid: BM25 and dense each return 2k, fused by RRF.
   */
  async search(
    query: string,
    options: { method?: SearchMethod; k?: number; embedder?: Embedder | null; signal?: AbortSignal } = {},
  ): Promise<SearchHit[]> {
    const method = options.method ?? 'bm25';
    const k = options.k ?? 10;
    const denseHits = async (n: number): Promise<Hit[]> => {
      const e = options.embedder;
      if (!this.dense) throw new Error('this index has no dense vectors (built without an embedder)');
      if (!e) throw new Error('dense search needs the embedder the index was built with');
      if (e.id !== this.dense.modelId)
        throw new Error(`index was built with ${this.dense.modelId}, not ${e.id}: rebuild it`);
      const q = await e.embed([query], { signal: options.signal });
      return this.dense.search(q, n);
    };
    const out = (hits: Hit[]): SearchHit[] =>
      hits.map((h, i) => ({ full_node_id: this.ids[h.doc], score: h.score, rank: i + 1, doc: h.doc }));
    if (method === 'bm25') return out(this.bm25.search(query, k));
    if (method === 'dense') return out(await denseHits(k));
    const fused = reciprocalRankFusion([this.bm25.search(query, 2 * k), await denseHits(2 * k)], k);
    return fused.map((f, i) => ({
      full_node_id: this.ids[f.doc],
      score: f.score,
      rank: i + 1,
      doc: f.doc,
      bm25Rank: f.ranks[0],
      denseRank: f.ranks[1],
    }));
  }

  serialize(): Uint8Array {
    const enc = new TextEncoder();
    return pack(
      { kind: 'retrieval-index', key: this.key, scope: this.scope, modelId: this.modelId },
      {
        ids: enc.encode(JSON.stringify(this.ids)),
        bm25: this.bm25.serialize(),
        ...(this.dense ? { dense: this.dense.serialize() } : {}),
      },
    );
  }

  static deserialize(bytes: Uint8Array): RetrievalIndex {
    const { meta, arrays } = unpack(bytes);
    if (meta.kind !== 'retrieval-index') throw new Error('not a memtrace retrieval index');
    const ids = JSON.parse(new TextDecoder().decode(arrays.ids as Uint8Array)) as string[];
    const bm25 = Bm25Index.deserialize(arrays.bm25 as Uint8Array);
    const dense = arrays.dense ? DenseIndex.deserialize(arrays.dense as Uint8Array) : null;
    if (bm25.docCount !== ids.length || (dense && dense.docCount !== ids.length))
      throw new Error('corrupt retrieval index (document counts differ)');
    return new RetrievalIndex(String(meta.key), meta.scope as DocScope, ids, bm25, dense);
  }
}

/** Reads the key of a serialised index without decoding the postings. */
export function storedIndexKey(bytes: Uint8Array): string | null {
  try {
    return String(unpack(bytes).meta.key);
  } catch {
    return null;
  }
}
