/** Number formats of the evaluation view (the e2e test reads them back). */

/** 0.8723 → "87.2 %". */
export function percent(x: number): string {
  return `${(100 * x).toFixed(1)} %`;
}

/** Seconds as milliseconds with one decimal. */
export function millis(seconds: number): string {
  return `${(1000 * seconds).toFixed(1)} ms`;
}
