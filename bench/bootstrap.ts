/**
 * Percentile bootstrap intervals: how far a figure measured on a few dozen cases could move on
 * another draw of cases like them. Seeded, so a RESULTS section is the same on every run.
 */
import { quantile } from 'd3';
import { seededRandom } from '../src/core/random.ts';

/** How to resample (`bootstrapInterval`). */
export interface BootstrapOptions<T> {
  /** Resamples drawn (default 2,000). */
  reps?: number;
  seed?: number;
  /** Coverage of the interval (default 0.95). */
  level?: number;
  /** Resample within each stratum, keeping its size — so a macro over types keeps every type. */
  stratumOf?: (x: T) => string;
}

/**
 * The percentile interval of `stat` over resamples of `items` drawn with replacement. `stat` also
 * gets the draw's random source, for a figure that averages over randomness of its own (one
 * cross-fitting of many, say). Resamples whose figure is not a number are left out.
 */
export function bootstrapInterval<T>(
  items: readonly T[],
  stat: (xs: T[], rand: () => number) => number,
  { reps = 2000, seed = 7, level = 0.95, stratumOf = () => '' }: BootstrapOptions<T> = {},
): [number, number] {
  const strata = new Map<string, T[]>();
  for (const x of items) {
    const key = stratumOf(x);
    const xs = strata.get(key);
    if (xs) xs.push(x);
    else strata.set(key, [x]);
  }
  const rand = seededRandom(seed);
  const figures: number[] = [];
  for (let r = 0; r < reps; r++) {
    const sample: T[] = [];
    for (const xs of strata.values()) for (const _ of xs) sample.push(xs[Math.floor(rand() * xs.length)]);
    const f = stat(sample, rand);
    if (Number.isFinite(f)) figures.push(f);
  }
  const tail = (1 - level) / 2;
  return [quantile(figures, tail) ?? Number.NaN, quantile(figures, 1 - tail) ?? Number.NaN];
}
