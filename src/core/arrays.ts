/**
 * Array helpers for data-sized lists. `a.push(...b)` and `Math.max(...b)` pass every element
 * as a call argument, on the stack: past about 100k elements (a team's labels, a big trace's
 * spans) that throws "RangeError: Maximum call stack size exceeded". These loop instead.
 */

/** Appends every item to `target` (as `target.push(...items)`, for any length); returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest of `values` and `floor` (as `Math.max(floor, ...values)`: NaN if any is NaN). */
export function maxOf(values: Iterable<number>, floor = Number.NEGATIVE_INFINITY): number {
  let m = floor;
  for (const v of values) m = Math.max(m, v);
  return m;
}

/** The smallest of `values` and `ceiling` (as `Math.min(ceiling, ...values)`: NaN if any is NaN). */
export function minOf(values: Iterable<number>, ceiling = Number.POSITIVE_INFINITY): number {
  let m = ceiling;
  for (const v of values) m = Math.min(m, v);
  return m;
}
