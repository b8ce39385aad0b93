/**
 * `memtrace bench TRACE --qa QA` when no case has a label to score against: the run still says
 * what a person came for — every question of the QA file a trace answered, its verdict (and
 * what decided it), and for each wrong answer the stage and op the attribution names, with the
 * count per error type — and says plainly that nothing was scored because no labels were given.
 */
import { listCases, systemOf } from '../core/cases/index.ts';
import type { TraceGraph } from '../core/graph/index.ts';
import { mapLimited } from '../core/llm/index.ts';
import { attributeCase, type CaseFailure, caseDeps, type MethodRun } from './attribution-setup.ts';
import { type CliIO, printRow } from './io.ts';
import { answerRuleOf } from './qa.ts';

/** One question of an unlabelled `bench --qa` run. */
export interface QuestionRow {
  file: string;
  query_id: string;
  question: string;
  /** The verdict: true when the answer was judged wrong. */
  failed: boolean;
  /** What decided the verdict: `given` by the QA file, the answer rule's name, null for the trace's own judge. */
  answer_rule: string | null;
  /** The stage the attribution names (null: a right answer, or not attributable). */
  error_type: string | null;
  op_id: string | null;
  not_attributable: string | null;
  reason: string;
  llm_calls: number;
  error: CaseFailure | null;
}

/** Every judged question of one graph; the wrong ones attributed with the run's method. */
export async function attributeQuestions(
  run: MethodRun,
  concurrency: number,
  graph: TraceGraph,
  file: string,
  io: CliIO,
): Promise<QuestionRow[]> {
  const cases = listCases(graph, { includePassed: true });
  const wrong = cases.filter((c) => c.failed);
  const system = systemOf(graph.doc, file);
  const deps = wrong.length ? await caseDeps(graph, run, wrong) : null;
  const attributed = await mapLimited(wrong, concurrency, async (c) => {
    const r = await attributeCase(run.method, { graph, case: c, system }, deps!);
    if (r.error) io.stderr.write(`${file} ${c.queryId} failed: ${r.error.kind}: ${r.error.message}\n`);
    return r;
  });
  const byQuery = new Map(wrong.map((c, i) => [c.queryId, attributed[i]]));
  return cases.map((c) => {
    const a = byQuery.get(c.queryId);
    return {
      file,
      query_id: c.queryId,
      question: c.question,
      failed: c.failed,
      answer_rule: answerRuleOf(graph, c),
      error_type: a?.result.error_type ?? null,
      op_id: a?.result.op_id ?? null,
      not_attributable: a?.result.not_attributable?.reason ?? null,
      reason: a?.result.reason ?? '',
      llm_calls: a?.result.cost.llm_calls ?? 0,
      error: a?.error ?? null,
    };
  });
}

/** How many of the rows have each value of `key`. */
function countBy(rows: readonly QuestionRow[], key: (r: QuestionRow) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) {
    const k = key(r);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** The summary of an unlabelled run (extends bench's summary fields; `scored: false`, the questions in `cases`). */
export function questionsSummary(rows: readonly QuestionRow[], labelSource: string) {
  const wrong = rows.filter((r) => r.failed);
  return {
    scored: false,
    note: `no labels given: no case has a label of source "${labelSource}" (--labels FILE, --label-source, or annotations in the trace score the attribution); the questions are judged and the wrong answers attributed, not scored`,
    total_cases: rows.length,
    wrong_answers: wrong.length,
    /** `trace`: the trace's own judge decided (an evaluation event, a score), a QA row joined to it or not. */
    answer_rules: countBy(rows, (r) => r.answer_rule ?? 'trace'),
    predicted_error_types: countBy(wrong, (r) => r.error_type ?? 'not_attributable'),
  };
}

/** The unlabelled run as text: the note, one row per question, the counts per error type. */
export function printQuestions(
  io: CliIO,
  rows: readonly QuestionRow[],
  s: ReturnType<typeof questionsSummary>,
) {
  io.stdout.write(`${s.note}\n${s.total_cases} question(s), ${s.wrong_answers} answered wrong\n`);
  for (const r of rows)
    printRow(io, [
      r.query_id,
      r.failed ? 'WRONG' : 'right',
      r.failed ? (r.error_type ?? 'not attributable') : '-',
      r.op_id ?? '-',
      r.question.replace(/\s+/g, ' ').slice(0, 100),
    ]);
  const types = Object.entries(s.predicted_error_types);
  if (types.length) io.stdout.write(`${types.map(([t, n]) => `${t} ${n}`).join('  ')}\n`);
}
