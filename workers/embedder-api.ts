/** The embedder worker's API: one embedder, texts in, vectors out (`EmbedderApi`); it never holds a trace. */
import type { EmbedderInfo, EmbeddingSetting, ServiceProgress } from '../src/core/retrieval/index.ts';

/** The embedder worker: one embedder, texts in, vectors out; it never holds a trace. */
export interface EmbedderApi {
  setEmbedding(setting: EmbeddingSetting, onProgress?: (p: ServiceProgress) => void): Promise<EmbedderInfo>;
  embedderInfo(): EmbedderInfo | Promise<EmbedderInfo>;
  /** Cancels a model still loading. */
  cancel(): void;
  /** Rows of `dims` floats, one per text (transferred). */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array>;
  /** Serves this API on a port too (the engine worker's end). */
  connect(port: MessagePort): void;
}
