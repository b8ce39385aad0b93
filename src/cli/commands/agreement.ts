/** `memtrace agreement`: how far annotators (people, files, engines) agree on the labelled failures. */
import { agreement as agreementOf, DEFAULT_MAX_PAIRS } from '../../core/agreement/index.ts';
import { appendAll } from '../../core/arrays.ts';
import { listCases, systemOf } from '../../core/cases/index.ts';
import { ENGINE_SOURCE, type LabelRecord } from '../../core/labels/index.ts';
import { depsFor } from '../attribution-setup.ts';
import { command, JSON_FLAG } from '../command.ts';
import { openTraceFile, problemLine } from '../files.ts';
import { CliError, printJson, printLine } from '../io.ts';
import { readLabelPaths } from '../labels.ts';

const ENGINE_ANNOTATOR = 'engine:evidence';

/** The evidence-flow engine as one more annotator: its attribution of every labelled case of the graph files. */
async function engineLabels(
  files: string[],
  labels: LabelRecord[],
  io: { stderr: { write(s: string): unknown } },
) {
  const wanted = new Set(labels.map((l) => `${l.graphId}\u0000${l.queryId}`));
  const out: LabelRecord[] = [];
  for (const file of files) {
    const r = await openTraceFile(file);
    if (!r.ok) throw new CliError(`--engine needs graph files it can open: ${problemLine(file, r.issues)}`);
    const graphId = typeof r.graph.doc.graph_id === 'string' ? r.graph.doc.graph_id : '';
    const cases = listCases(r.graph, { includePassed: true }).filter((c) =>
      wanted.has(`${graphId}\u0000${c.queryId}`),
    );
    if (cases.length === 0) continue;
    const deps = await depsFor(r.graph, {});
    const system = systemOf(r.graph.doc, file);
    // The engine (and the NLP libraries under it) loads when labels are made, not at startup.
    const { evidenceFlowEngine } = await import('../../core/attribution/index.ts');
    for (const c of cases) {
      const a = await evidenceFlowEngine({ graph: r.graph, case: c, system }, deps);
      out.push({
        graphId,
        queryId: c.queryId,
        errorType: a.error_type ?? 'none',
        opId: a.op_id,
        reason: a.reason,
        source: ENGINE_SOURCE,
        annotator: ENGINE_ANNOTATOR,
        createdAt: '',
        origin: 'imported',
      });
    }
    io.stderr.write(`${file}: evidence-flow attributed ${cases.length} labelled case(s)\n`);
  }
  return out;
}

export const agreement = command({
  name: 'agreement',
  usage:
    'memtrace agreement <annotations files, graph files or dirs…> [--engine evidence] [--max-pairs N] [--json]',
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<annotations files, graph files or dirs…>' },
  options: {
    ...JSON_FLAG,
    'max-pairs': {
      type: 'string',
      value: 'N',
      int: { min: 0 },
      default: String(DEFAULT_MAX_PAIRS),
      help: 'list at most N pairs of annotators who share cases, by name (pairs_truncated says when more exist; 0 = none)',
    },
    engine: {
      type: 'string',
      choices: ['evidence'],
      help: "add the evidence-flow attributor as one more annotator of the graph files' labelled cases (no model)",
    },
  },
  async run({ positionals, values }, io) {
    const { labels, files, graphFiles, unreadable } = await readLabelPaths(positionals, io);
    if (files === 0) throw new CliError(`${positionals.join(', ')}: no .json files to read labels from`);
    io.stderr.write(
      `${labels.length} label(s) in ${files - unreadable} file(s)${unreadable ? `; ${unreadable} file(s) could not be read` : ''}\n`,
    );
    if (values.engine) {
      if (graphFiles.length === 0)
        throw new CliError('--engine needs graph files among the inputs (it attributes their cases)', 2);
      appendAll(labels, await engineLabels(graphFiles, labels, io));
    }
    const report = agreementOf(labels, { maxPairs: values['max-pairs'] });
    if (values.json) {
      printJson(io, report);
      return unreadable ? 1 : 0;
    }
    const num = (x: number | null, pct = false) =>
      x === null ? '—' : pct ? `${(100 * x).toFixed(1)} %` : x.toFixed(3);
    printLine(io, `${report.annotators.length} annotator(s): ${report.annotators.join(', ')}`);
    printLine(
      io,
      `${report.shared_cases} case(s) labelled by two or more · Fleiss κ ${num(report.fleiss_kappa)}`,
    );
    for (const p of report.pairs)
      printLine(
        io,
        `${p.a} × ${p.b}: n ${p.n}  type disagreement ${num(p.type_disagreement, true)}  op disagreement ${num(p.op_disagreement, true)}  Cohen κ ${num(p.cohen_kappa)}`,
      );
    if (report.pairs_truncated)
      printLine(
        io,
        `… more pairs share cases than the ${report.max_pairs} listed (--max-pairs N lists more)`,
      );
    printLine(io, `${report.disputed.length} disputed case(s)`);
    for (const d of report.disputed)
      printLine(
        io,
        `  ${d.graph_id} ${d.query_id}: ${d.labels.map((l) => `${l.annotator}=${l.error_type}@${l.op_id ?? '-'}`).join('  ')}`,
      );
    return unreadable ? 1 : 0;
  },
});
