/** Dense text embeddings behind one interface: a neural model (transformers.js) or the model-free fallback. */

/** Progress of an `embed` call: texts done of `total`. */
export interface EmbedProgress {
  /** Texts embedded so far. */
  done: number;
  total: number;
}

/** Cancellation and progress for an `embed` call. */
export interface EmbedOptions {
  signal?: AbortSignal;
  onProgress?: (p: EmbedProgress) => void;
}

/** A neural model (`transformers`) or the model-free `fallback`. */
export type EmbedderKind = 'transformers' | 'fallback';

/**
 * A text embedder: its identity (part of every index key), width, a label that names the fallback as such,
 * and `embed`.
 */
export interface Embedder {
  /** Stable identity of the model and its settings: part of every index key. */
  readonly id: string;
  readonly kind: EmbedderKind;
  readonly dims: number;
  /** What people see: names the fallback as such. */
  readonly label: string;
  /**
   * Embeds `texts` into one row-major Float32Array of `texts.length × dims`
   * (row i is text i). Rows are L2-normalised when the model says so (the fallback always is).
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array>;
  /** Frees the model (sessions, GPU buffers). */
  dispose?(): Promise<void>;
}

/** L2-normalises each `dims`-wide row of `v` in place (all-zero rows stay zero) and returns `v`. */
export function normalizeRows(v: Float32Array, dims: number): Float32Array {
  for (let o = 0; o < v.length; o += dims) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += v[o + j] * v[o + j];
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let j = 0; j < dims; j++) v[o + j] *= inv;
    }
  }
  return v;
}
