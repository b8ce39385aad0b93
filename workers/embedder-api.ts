/** The embedder worker's API: one embedder, texts in, vectors out (`EmbedderApi`); it never holds a trace. */
import type { EmbedderInfo, EmbeddingSetting, ServiceProgress } from '../src/core/retrieval/index.ts';

/** The embedder worker: one embedder, texts in, vectors out; it never holds a trace. */
export interface EmbedderApi {
  /** Switches the embedder; aborting `signal` stops a model still loading (the one in use stays). */
  setEmbedding(
    setting: EmbeddingSetting,
    onProgress?: (p: ServiceProgress) => void,
    signal?: AbortSignal,
  ): Promise<EmbedderInfo>;
  embedderInfo(): EmbedderInfo | Promise<EmbedderInfo>;
  /** Rows of `dims` floats, one per text (transferred). */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array>;
  /** Serves this API on a port too (the engine worker's end). */
  connect(port: MessagePort): void;
}
