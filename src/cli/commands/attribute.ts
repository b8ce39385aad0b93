import { engineFor } from '../../core/attribution/engines.ts';
import type { Attribution } from '../../core/attribution/types.ts';
import { listCases } from '../../core/cases/cases.ts';
import { systemOf } from '../../core/cases/system.ts';
import { UsageMeter } from '../../core/llm/index.ts';
import { type MemtraceRecord, memtraceRecord, memtraceResults } from '../../core/report/memtrace-format.ts';
import {
  ATTRIBUTION_FLAGS,
  ATTRIBUTION_USAGE,
  concurrencyOf,
  depsFor,
  methodOf,
  modelFor,
  pool,
} from '../attribution-setup.ts';
import { type Command, JSON_FLAG } from '../command.ts';
import { CliError, printJson } from '../io.ts';
import { loadGraph } from './load.ts';

/** One line of `memtrace attribute --json`: the attribution, the graph it is about, and the label when the case has one. */
export type AttributeJson = Attribution & {
  label_type: string | null;
  label_op_id: string | null;
  /** The graph file as given, and its graph_id (so `memtrace report --attributions` finds the graph). */
  file: string;
  graph_id: string;
};

export const attribute: Command = {
  name: 'attribute',
  summary: 'name the decisive faulty operation of failed questions',
  usage: `memtrace attribute <file> [--case QUERY_ID] ${ATTRIBUTION_USAGE} [--json | --format memtrace]`,
  options: { ...JSON_FLAG, case: { type: 'string' }, format: { type: 'string' }, ...ATTRIBUTION_FLAGS },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new CliError('attribute takes exactly one file');
    if (values.format !== undefined && values.format !== 'memtrace')
      throw new CliError(
        `--format must be memtrace (the paper's {results: [...]} records; got "${values.format}")`,
        2,
      );
    const method = methodOf(values);
    const g = await loadGraph(positionals[0], io);
    const meter = new UsageMeter();
    const model = modelFor(method, values, io, meter);
    let cases = listCases(g).filter((c) => c.failed || c.label);
    if (typeof values.case === 'string') {
      cases = cases.filter((c) => c.queryId === values.case);
      if (cases.length === 0)
        throw new CliError(`${positionals[0]}: no failed question with query id "${values.case}"`);
    }
    const deps = await depsFor(g, { model, prior: Boolean(values.prior) });
    const engine = engineFor(method);
    const system = systemOf(g.doc, positionals[0]);
    const out = await pool(cases, concurrencyOf(values), async (c, i) => {
      io.stderr.write(`[${i + 1}/${cases.length}] ${c.queryId}\n`);
      const a = await engine({ graph: g, case: c, system }, deps);
      return {
        ...a,
        label_type: c.label?.errorType ?? null,
        label_op_id: c.label?.opId ?? null,
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
    else
      for (const a of out)
        io.stdout.write(`${a.query_id}\t${a.error_type ?? 'none'}\t${a.op_id ?? '-'}\t${a.reason}\n`);
    return 0;
  },
};
