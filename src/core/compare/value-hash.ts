/**
 * Value identity across two runs: a 53-bit hash (`core/hash`) of each variable's value text, computed once
 * per variable and cached. Long-context windows make values large (the whole 100 MB file is
 * values), so this is the one pass over the text a comparison makes; after it, equal values
 * are equal numbers. Collisions are negligible at these sizes (≈ n² / 2⁵⁴).
 */
import type { TraceGraph } from '../graph/index.ts';
import { hash53 } from '../hash/index.ts';

/** Cached value hashes of one graph's variables. */
export class ValueHashes {
  readonly #cache: Float64Array;
  constructor(private readonly g: TraceGraph) {
    this.#cache = new Float64Array(g.vars.length).fill(Number.NaN);
  }
  of(v: number): number {
    let h = this.#cache[v];
    if (Number.isNaN(h)) {
      h = hash53(this.g.varValue[v]);
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
