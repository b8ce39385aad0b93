/** Stable request hashing: canonical JSON (sorted keys) and SHA-256 (`core/hash`). */
import { sha256Hex } from '../hash/index.ts';

export { sha256Hex };

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
