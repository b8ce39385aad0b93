/**
 * Calibrated confidence: the share of development verdicts decided the same way that were
 * right (`CALIBRATION`, written by `bench/attribution-rules.ts --write-calibration` from the
 * development parts of every labelled set, with add-one smoothing). A verdict is keyed by
 * the rule that decided it, whether the evidence stated the answer, and whether the carrying
 * test was learned from the trace's judge or is the prior.
 */
import { CALIBRATION } from './calibration-table.ts';
import type { AnswerRuleUsed } from './types.ts';

/** Below this confidence a verdict is `uncertain`: more likely wrong than right. */
export const UNCERTAIN_BELOW = 0.5;

/** The rules that decide a verdict (the last of them in a result's `rules`). */
const DECIDERS = [
  'no-golden-answer',
  'context-states',
  'copied-into-context',
  'store-states',
  'memory-lost',
  'never-stored',
];

/** The calibration key of a verdict decided by these rules under a carrying test from `source`. */
export function calibrationKey(rules: readonly string[], source: AnswerRuleUsed['source']): string {
  const decider = [...rules].reverse().find((r) => DECIDERS.includes(r) || r.startsWith('flow:')) ?? 'none';
  const stated = decider === 'never-stored' && rules.includes('stating-evidence-first') ? '+stated' : '';
  const judge = source === 'fitted' || source === 'pooled' ? 'judge' : 'prior';
  return `${decider}${stated}|${judge}`;
}

/** The calibrated probability that a verdict decided so is right (0.5 for a way never seen in development). */
export function confidenceOf(rules: readonly string[], source: AnswerRuleUsed['source']): number {
  const cell = CALIBRATION[calibrationKey(rules, source)];
  return cell ? (cell.right + 1) / (cell.n + 2) : 0.5;
}
