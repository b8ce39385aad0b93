/** Record ids (`graph-`, `op-`, `edge-`, `session-` + 32 hex digits, like Python's uuid4().hex). */

/** Returns 32 lower-case hex digits per call. */
export type IdSource = () => string;

/** Random ids from the platform's crypto (browsers, workers and Node 20 all have `crypto.getRandomValues`). */
export const randomIds: IdSource = () => {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // uuid version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
};

/** Reproducible ids from a seed (xorshift128+ style mixing); for demo traces and tests. */
export function seededIds(seed: number): IdSource {
  let s0 = (seed ^ 0x9e3779b9) >>> 0 || 1;
  let s1 = (seed * 2654435761) >>> 0 || 2;
  const next = () => {
    let x = s0;
    const y = s1;
    s0 = y;
    x ^= x << 23;
    x ^= x >>> 17;
    x ^= y ^ (y >>> 26);
    s1 = x >>> 0;
    return (s0 + s1) >>> 0;
  };
  return () => {
    let out = '';
    for (let i = 0; i < 4; i++) out += next().toString(16).padStart(8, '0');
    return out;
  };
}
