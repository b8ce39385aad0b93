import { appendAll } from '../../core/arrays.ts';
import { type ScoredCase, scoredCase, summarize } from '../../core/bench/index.ts';
import { listCases, systemOf } from '../../core/cases/index.ts';
import type { TraceGraph } from '../../core/graph/index.ts';
import {
  caseKey,
  FILE_CHOICE,
  fileLabels,
  type LabelChoice,
  type LabelRecord,
  labelsFor,
} from '../../core/labels/index.ts';
import { mapLimited, UsageMeter } from '../../core/llm/index.ts';
import {
  ATTRIBUTION_FLAGS,
  ATTRIBUTION_USAGE,
  agentOptionsOf,
  attributeCase,
  type CaseFailure,
  caseDeps,
  concurrencyOf,
  evidenceSetup,
  judgePoolOf,
  type MethodRun,
  methodOf,
  modelFor,
} from '../attribution-setup.ts';
import {
  attributeQuestions,
  printQuestions,
  type QuestionRow,
  questionsSummary,
} from '../bench-questions.ts';
import { command, JSON_FLAG } from '../command.ts';
import { eachTraceFile, outputFile, type PrepareDoc, traceFilesIn } from '../files.ts';
import { CliError, type CliIO, printJson } from '../io.ts';
import { LABEL_SOURCE_USAGE, labelChoiceOf, readLabelPaths } from '../labels.ts';
import { usageJson, usageLine } from '../provider-flags.ts';
import { QA_FLAG, qaPrepare } from '../qa.ts';
import { writeAtomic } from '../write.ts';

/** One scored case as `bench --out` writes it. */
type BenchCase = ScoredCase & {
  file: string;
  query_id: string;
  reason: string;
  llm_calls: number;
  error: CaseFailure | null;
};

/** What scoring a file needs, fixed once per run. */
interface BenchRun {
  io: CliIO;
  files: number;
  choice: LabelChoice;
  /** Labels from annotations files, joining each graph's own. */
  extra: LabelRecord[];
  run: MethodRun;
  concurrency: number;
}

/** The cases of one graph with a label of the chosen source, attributed and scored against it. */
async function scoreFile(b: BenchRun, graph: TraceGraph, file: string, i: number): Promise<BenchCase[]> {
  const records: LabelRecord[] = [
    ...fileLabels(graph.doc),
    ...b.extra.filter((l) => l.graphId === graph.doc.graph_id),
  ];
  const chosen = labelsFor(records, b.choice);
  const labelled = listCases(graph, { includePassed: b.choice !== FILE_CHOICE })
    .map((c) => ({
      c,
      label: chosen.get(caseKey({ graphId: graph.doc.graph_id, queryId: c.queryId })),
    }))
    .filter((x): x is { c: (typeof x)['c']; label: LabelRecord } => x.label !== undefined);
  b.io.stderr.write(`[${i + 1}/${b.files}] ${file}: ${labelled.length} labelled case(s)\n`);
  if (labelled.length === 0) return [];
  const system = systemOf(graph.doc, file);
  const method = b.run.method;
  const deps = await caseDeps(
    graph,
    b.run,
    labelled.map((x) => x.c),
  );
  return mapLimited(labelled, b.concurrency, async ({ c, label }) => {
    const { result: a, error } = await attributeCase(method, { graph, case: c, system }, deps);
    if (error) b.io.stderr.write(`${file} ${c.queryId} failed: ${error.kind}: ${error.message}\n`);
    return {
      file,
      query_id: c.queryId,
      ...scoredCase(a, system, label),
      llm_calls: a.cost.llm_calls,
      reason: a.reason,
      error,
    };
  });
}

/**
 * `--qa` and no labelled case: every question judged, the wrong ones attributed, the counts per
 * error type — not scored, and said so (exit 0 unless a file or a case failed).
 */
async function questionsRun(
  b: BenchRun,
  files: string[],
  o: { prepare: PrepareDoc; unreadable: number; meter: UsageMeter; out: unknown; json: boolean },
): Promise<number> {
  const rows: QuestionRow[] = [];
  const unreadable =
    o.unreadable +
    (await eachTraceFile(
      files,
      b.io,
      async (graph, file) => {
        appendAll(rows, await attributeQuestions(b.run, b.concurrency, graph, file, b.io));
      },
      { progress: false, prepare: o.prepare },
    ));
  if (rows.length === 0)
    throw new CliError(
      `no question of the QA file is in an LLM call of ${files.length} file(s), and no labelled case: nothing to report`,
    );
  const failed = rows.filter((r) => r.error).length;
  const counts = questionsSummary(rows, b.choice);
  const summary = {
    method: b.run.method,
    prior: b.run.prior,
    ...(b.run.model ? { preset: b.run.agent.preset ?? 'paper' } : {}),
    label_source: b.choice,
    ...counts,
    unreadable_files: unreadable,
    failed_cases: failed,
    ...(b.run.model ? { llm_usage: usageJson(o.meter.totals()) } : {}),
  };
  if (typeof o.out === 'string')
    await writeAtomic(o.out, `${JSON.stringify({ summary, cases: rows }, null, 2)}\n`);
  if (o.json) printJson(b.io, { ...summary, cases: rows });
  else printQuestions(b.io, rows, counts);
  if (b.run.model) b.io.stderr.write(`${usageLine(o.meter.totals())}\n`);
  if (failed) b.io.stderr.write(`${failed} of ${rows.length} case(s) failed\n`);
  return unreadable > 0 || failed > 0 ? 1 : 0;
}

export const bench = command({
  name: 'bench',
  usage: `memtrace bench <files or dirs…> [--qa FILE] ${ATTRIBUTION_USAGE} [--concurrency N] ${LABEL_SOURCE_USAGE} [--out results.json] [--json]`,
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<files or dirs…>' },
  options: {
    ...JSON_FLAG,
    out: { type: 'string', value: 'FILE', help: 'also write the summary and every case to this JSON file' },
    'label-source': {
      type: 'string',
      value: 'SOURCE',
      default: 'file',
      help: "labels to score against: file (each case's first annotation in its file), a label_source (adjudicated, fault-injection, …) or annotator:NAME",
    },
    labels: {
      type: 'string',
      multiple: true,
      value: 'FILE_OR_DIR',
      help: "annotations files or graph files whose labels join each graph's own (repeatable)",
    },
    qa: {
      ...QA_FLAG.qa,
      help: `${QA_FLAG.qa.help}; with no labelled case, lists each question's verdict and the stage attributed to each wrong answer (not scored)`,
    },
    ...ATTRIBUTION_FLAGS,
  },
  async run({ positionals, values }, io) {
    const method = methodOf(values);
    const choice = labelChoiceOf(values);
    const prepare = await qaPrepare(values.qa, io);
    // Labels from annotations files (a team's, adjudicated ones) join each graph's own.
    const extraLabels = Array.isArray(values.labels)
      ? await readLabelPaths(values.labels.map(String), io)
      : { labels: [], unreadable: 0 };
    const files = await traceFilesIn(positionals);
    if (typeof values.out === 'string') await outputFile(values.out, '--out');
    const meter = new UsageMeter();
    const model = modelFor(method, values, io, meter);
    const concurrency = concurrencyOf(values);
    const setup = await evidenceSetup(values, io, meter);
    // Only evidence-flow runs a judge rule; the agents would read each file once more for nothing.
    if (method === 'evidence') setup.evidenceFlow.judgePool = await judgePoolOf(files, setup.evidenceFlow);
    const agent = agentOptionsOf(values);
    const run = { method, model, prior: values.prior, agent, setup };
    const perCase: BenchCase[] = [];
    const b: BenchRun = { io, files: files.length, choice, extra: extraLabels.labels, run, concurrency };
    const unreadable =
      extraLabels.unreadable +
      (await eachTraceFile(
        files,
        io,
        async (graph, file, i) => {
          appendAll(perCase, await scoreFile(b, graph, file, i));
        },
        { progress: false, prepare },
      ));
    if (perCase.length === 0 && prepare)
      return questionsRun(b, files, {
        // The files are read again; their unmatched questions were said on the first pass.
        prepare: (await qaPrepare(values.qa, io, { quiet: true }))!,
        unreadable,
        meter,
        out: values.out,
        json: values.json === true,
      });
    if (perCase.length === 0)
      throw new CliError(
        `no labelled case in ${files.length} file(s)${unreadable ? ` (${unreadable} unreadable)` : ''}: nothing to score`,
      );
    const failed = perCase.filter((c) => c.error).length;
    const summary = {
      method,
      prior: values.prior,
      ...(model ? { preset: agent.preset ?? 'paper' } : {}),
      label_source: choice,
      ...summarize(perCase),
      unreadable_files: unreadable,
      failed_cases: failed,
      ...(model ? { llm_usage: usageJson(meter.totals()) } : {}),
    };
    if (typeof values.out === 'string') {
      await writeAtomic(values.out, `${JSON.stringify({ summary, cases: perCase }, null, 2)}\n`);
    }
    if (values.json) printJson(io, summary);
    else {
      const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
      io.stdout.write(
        `${summary.total_cases} cases  ETA ${pct(summary.error_type_accuracy)}  OIA ${pct(summary.op_id_accuracy)}  macro ETA ${pct(summary.macro_error_type_accuracy)}  macro OIA ${pct(summary.macro_op_id_accuracy)}\n`,
      );
      if (summary.uncertain.total > 0)
        io.stdout.write(
          `${summary.uncertain.total} uncertain (counted above); the other ${summary.uncertain.certain.total_cases}: ETA ${pct(summary.uncertain.certain.error_type_accuracy)}  macro ETA ${pct(summary.uncertain.certain.macro_error_type_accuracy)}\n`,
        );
    }
    if (model) io.stderr.write(`${usageLine(meter.totals())}\n`);
    if (failed) io.stderr.write(`${failed} of ${perCase.length} case(s) failed\n`);
    return unreadable > 0 || failed > 0 ? 1 : 0;
  },
});
