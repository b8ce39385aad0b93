/** A flat dense-vector index: exact inner-product search over row-major Float32 vectors. */
import type { Embedder, EmbedOptions } from './embedder.ts';
import { pack, unpack } from './pack.ts';
import { type Hit, topK } from './topk.ts';

/**
 * Exact inner-product search over one embedder's document vectors (row-major Float32), serialised with
 * `pack`.
 */
export class DenseIndex {
  constructor(
    /** Embedder id the vectors came from. */
    readonly modelId: string,
    readonly dims: number,
    /** `count × dims`, row-major. */
    readonly vectors: Float32Array,
  ) {
    if (vectors.length % dims !== 0) throw new Error('vector buffer is not a whole number of rows');
  }

  get docCount(): number {
    return this.vectors.length / this.dims;
  }

  static async build(
    embedder: Embedder,
    docs: readonly string[],
    options: EmbedOptions = {},
  ): Promise<DenseIndex> {
    const vectors = await embedder.embed(docs, options);
    return new DenseIndex(embedder.id, embedder.dims, vectors);
  }

  /** Inner product of the query vector with every row (cosine when both are normalised). */
  similarities(query: Float32Array): Float32Array {
    const { dims, vectors } = this;
    if (query.length !== dims) throw new Error(`query has ${query.length} dims, index has ${dims}`);
    const n = this.docCount;
    const out = new Float32Array(n);
    for (let d = 0, o = 0; d < n; d++, o += dims) {
      let s = 0;
      for (let j = 0; j < dims; j++) s += vectors[o + j] * query[j];
      out[d] = s;
    }
    return out;
  }

  search(query: Float32Array, k: number): Hit[] {
    const sims = this.similarities(query);
    const all = new Int32Array(sims.length);
    for (let i = 0; i < all.length; i++) all[i] = i;
    return topK(all, (d) => sims[d], k);
  }

  serialize(): Uint8Array {
    return pack({ kind: 'dense', modelId: this.modelId, dims: this.dims }, { vectors: this.vectors });
  }

  static deserialize(bytes: Uint8Array): DenseIndex {
    const { meta, arrays } = unpack(bytes);
    if (meta.kind !== 'dense') throw new Error('not a dense index');
    return new DenseIndex(String(meta.modelId), Number(meta.dims), arrays.vectors as Float32Array);
  }
}
