export { BM25_DEFAULTS, Bm25Index, bm25Idf } from './bm25.ts';
export { corpusFromGraph, type DocScope, indexKey } from './corpus.ts';
export { DenseIndex } from './dense.ts';
export type { Embedder } from './embedder.ts';
export { FALLBACK_LABEL, HashedNgramEmbedder } from './hashed.ts';
export { RetrievalIndex, SEARCH_METHODS, type SearchMethod } from './retrieval-index.ts';
export { reciprocalRankFusion } from './rrf.ts';
export {
  EmbedderHost,
  type EmbedderInfo,
  type EmbeddingSetting,
  type IndexInfo,
  type IndexStore,
  type ServiceHit,
  type ServiceProgress,
  TraceRetrieval,
} from './service.ts';
export { START_POINTS, startPointQuery, startPoints } from './startpoints.ts';
export { TermTable, tokenize, tokenizeReference } from './tokenize.ts';
export type { Hit } from './topk.ts';
export { type Dtype, TransformersEmbedder } from './transformers.ts';
