/** Rates with honest uncertainty: Wilson score intervals, and lift against a base rate. */

/** z for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/** A closed interval `[low, high]` of a proportion. */
export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval of a proportion `k / n` (95 % by default). Unlike the normal
 * approximation it stays inside [0, 1] and is wide for small samples: 1 of 2 gives
 * about 0.09–0.91, so a rate from a handful of cases looks as uncertain as it is.
 * `n = 0` gives the whole range.
 */
export function wilson(k: number, n: number, z = Z95): Interval {
  if (!(n > 0)) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** `k / n`, or null when there is nothing to divide by. */
export function rate(k: number, n: number): number | null {
  return n > 0 ? k / n : null;
}

/**
 * Lift of an outcome within a subgroup: P(outcome | subgroup) / P(outcome). 2 means
 * the outcome is twice as frequent in the subgroup as overall; null when either rate
 * is undefined or the base rate is 0.
 */
export function lift(kInGroup: number, group: number, kAll: number, all: number): number | null {
  const inGroup = rate(kInGroup, group);
  const base = rate(kAll, all);
  if (inGroup === null || base === null || base === 0) return null;
  return inGroup / base;
}
