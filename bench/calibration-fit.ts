/**
 * Fitting the calibration table (`CALIBRATION`, src/core/attribution/calibration-table.ts) from
 * labelled verdicts, and scoring verdicts with tables that never saw them (out of fold), so a
 * calibration figure is never measured on the verdicts that set it.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CalibrationTable } from '../src/core/attribution/index.ts';
import { seededRandom, shuffledWith } from '../src/core/random.ts';

/** A verdict as calibration sees it: its calibration keys (coarse to fine) and whether it was right. */
export interface KeyedVerdict {
  keys: readonly string[];
  right: boolean;
}

/** Per key (every level of each verdict's keys): the verdicts and the right ones. */
export function tableOf(vs: Iterable<KeyedVerdict>): Record<string, { n: number; right: number }> {
  const t: Record<string, { n: number; right: number }> = {};
  for (const v of vs)
    for (const k of v.keys) {
      t[k] ??= { n: 0, right: 0 };
      t[k].n++;
      if (v.right) t[k].right++;
    }
  return t;
}

/** A table key's levels, coarse to fine (as `calibrationKeys` gives them): `src`, `decider|src`, `decider|src|band`. */
export function levelsOf(key: string): string[] {
  const [decider, src, band] = key.split('|');
  return src === undefined ? [key] : [src, `${decider}|${src}`, ...(band ? [key] : [])];
}

/**
 * Each of `scored`'s confidences under the table of the `fit` verdicts outside its fold
 * (`foldOf`); a verdict whose fold holds none of `fit` gets the whole table.
 */
export function outOfFold<T extends KeyedVerdict>(
  scored: readonly T[],
  fit: readonly T[],
  foldOf: (v: T) => string,
  score: (t: CalibrationTable, v: T) => number,
): number[] {
  const tables = new Map<string, CalibrationTable>();
  return scored.map((v) => {
    const fold = foldOf(v);
    let t = tables.get(fold);
    if (!t) {
      t = tableOf(fit.filter((x) => foldOf(x) !== fold));
      tables.set(fold, t);
    }
    return score(t, v);
  });
}

/**
 * How a set with one verdict a file (memeval) is cross-fitted: this many random halvings, this
 * seed — one choice for every bench that reads its calibration. A figure is the mean over the
 * halvings. With 20, ten seeds gave memeval's most confident half 88.1–90.5 % and its ECE
 * 0.093–0.102 — both straddling a goal's bar; with 200, 89.0–89.8 % and 0.093–0.099.
 */
export const MEMEVAL_HALVINGS = { count: 200, seed: 31 } as const;

/**
 * `count` seeded random halvings of `n` items: per halving, whether item i is in the first half.
 * For a set with one verdict a file, where leaving one verdict out would put its own label into
 * its confidence (a wrong verdict's cell looks better without it): such a set is cross-fitted by
 * halves instead.
 */
export function halvings(n: number, count: number, seed: number): boolean[][] {
  const rand = seededRandom(seed);
  const out: boolean[][] = [];
  for (let r = 0; r < count; r++) {
    const order = shuffledWith(
      Array.from({ length: n }, (_, i) => i),
      rand,
    );
    const first = new Set(order.slice(0, Math.ceil(n / 2)));
    out.push(Array.from({ length: n }, (_, i) => first.has(i)));
  }
  return out;
}

/** Writes `table` as src/core/attribution/calibration-table.ts, naming the command that fitted it. */
export function writeCalibrationTable(root: string, table: CalibrationTable, command: string): void {
  const body = Object.entries(table)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    // Quoted as the formatter wants: bare when the key is an identifier.
    .map(([k, v]) => `  ${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: { n: ${v.n}, right: ${v.right} },`)
    .join('\n');
  const path = join(root, 'src/core/attribution/calibration-table.ts');
  const text = `/** Written by \`${command}\` from the dev parts; do not edit by hand. */\nexport const CALIBRATION: Readonly<Record<string, { n: number; right: number }>> = {\n${body}\n};\n`;
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
