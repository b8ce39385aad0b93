/** Stable request hashing: canonical JSON (sorted keys) and SHA-256 (`@noble/hashes`). */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** JSON with object keys sorted, `undefined` fields dropped: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : walk(x)));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined && typeof x !== 'function') out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(walk(value));
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 hex digits (synchronous: cache keys are made inline). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
