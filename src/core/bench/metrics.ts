/**
 * Scoring attributions against labels, as the paper: exact match of the error
 * type (ETA) and of the op id (OIA), one prediction per case. Macro scores
 * average over the error types present, because label sets are skewed (a constant
 * "answer op, ResponseError" guess scores high micro accuracy on typical runs).
 * Labels outside the five types are excluded and counted.
 */
import type { Attribution } from '../attribution/index.ts';
import { ERROR_TYPES, isErrorType } from '../trace/index.light.ts';

/**
 * One attributed case as the benchmark scores it: its system, the label, the prediction and what the run
 * spent.
 */
export interface ScoredCase {
  system: string | null;
  label_type: string;
  label_op: string | null;
  predicted_type: string | null;
  predicted_op: string | null;
  input_tokens: number;
  output_tokens: number;
  seconds: number;
  /** Why the engine could not trace the case (`Attribution.not_attributable`), else null. */
  not_attributable?: string | null;
  /** The engine's calibrated confidence (0–1), when it gives one. */
  confidence?: number | null;
  /** The verdict was below the engine's confidence threshold (`Attribution.uncertain`). */
  uncertain?: boolean;
}

/** Micro and macro ETA / OIA over a set of cases. */
export interface Scores {
  total_cases: number;
  error_type_accuracy: number;
  op_id_accuracy: number;
  macro_error_type_accuracy: number;
  macro_op_id_accuracy: number;
}

/** Error-type and op-id accuracy (exact match, shares of `total`) over a group of cases. */
export interface Accuracy {
  total: number;
  error_type_accuracy: number;
  op_id_accuracy: number;
}

/**
 * A benchmark run's scores: micro and macro (over error types present) ETA and OIA, per system and per
 * error type, the type confusion matrix and mean cost per case.
 */
export interface BenchSummary {
  total_cases: number;
  error_type_accuracy: number;
  op_id_accuracy: number;
  macro_error_type_accuracy: number;
  macro_op_id_accuracy: number;
  by_system: Record<string, Accuracy>;
  by_error_type: Record<string, Accuracy>;
  /** confusion[label][predicted] = count; a missing prediction counts as "none". */
  confusion: Record<string, Record<string, number>>;
  avg_input_tokens: number;
  avg_output_tokens: number;
  avg_seconds: number;
  /** Cases left out because their label is not one of the five error types. */
  excluded_cases: number;
  /** Cases the engine found not attributable, by reason (they count as misses in the scores above). */
  not_attributable: { total: number; by_reason: Record<string, number> };
  /** The scores with the not-attributable cases counted apart (left out). */
  attributable: Scores;
  /** Verdicts below the confidence threshold, counted apart: how many, and the scores of the others. */
  uncertain: { total: number; certain: Scores };
}

function accuracy(cases: ScoredCase[]): Accuracy {
  const n = cases.length;
  const type = cases.filter((c) => c.predicted_type === c.label_type).length;
  const op = cases.filter((c) => c.label_op !== null && c.predicted_op === c.label_op).length;
  return { total: n, error_type_accuracy: n ? type / n : 0, op_id_accuracy: n ? op / n : 0 };
}

function groupBy(cases: ScoredCase[], key: (c: ScoredCase) => string): Map<string, ScoredCase[]> {
  const m = new Map<string, ScoredCase[]>();
  for (const c of cases) {
    const k = key(c);
    const list = m.get(k);
    if (list) list.push(c);
    else m.set(k, [c]);
  }
  return m;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Micro and macro scores of labelled cases. */
function scores(cases: ScoredCase[]): Scores {
  const overall = accuracy(cases);
  const byType = groupBy(cases, (c) => c.label_type);
  const typeAcc = ERROR_TYPES.filter((t) => byType.has(t)).map((t) => accuracy(byType.get(t)!));
  return {
    total_cases: cases.length,
    error_type_accuracy: overall.error_type_accuracy,
    op_id_accuracy: overall.op_id_accuracy,
    macro_error_type_accuracy: mean(typeAcc.map((a) => a.error_type_accuracy)),
    macro_op_id_accuracy: mean(typeAcc.map((a) => a.op_id_accuracy)),
  };
}

/**
 * Scores cases against their labels (the paper's ETA and OIA, plus macro averages over error types); cases
 * whose label is not one of the five types are left out and counted; not-attributable cases are also
 * scored apart.
 */
export function summarize(all: ScoredCase[]): BenchSummary {
  const cases = all.filter((c) => isErrorType(c.label_type));
  const byType = groupBy(cases, (c) => c.label_type);
  const untraced = cases.filter((c) => c.not_attributable);
  const confusion: Record<string, Record<string, number>> = {};
  for (const c of cases) {
    confusion[c.label_type] ??= {};
    const row = confusion[c.label_type];
    const p = c.predicted_type ?? 'none';
    row[p] = (row[p] ?? 0) + 1;
  }
  return {
    ...scores(cases),
    by_system: Object.fromEntries(
      [...groupBy(cases, (c) => c.system ?? 'unknown')].map(([k, v]) => [k, accuracy(v)]),
    ),
    by_error_type: Object.fromEntries(
      ERROR_TYPES.filter((t) => byType.has(t)).map((t) => [t, accuracy(byType.get(t)!)]),
    ),
    confusion,
    avg_input_tokens: mean(cases.map((c) => c.input_tokens)),
    avg_output_tokens: mean(cases.map((c) => c.output_tokens)),
    avg_seconds: mean(cases.map((c) => c.seconds)),
    excluded_cases: all.length - cases.length,
    not_attributable: {
      total: untraced.length,
      by_reason: Object.fromEntries(
        [...groupBy(untraced, (c) => c.not_attributable ?? '')].map(([k, v]) => [k, v.length]),
      ),
    },
    attributable: scores(cases.filter((c) => !c.not_attributable)),
    uncertain: {
      total: cases.filter((c) => c.uncertain).length,
      certain: scores(cases.filter((c) => !c.uncertain && !c.not_attributable)),
    },
  };
}

/**
 * One case's row for `summarize`: its label (none: label type `''`, scored as excluded) next
 * to what the attribution named and what it cost.
 */
export function scoredCase(
  a: Attribution,
  system: string | null,
  label: { errorType: string; opId: string | null } | null,
): ScoredCase {
  return {
    system,
    label_type: label?.errorType ?? '',
    label_op: label?.opId ?? null,
    predicted_type: a.error_type,
    predicted_op: a.op_id,
    input_tokens: a.cost.input_tokens,
    output_tokens: a.cost.output_tokens,
    seconds: a.cost.seconds,
    not_attributable: a.not_attributable?.reason ?? null,
    confidence: a.confidence ?? null,
    uncertain: a.uncertain ?? false,
  };
}
