/**
 * The one place strings are hashed: content keys, ids derived from text, the hashed n-gram
 * embedder, cache keys. The non-cryptographic ones are for speed over large texts (a 100 MB
 * trace is hashed value by value) and must give the same numbers they always gave: the n-gram
 * embedder's vectors, OTLP span and trace ids and the ids of imported OpenTelemetry values are
 * made from them. Those are FNV-1a's multiply-xor over UTF-16 code units; `sha256Hex`
 * (sha256.ts, its own file so the page's bundle takes only it) is the one cryptographic digest
 * of a text (`@noble/hashes`, as the SDK's content names).
 */

/** FNV-1a's 32-bit offset basis and prime. */
const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** The second lane's multiplier (MurmurHash2's constant): a lane independent of the first. */
const LANE2_PRIME = 0x5bd1e995;

/** FNV-1a (32 bit) of `s`'s code units `from`..`to` from `seed` (default FNV's basis), as an unsigned integer. */
export function fnv1a(s: string, from = 0, to = s.length, seed = FNV_BASIS): number {
  let h = seed >>> 0;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** Two hex digits per byte value (a table: `toString(16)` is several times slower, and ids are made by the thousand). */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** A 32-bit number as 8 hex digits. */
export function hex8(n: number): string {
  return HEX[n >>> 24] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
}

/** The two lanes of the last `lanes` call (one pass over the text gives both; no array per call). */
const LANES = new Int32Array(2);

/** Two 32-bit lanes in one pass: FNV-1a from `seed1`, and the same walk with another multiplier from `seed2`. */
function lanes(s: string, seed1: number, seed2: number): Int32Array {
  let h1 = seed1;
  let h2 = seed2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, LANE2_PRIME);
  }
  LANES[0] = h1;
  LANES[1] = h2;
  return LANES;
}

/** A 64-bit hash of a text as 16 hex digits (two independent 32-bit lanes). */
export function hash16(text: string): string {
  const [h1, h2] = lanes(text, FNV_BASIS, FNV_PRIME ^ text.length);
  return hex8(h1) + hex8(h2);
}

/** A 53-bit hash of a text as a number (exact in a double): equal texts, equal numbers. */
export function hash53(text: string): number {
  const [h1, h2] = lanes(text, FNV_BASIS, FNV_PRIME ^ text.length);
  return 4294967296 * (h2 & 0x1fffff) + (h1 >>> 0);
}

/** A 64-bit fingerprint of a sequence of strings, chained: `update` each, then `digest` (16 hex digits). */
export class ContentHasher {
  private h1 = FNV_BASIS;
  private h2 = FNV_PRIME;

  /** Adds one string; length-delimited, so "ab" + "c" differs from "a" + "bc". */
  update(s: string): this {
    const [h1, h2] = lanes(s, this.h1 ^ s.length, this.h2 ^ Math.imul(s.length, LANE2_PRIME));
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  /** The fingerprint of everything added so far. */
  digest(): string {
    return hex8(this.h1) + hex8(this.h2);
  }
}
