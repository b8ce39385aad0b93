/**
 * Word vectors for matching meaning, not spelling: "pottery" ~ "ceramics",
 * "kids" ~ "children". GloVe-style vectors put words of one kind close together
 * (months, names, pets: "june" ~ "july" 0.99), so callers use them for topic words
 * only and match names, numbers and dates exactly.
 */
import { decodeVectorFile } from './vector-file.ts';

/** A loaded word-vector table (decoded from the compact file): vocabulary lookup and word-to-word cosine similarity. */
export class WordVectors {
  private readonly index = new Map<string, number>();
  private constructor(
    readonly source: string,
    readonly dims: number,
    private readonly rows: Int8Array,
    words: string[],
  ) {
    words.forEach((w, i) => {
      this.index.set(w, i);
    });
  }

  /** From the bytes of a compact vector file (`encodeVectorFile`). */
  static fromBytes(bytes: Uint8Array): WordVectors {
    const { header, words, rows } = decodeVectorFile(bytes);
    return new WordVectors(header.source, header.dims, rows, words);
  }

  get size(): number {
    return this.index.size;
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** Cosine similarity of two words (−1…1), or null when either is not in the vocabulary. */
  similarity(a: string, b: string): number | null {
    if (a === b) return this.index.has(a) ? 1 : null;
    const i = this.index.get(a);
    const j = this.index.get(b);
    if (i === undefined || j === undefined) return null;
    const d = this.dims;
    const r = this.rows;
    let s = 0;
    for (let k = 0, x = i * d, y = j * d; k < d; k++, x++, y++) s += r[x] * r[y];
    return s / (127 * 127);
  }
}

/** A word and its normalised key (the shape of `Term` in core/text). */
interface KeyedWord {
  surface: string;
  key: string;
}

/**
 * Term similarity from word vectors: the words as written, else their keys (a stem
 * is often a word too: "camp"), else 0 — an unknown word is not similar to anything.
 */
export function vectorSimilarity(vectors: WordVectors): { similarity(a: KeyedWord, b: KeyedWord): number } {
  const pick = (t: KeyedWord) => (vectors.has(t.surface) ? t.surface : vectors.has(t.key) ? t.key : null);
  return {
    similarity(a, b) {
      const x = pick(a);
      const y = pick(b);
      if (x === null || y === null) return 0;
      return vectors.similarity(x, y) ?? 0;
    },
  };
}
