import type { Attribution } from '../../core/attribution/index.ts';
import { listCases, systemOf } from '../../core/cases/index.ts';
import { mapLimited, UsageMeter } from '../../core/llm/index.ts';
import { type MemtraceRecord, memtraceRecord, memtraceResults } from '../../core/report/index.ts';
import {
  ATTRIBUTION_FLAGS,
  ATTRIBUTION_USAGE,
  agentOptionsOf,
  attributeCase,
  type CaseFailure,
  caseDeps,
  concurrencyOf,
  evidenceSetup,
  methodOf,
  modelFor,
} from '../attribution-setup.ts';
import { command, JSON_FLAG } from '../command.ts';
import { CliError, printJson, printRow } from '../io.ts';
import { usageLine } from '../provider-flags.ts';
import { QA_FLAG, qaPrepare } from '../qa.ts';
import { loadGraph } from './load.ts';

/**
 * One line of `memtrace attribute --json`: the attribution, the graph it is about, the label
 * when the case has one, and `error` when the case failed (then no type and no op; `cost` is
 * what it spent).
 */
type AttributeJson = Attribution & {
  label_type: string | null;
  label_op_id: string | null;
  error: CaseFailure | null;
  /** The graph file as given, and its graph_id (so `memtrace report --attributions` finds the graph). */
  file: string;
  graph_id: string;
};

export const attribute = command({
  name: 'attribute',
  usage: `memtrace attribute <file> [--case QUERY_ID] [--qa FILE] ${ATTRIBUTION_USAGE} [--json | --format memtrace]`,
  args: { min: 1, max: 1, name: '<file>' },
  options: {
    ...JSON_FLAG,
    case: {
      type: 'string',
      value: 'QUERY_ID',
      help: 'only this failed question (default: every failed or labelled one)',
    },
    format: {
      type: 'string',
      choices: ['memtrace'],
      help: "write the paper's {results: [...]} records instead of the workbench's JSON",
    },
    ...QA_FLAG,
    ...ATTRIBUTION_FLAGS,
  },
  async run({ positionals, values }, io) {
    const method = methodOf(values);
    const g = await loadGraph(positionals[0], io, await qaPrepare(values.qa, io));
    const meter = new UsageMeter();
    const model = modelFor(method, values, io, meter);
    let cases = listCases(g).filter((c) => c.failed || c.label);
    if (typeof values.case === 'string') {
      cases = cases.filter((c) => c.queryId === values.case);
      if (cases.length === 0)
        throw new CliError(`${positionals[0]}: no failed question with query id "${values.case}"`);
    }
    const setup = await evidenceSetup(values, io, meter);
    const run = { method, model, prior: values.prior, agent: agentOptionsOf(values), setup };
    const deps = await caseDeps(g, run, cases);
    const system = systemOf(g.doc, positionals[0]);
    const out = await mapLimited(cases, concurrencyOf(values), async (c, i) => {
      io.stderr.write(`[${i + 1}/${cases.length}] ${c.queryId}\n`);
      const { result, error } = await attributeCase(method, { graph: g, case: c, system }, deps);
      if (error)
        io.stderr.write(`[${i + 1}/${cases.length}] ${c.queryId} failed: ${error.kind}: ${error.message}\n`);
      return {
        ...result,
        label_type: c.label?.errorType ?? null,
        label_op_id: c.label?.opId ?? null,
        error,
        file: positionals[0],
        graph_id: g.doc.graph_id,
      } satisfies AttributeJson;
    });
    if (values.format === 'memtrace') {
      // The paper's records cannot say "no decisive error": those cases are listed in the metrics.
      const records: MemtraceRecord[] = [];
      const none: { graph_path: string; query_id: string }[] = [];
      for (const [i, a] of out.entries()) {
        if (a.error_type && a.op_id)
          records.push(
            memtraceRecord(g, cases[i], { ...a, error_type: a.error_type, op_id: a.op_id }, positionals[0]),
          );
        else none.push({ graph_path: positionals[0], query_id: a.query_id });
      }
      const cost = out.reduce(
        (s, a) => ({
          input_tokens: s.input_tokens + a.cost.input_tokens,
          output_tokens: s.output_tokens + a.cost.output_tokens,
          seconds: s.seconds + a.cost.seconds,
        }),
        { input_tokens: 0, output_tokens: 0, seconds: 0 },
      );
      printJson(io, memtraceResults(records, { split: system, cost, noDecisiveError: none }));
    } else if (values.json) printJson(io, out);
    else for (const a of out) printRow(io, [a.query_id, a.error_type ?? 'none', a.op_id ?? '-', a.reason]);
    const failed = out.filter((a) => a.error).length;
    if (model) io.stderr.write(`${usageLine(meter.totals())}\n`);
    if (failed) io.stderr.write(`${failed} of ${out.length} case(s) failed\n`);
    return failed ? 1 : 0;
  },
});
