import { casePath, listCases, systemOf, type TraceCase } from '../../core/cases/index.ts';
import type { TraceGraph } from '../../core/graph/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { eachTraceFile, traceFilesIn } from '../files.ts';
import { printJson, printRow } from '../io.ts';
import { answerRuleOf, QA_FLAG, qaPrepare } from '../qa.ts';

/** `judgeOpId` → `judge_op_id`. */
type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/** Core's case fields with snake_case names (a field added to `TraceCase` must be added to `caseJson`). */
type CaseFieldsJson = { [K in keyof Omit<TraceCase, 'label'> as SnakeCase<K>]: TraceCase[K] };

/**
 * The JSON shape of one case (snake_case, as the other JSON contracts): `file`, `system`,
 * `graph_id`, `query_id`, `question`, `golden_answers`, `prediction`, `judge_score`,
 * `judge_response`, `judge_op_id`, `failed`, `evidence_ids`, `error_type`, `op_id`,
 * `label_source`, `path`, `path_names`, `answer_rule` (what decided the verdict of a `--qa` row: `given` by the
 * file, the rule's name, or `trace` when the trace's own judge judged the question too — one case,
 * the row's golden answers joined to it; null for the trace's own judges without a row).
 */
type CaseJson = { file: string; system: string | null } & CaseFieldsJson & {
    error_type: string | null;
    op_id: string | null;
    label_source: string | null;
    /** op_ids from the conversation to the answer (its causes, in execution order), then the judge. */
    path: string[];
    /** The ops of `path` by name (span names, for a span trace). */
    path_names: (string | null)[];
    answer_rule: string | null;
  };

/** A case's path: op ids and names. */
function pathOf(g: TraceGraph, c: TraceCase): { ids: string[]; names: (string | null)[] } {
  const ops = casePath(g, c).ops;
  return { ids: ops.map((o) => g.opId[o]), names: ops.map((o) => g.opName[o] ?? null) };
}

function caseJson(
  file: string,
  system: string | null,
  c: TraceCase,
  path: { ids: string[]; names: (string | null)[] },
  answerRule: string | null,
): CaseJson {
  return {
    file,
    system,
    graph_id: c.graphId,
    query_id: c.queryId,
    question: c.question,
    golden_answers: c.goldenAnswers,
    prediction: c.prediction,
    judge_score: c.judgeScore,
    judge_response: c.judgeResponse,
    judge_op_id: c.judgeOpId,
    failed: c.failed,
    evidence_ids: c.evidenceIds,
    error_type: c.label?.errorType ?? null,
    op_id: c.label?.opId ?? null,
    label_source: c.label?.source ?? null,
    path: path.ids,
    path_names: path.names,
    answer_rule: answerRule,
  };
}

export const cases = command({
  name: 'cases',
  usage: 'memtrace cases <file or dir…> [--qa FILE] [--json]',
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<files or dirs…>' },
  options: { ...JSON_FLAG, ...QA_FLAG },
  async run({ positionals, values }, io) {
    const files = await traceFilesIn(positionals);
    const prepare = await qaPrepare(values.qa, io);
    const out: CaseJson[] = [];
    const each = (g: TraceGraph, file: string) => {
      const system = systemOf(g.doc, file);
      // With a QA file every row is listed, the questions answered right with `failed: false`.
      for (const c of listCases(g, { includePassed: prepare !== undefined }))
        out.push(caseJson(file, system, c, pathOf(g, c), answerRuleOf(g, c)));
    };
    const failedFiles = await eachTraceFile(files, io, each, { prepare });
    if (values.json) printJson(io, out);
    else
      for (const c of out)
        printRow(io, [
          c.query_id,
          c.error_type ?? '-',
          c.op_id ?? '-',
          c.question.replace(/\s+/g, ' ').slice(0, 100),
        ]);
    return failedFiles > 0 ? 1 : 0;
  },
});
