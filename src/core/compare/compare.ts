/**
 * Comparing two runs of one conversation (a prompt or a parameter changed, the system rerun):
 * the questions paired by identity with their outcomes (fixed / broken / same), the first
 * point of divergence of each question, and the memory at question time in A vs B.
 */
import type { TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import { type Divergence, firstDivergence, RunSide } from './divergence.ts';
import { compareMemory, type MemoryComparison } from './memory.ts';
import { type Change, type Outcome, pairQuestions } from './questions.ts';

/** A case's own label from the trace, as compare JSON shows it. */
export interface CaseLabelJson {
  error_type: string;
  op_id: string | null;
  label_source: string | null;
}

/**
 * One question in both runs: ids, outcomes and whether it was fixed or broken, the first point of
 * divergence, the predictions and the trace's own labels.
 */
export interface QuestionComparison {
  query: string;
  query_id_a: string | null;
  query_id_b: string | null;
  outcome_a: Outcome;
  outcome_b: Outcome;
  change: Change;
  /** null when the question's evidence path has no op whose inputs match and outputs differ. */
  first_divergence: Divergence | null;
  golden_answers: string[];
  prediction_a: string | null;
  prediction_b: string | null;
  /** The file's own label of the case in each run, if any. */
  label_a: CaseLabelJson | null;
  label_b: CaseLabelJson | null;
}

/**
 * The comparison of two runs (`compareRuns`): every question paired, the memory at the last question both
 * asked, and counts of fixed, broken and diverged questions.
 */
export interface RunComparison {
  questions: QuestionComparison[];
  /** The memory at the time of the last question both runs asked (`at`). */
  memory: MemoryComparison & { at: { query_id_a: string; query_id_b: string } | null };
  summary: {
    questions: number;
    fixed: number;
    broken: number;
    same: number;
    still_wrong: number;
    diverged: number;
  };
}

/** Questions compared so far, of `total`. */
export interface CompareProgress {
  done: number;
  total: number;
}

const labelJson = (c: TraceCase | null): CaseLabelJson | null =>
  c?.label
    ? { error_type: c.label.errorType, op_id: c.label.opId, label_source: c.label.source ?? null }
    : null;

/** Compares run A with run B. */
export function compareRuns(ga: TraceGraph, gb: TraceGraph): RunComparison {
  const steps = compareSteps(ga, gb);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}

/**
 * `compareRuns` one question at a time: yields progress after each question (a worker host
 * yields to its event loop there, so a cancel gets through), returns the comparison.
 */
export function* compareSteps(ga: TraceGraph, gb: TraceGraph): Generator<CompareProgress, RunComparison> {
  const a = new RunSide(ga);
  const b = new RunSide(gb);
  const pairs = pairQuestions(ga, gb);
  const questions: QuestionComparison[] = [];
  for (const [i, p] of pairs.entries()) {
    questions.push({
      query: p.query,
      query_id_a: p.a?.queryId ?? null,
      query_id_b: p.b?.queryId ?? null,
      outcome_a: p.outcome_a,
      outcome_b: p.outcome_b,
      change: p.change,
      first_divergence: firstDivergence(a, b, p.a, p.b),
      golden_answers: (p.a ?? p.b)?.goldenAnswers ?? [],
      prediction_a: p.a?.prediction ?? null,
      prediction_b: p.b?.prediction ?? null,
      label_a: labelJson(p.a),
      label_b: labelJson(p.b),
    });
    yield { done: i + 1, total: pairs.length + 1 };
  }
  const both = pairs.filter((p) => p.a && p.b);
  const last = both.reduce<(typeof both)[number] | null>((best, p) => {
    const rank = (q: (typeof both)[number]) =>
      q.a?.judgeOpId ? (ga.opRank[ga.opIndex.get(q.a.judgeOpId) ?? 0] ?? -1) : -1;
    return !best || rank(p) >= rank(best) ? p : best;
  }, null);
  const memory = last
    ? compareMemory(a, b, last.a, last.b)
    : { only_a: [], only_b: [], changed: [], same: 0 };
  return {
    questions,
    memory: { ...memory, at: last ? { query_id_a: last.a!.queryId, query_id_b: last.b!.queryId } : null },
    summary: {
      questions: questions.length,
      fixed: questions.filter((q) => q.change === 'fixed').length,
      broken: questions.filter((q) => q.change === 'broken').length,
      same: questions.filter((q) => q.change === 'same').length,
      still_wrong: questions.filter((q) => q.outcome_a === 'wrong' && q.outcome_b === 'wrong').length,
      diverged: questions.filter((q) => q.first_divergence).length,
    },
  };
}

/** The memory at one question's time (for a view that opens a question). */
export function compareMemoryAt(
  ga: TraceGraph,
  gb: TraceGraph,
  caseA: TraceCase | null,
  caseB: TraceCase | null,
): MemoryComparison {
  return compareMemory(new RunSide(ga), new RunSide(gb), caseA, caseB);
}
