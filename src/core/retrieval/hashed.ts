/**
 * The deterministic, model-free fallback embedder: hashed character n-grams.
 * NOT a neural model — it captures spelling overlap (shared words and word pieces),
 * not meaning. Used when no embedding model is available, and named as such.
 *
 * Each token of the paper's tokenizer is padded as "<tok>" and split into its
 * character 3-grams and 4-grams (a token shorter than the n-gram yields itself once);
 * every n-gram is hashed (FNV-1a, 32 bit) to a dimension and a sign (feature
 * hashing), weighted 1, and the vector is L2-normalised. Same text → same vector,
 * on every platform.
 */
import { fnv1a } from '../hash/index.ts';
import { type Embedder, type EmbedOptions, normalizeRows } from './embedder.ts';
import { TermTable } from './tokenize.ts';

/** Width of the fallback embedder's vectors unless chosen. */
export const FALLBACK_DIMS = 256;
/** How the fallback embedder is named wherever it shows: never as a neural model. */
export const FALLBACK_LABEL = 'fallback (hashed n-grams, not a neural model)';

/**
 * The model-free fallback embedder (see the module comment): deterministic hashed character n-grams,
 * L2-normalised.
 */
export class HashedNgramEmbedder implements Embedder {
  readonly kind = 'fallback' as const;
  readonly id: string;
  readonly label = FALLBACK_LABEL;
  /** Tokens seen so far and their signed n-gram dimensions (±(dim + 1)), computed once per token. */
  private table = new TermTable();
  private gramStart = new Int32Array(1025);
  private grams = new Int32Array(8192);
  private gramCount = 0;
  private gramsDone = 0;

  constructor(readonly dims = FALLBACK_DIMS) {
    if (!Number.isInteger(dims) || dims < 8) throw new Error('dims must be an integer ≥ 8');
    this.id = `fallback:hashed-char-ngrams-v1:d${dims}`;
  }

  private addTerm(term: string): void {
    const padded = `<${term}>`;
    const L = padded.length;
    const push = (from: number, to: number) => {
      const h = fnv1a(padded, from, to);
      if (this.gramCount === this.grams.length) {
        const b = new Int32Array(this.grams.length * 2);
        b.set(this.grams);
        this.grams = b;
      }
      // Low bits pick the dimension, the top bit the sign.
      const dim = (h % this.dims) + 1;
      this.grams[this.gramCount++] = h & 0x80000000 ? -dim : dim;
    };
    for (let n = 3; n <= 4; n++) {
      if (L < n) push(0, L);
      else for (let s = 0; s + n <= L; s++) push(s, s + n);
    }
  }

  /** Adds the n-grams of one text into row `out[o..o+dims)`. */
  embedInto(text: string, out: Float32Array, o: number): void {
    if (this.table.size > 1 << 21) this.reset(); // bound the cache on endless streams of new tokens
    const table = this.table;
    table.scan(text, (id) => {
      if (id >= this.gramsDone) {
        // First sight of a token (ids are handed out densely, in order).
        if (id + 2 > this.gramStart.length) {
          const b = new Int32Array(Math.max(id + 2, this.gramStart.length * 2));
          b.set(this.gramStart);
          this.gramStart = b;
        }
        for (let t = this.gramsDone; t <= id; t++) {
          this.gramStart[t] = this.gramCount;
          this.addTerm(table.terms[t]);
          this.gramStart[t + 1] = this.gramCount;
        }
        this.gramsDone = id + 1;
      }
      const grams = this.grams;
      for (let g = this.gramStart[id], end = this.gramStart[id + 1]; g < end; g++) {
        const v = grams[g];
        if (v > 0) out[o + v - 1] += 1;
        else out[o - v - 1] -= 1;
      }
    });
  }

  private reset(): void {
    this.table = new TermTable();
    this.gramStart = new Int32Array(1025);
    this.gramCount = 0;
    this.gramsDone = 0;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array> {
    const dims = this.dims;
    const out = new Float32Array(texts.length * dims);
    let sinceReport = 0;
    for (let i = 0; i < texts.length; i++) {
      if (sinceReport > 1 << 20) {
        sinceReport = 0;
        options.signal?.throwIfAborted();
        options.onProgress?.({ done: i, total: texts.length });
        if (options.signal) await new Promise((r) => setTimeout(r, 0));
      }
      sinceReport += texts[i].length;
      this.embedInto(texts[i], out, i * dims);
    }
    options.signal?.throwIfAborted();
    options.onProgress?.({ done: texts.length, total: texts.length });
    return normalizeRows(out, dims);
  }
}
