/**
 * The compact word-vector file: a JSON header line, the vocabulary (one word per
 * line), then one int8 row per word (the unit vector scaled by 127). About 100
 * bytes a word instead of ~900 in the source JSON, and read without parsing numbers.
 */

/** What the header line says about the rows that follow. */
interface VectorFileHeader {
  format: 'memtrace-word-vectors';
  version: 1;
  /** Where the vectors came from (package and version). */
  source: string;
  dims: number;
  count: number;
}

interface DecodedVectors {
  header: VectorFileHeader;
  words: string[];
  /** count × dims, row i is words[i], each row ≈ unit length × 127. */
  rows: Int8Array;
}

const NEWLINE = 10;

/** Writes words and their (any-length) vectors: rows are normalised and quantised here. */
export function encodeVectorFile(
  source: string,
  dims: number,
  entries: Iterable<[word: string, vector: ArrayLike<number>]>,
): Uint8Array {
  const words: string[] = [];
  const rows: number[][] = [];
  for (const [w, v] of entries) {
    if (w.includes('\n')) continue;
    let s = 0;
    for (let i = 0; i < dims; i++) s += v[i] * v[i];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    const row: number[] = new Array(dims);
    for (let i = 0; i < dims; i++) row[i] = Math.max(-127, Math.min(127, Math.round(v[i] * inv * 127)));
    words.push(w);
    rows.push(row);
  }
  const header: VectorFileHeader = {
    format: 'memtrace-word-vectors',
    version: 1,
    source,
    dims,
    count: words.length,
  };
  const text = new TextEncoder().encode(`${JSON.stringify(header)}\n${words.join('\n')}\n`);
  const out = new Uint8Array(text.length + words.length * dims);
  out.set(text, 0);
  const body = new Int8Array(out.buffer, text.length);
  rows.forEach((r, i) => {
    body.set(r, i * dims);
  });
  return out;
}

/** Reads a file written by `encodeVectorFile`; throws a one-line error when it is not one. */
export function decodeVectorFile(bytes: Uint8Array): DecodedVectors {
  const headerEnd = bytes.indexOf(NEWLINE);
  if (headerEnd < 0) throw new Error('not a word-vector file (no header line)');
  let header: VectorFileHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(0, headerEnd)));
  } catch {
    throw new Error('not a word-vector file (header is not JSON)');
  }
  if (header?.format !== 'memtrace-word-vectors' || header.version !== 1)
    throw new Error('not a word-vector file (unknown format)');
  const { dims, count } = header;
  const start = headerEnd + 1;
  let pos = start;
  // Find the vocabulary's end (count newlines; vector bytes after it may be 10 too), then decode it at once.
  for (let i = 0; i < count; i++) {
    const end = bytes.indexOf(NEWLINE, pos);
    if (end < 0)
      throw new Error(`word-vector file is truncated in its vocabulary (word ${i + 1} of ${count})`);
    pos = end + 1;
  }
  const words = count ? new TextDecoder().decode(bytes.subarray(start, pos - 1)).split('\n') : [];
  if (bytes.length - pos < count * dims)
    throw new Error(
      `word-vector file is truncated: ${count * dims} vector bytes expected, ${bytes.length - pos} found`,
    );
  const rows = new Int8Array(bytes.buffer, bytes.byteOffset + pos, count * dims);
  return { header, words, rows };
}
