/** Record ids (`graph-`, `op-`, `edge-`, `session-` + 32 hex digits, like Python's uuid4().hex). */
import { sha256Hex } from '../core/hash/index.ts';

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

/**
 * Reproducible ids from a seed, for demo traces and tests: the SHA-256 of `seed:n` for the
 * n-th call, cut to 32 hex digits. A counter never cycles, so a long run gets no duplicate
 * (the earlier 32-bit xorshift repeated itself after 4095 ids: a 6-session Mem0 run did not load).
 */
export function seededIds(seed: number): IdSource {
  let n = 0;
  return () => sha256Hex(`${seed}:${n++}`).slice(0, 32);
}
