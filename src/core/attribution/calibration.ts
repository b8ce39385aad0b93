/**
 * Calibrated confidence: the share of development verdicts decided the same way that were
 * right (`CALIBRATION`, fitted on every development verdict of every labelled set and written
 * by `bench/attribution-generalisation.ts --write-calibration`). A verdict is described at three levels, coarse to
 * fine: where its carrying test came from (the trace's `judge`, or the `prior`); the rule that
 * decided it (and whether the evidence stated the answer); and, for an evidence-flow verdict,
 * the band of its own score (how well the test reproduced the judge × how clearly the answer
 * was lost × whether it was the only suspect). Each level's rate is shrunk toward the level
 * above (a Beta prior worth `PRIOR_WEIGHT` verdicts of it), so a way of deciding seen a few
 * times keeps near its parent's rate and one seen often speaks for itself.
 */
import { CALIBRATION } from './calibration-table.ts';
import type { AnswerRuleUsed } from './types.ts';

/** Below this confidence a verdict is `uncertain`: more likely wrong than right. */
export const UNCERTAIN_BELOW = 0.5;

/**
 * How many verdicts of its parent's rate a level's own count is weighed against. The source
 * level shrinks toward one in two with the weight of two (add-one smoothing). Chosen by
 * leave-one-file-out log-likelihood on 1,177 development verdicts (`--per-design 3
 * --cases-per-file 20`): deciders differ widely (a rule's rate is its own), score bands of one
 * decider less so.
 */
export const PRIOR_WEIGHT = { source: 2, decider: 1, band: 8 } as const;

/** Where the evidence-flow score's bands start (the last band is ≥ its start). */
export const SCORE_BANDS = [0.6, 0.9] as const;

/** The rules that decide a verdict (the last of them in a result's `rules`). */
const DECIDERS = ['no-golden-answer', 'context-states', 'store-states', 'memory-lost', 'never-stored'];

/** The calibration key of a verdict decided by these rules under a carrying test from `source`. */
export function calibrationKey(rules: readonly string[], source: AnswerRuleUsed['source']): string {
  const decider = [...rules].reverse().find((r) => DECIDERS.includes(r) || r.startsWith('flow:')) ?? 'none';
  const stated = decider === 'never-stored' && rules.includes('stating-evidence-first') ? '+stated' : '';
  return `${decider}${stated}|${sourceKey(source)}`;
}

const sourceKey = (source: AnswerRuleUsed['source']) =>
  source === 'fitted' || source === 'pooled' ? 'judge' : 'prior';

/**
 * A verdict's calibration keys, coarse to fine: its source, its decider (`calibrationKey`) and,
 * with an evidence-flow score, that score's band (`…|b0`, `…|b1`, …).
 */
export function calibrationKeys(
  rules: readonly string[],
  source: AnswerRuleUsed['source'],
  score: number | null = null,
): string[] {
  const key = calibrationKey(rules, source);
  const keys = [sourceKey(source), key];
  if (score !== null) keys.push(`${key}|b${SCORE_BANDS.filter((b) => score >= b).length}`);
  return keys;
}

/** A table of verdicts and right ones per calibration key. */
export type CalibrationTable = Readonly<Record<string, { n: number; right: number }>>;

/** The calibrated probability that a verdict with these keys (coarse to fine) is right, from `table`. */
export function confidenceFrom(table: CalibrationTable, keys: readonly string[]): number {
  const weights = [PRIOR_WEIGHT.source, PRIOR_WEIGHT.decider, PRIOR_WEIGHT.band];
  let p = 0.5;
  keys.forEach((k, i) => {
    const cell = table[k] ?? { n: 0, right: 0 };
    p = (cell.right + weights[i] * p) / (cell.n + weights[i]);
  });
  return p;
}

/** The calibrated probability that a verdict decided so is right (see the module comment). */
export function confidenceOf(
  rules: readonly string[],
  source: AnswerRuleUsed['source'],
  score: number | null = null,
): number {
  return confidenceFrom(CALIBRATION, calibrationKeys(rules, source, score));
}
