/**
 * Value identity across two runs: a 53-bit hash of each variable's value text, computed once
 * per variable and cached. Long-context windows make values large (the whole 100 MB file is
 * values), so this is the one pass over the text a comparison makes; after it, equal values
 * are equal numbers. Collisions are negligible at these sizes (≈ n² / 2⁵⁴).
 */
import type { TraceGraph } from '../graph/index.ts';

/** cyrb53 (public domain): two 32-bit multiply-xorshift lanes over the UTF-16 code units. */
export function hashText(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Cached value hashes of one graph's variables. */
export class ValueHashes {
  readonly #cache: Float64Array;
  constructor(private readonly g: TraceGraph) {
    this.#cache = new Float64Array(g.vars.length).fill(Number.NaN);
  }
  of(v: number): number {
    let h = this.#cache[v];
    if (Number.isNaN(h)) {
      h = hashText(this.g.varValue[v]);
      this.#cache[v] = h;
    }
    return h;
  }
  /** An order-free key of a set of variables' values. */
  keyOf(vars: readonly number[]): string {
    return vars
      .map((v) => this.of(v))
      .sort((a, b) => a - b)
      .join(',');
  }
}
