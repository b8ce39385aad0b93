/** Written by `bench/attribution-rules.ts --write-calibration`; do not edit by hand. */
export const CALIBRATION: Readonly<Record<string, { n: number; right: number }>> = {};
