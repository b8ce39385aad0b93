/**
 * `memtrace report`: the system-level error report over failed cases of graph files —
 * attributed by the evidence-flow engine, or read from attribution files (the paper's
 * `{results: […]}`, `memtrace attribute --json`, `memtrace bench --out`) — as Markdown,
 * self-contained HTML, JSON, or the paper's `error_analysis_report.json`. With provider
 * flags a model writes the narrative (batches of 4, cached with --cache-dir).
 */
import { readFile } from 'node:fs/promises';
import { listCases, type TraceCase } from '../../core/cases/index.ts';
import type { TraceGraph } from '../../core/graph/index.ts';
import type {
  AttributedInput,
  AttributionRecord,
  GraphKey,
  NarrativeCase,
  ReportCase,
} from '../../core/report/index.ts';
import { depsFor } from '../attribution-setup.ts';
import { command } from '../command.ts';
import { openOneOf, readText, traceFilesIn } from '../files.ts';
import { CliError, type CliIO } from '../io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from '../provider-flags.ts';
import { writeAtomic } from '../write.ts';

/**
 * The report builder and the evidence-flow engine, loaded when the command runs: their imports
 * are heavy (the NLP libraries under the evidence walk) and `memtrace --help` needs neither.
 */
async function reportLib() {
  const [report, engines] = await Promise.all([
    import('../../core/report/index.ts'),
    import('../../core/attribution/index.ts'),
  ]);
  return { ...report, evidenceFlowEngine: engines.evidenceFlowEngine };
}

const FORMATS = ['md', 'html', 'json', 'paper'] as const;

/** Cases worth reporting: failed by the judge, or annotated. */
function reportable(g: TraceGraph): TraceCase[] {
  return listCases(g).filter((c) => c.failed || c.label);
}

function keyOf(file: string, g: TraceGraph): GraphKey {
  const meta = g.doc.metadata && typeof g.doc.metadata === 'object' ? g.doc.metadata : {};
  const bench = meta.memtracebench_graph_filename;
  return {
    path: file,
    graphId: typeof g.doc.graph_id === 'string' ? g.doc.graph_id : '',
    benchName: typeof bench === 'string' ? bench : null,
    queryIds: new Set(listCases(g, { includePassed: true }).map((c) => c.queryId)),
  };
}

async function readAttributions(files: string[]): Promise<{ file: string; records: AttributionRecord[] }[]> {
  const { AttributionFileError, parseAttributionFile } = await reportLib();
  const out: { file: string; records: AttributionRecord[] }[] = [];
  for (const file of files) {
    try {
      out.push({ file, records: parseAttributionFile(await readText(file), file) });
    } catch (e) {
      if (e instanceof AttributionFileError) throw new CliError(e.message);
      throw e;
    }
  }
  return out;
}

async function overviewText(value: unknown): Promise<string | undefined> {
  if (typeof value !== 'string') return undefined;
  try {
    return await readFile(value, 'utf8');
  } catch {
    return value; // not a file: the overview itself, as the paper's --target-system-overview
  }
}

export const report = command({
  name: 'report',
  summary:
    'system-level error report of failed cases: counts, rates, feature lifts, clusters, optional narrative',
  usage:
    'memtrace report <graph files or dirs…> [--attributions FILE]… [--format md|html|json|paper[,…]] [-o OUT] ' +
    `[--title T] [--narrative-from error_analysis_report.json] [--overview TEXT|FILE] [--batch-size N] [${PROVIDER_USAGE}]`,
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<graph files or dirs…>' },
  options: {
    attributions: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      help: 'attributions to report on (attribute --json, bench --out, or the paper’s results); default: evidence-flow on every failed case',
    },
    format: {
      type: 'string',
      default: 'md',
      choices: FORMATS,
      list: true,
      value: 'md|html|json|paper[,…]',
      help: 'what to write; several at once with -o OUT (OUT.md, OUT.html, …)',
    },
    out: { type: 'string', short: 'o', value: 'OUT', help: 'the file to write (default: stdout)' },
    title: { type: 'string', value: 'T', help: 'the report title' },
    overview: {
      type: 'string',
      value: 'TEXT|FILE',
      help: 'an overview of the target system given to the narrative model',
    },
    'narrative-from': {
      type: 'string',
      value: 'FILE',
      help: 'reuse the narrative of an error_analysis_report.json instead of asking a model',
    },
    'batch-size': {
      type: 'string',
      value: 'N',
      int: { min: 1 },
      help: 'cases per narrative call (default 4, as the paper)',
    },
    ...PROVIDER_FLAGS,
  },
  async run({ positionals, values }, io) {
    const {
      AttributionFileError,
      buildReport,
      errorAnalysisReportJson,
      matchRecords,
      narrativeCase,
      narrativeFromText,
      parseErrorAnalysisReport,
      reportCase,
      reportHtml,
      reportMarkdown,
      writeNarrative,
      evidenceFlowEngine,
    } = await reportLib();
    if (positionals.length === 0) throw new CliError('report needs graph files or folders', 2);
    // Several formats at once (`--format md,html`) write OUT.md, OUT.html, … from one run.
    const formats = values.format;
    if (formats.length > 1 && typeof values.out !== 'string')
      throw new CliError('several formats need -o OUT (written as OUT.md, OUT.html, …)', 2);
    const batchSize = values['batch-size'] ?? 4;
    const wantsNarrative = values.provider !== undefined;
    if (formats.includes('paper') && !wantsNarrative && values['narrative-from'] === undefined)
      throw new CliError('--format paper writes the narrative: give provider flags (or --narrative-from)', 2);
    const model = wantsNarrative ? chatModelFromFlags(values, io, { label: 'report narrative' }) : undefined;

    const files = await traceFilesIn(positionals);
    const attributionFiles = values.attributions ?? [];
    const sources = await readAttributions(attributionFiles);
    let unreadable = 0;
    const open = async (file: string): Promise<TraceGraph | null> => {
      const g = await openOneOf(file, files.length, io);
      if (!g) unreadable++;
      return g;
    };

    // With attribution files: find each record's graph first (one pass over the graphs).
    const byGraph = new Map<number, AttributionRecord[]>();
    if (sources.length > 0) {
      const keys: (GraphKey | null)[] = [];
      for (const file of files) {
        const g = await open(file);
        keys.push(g ? keyOf(file, g) : null);
      }
      const known = keys
        .map((k, i) => ({ k, i }))
        .filter((x): x is { k: GraphKey; i: number } => x.k !== null);
      for (const { file, records } of sources) {
        let matched: number[];
        try {
          matched = matchRecords(
            records,
            known.map((x) => x.k),
            file,
          );
        } catch (e) {
          if (e instanceof AttributionFileError) throw new CliError(e.message);
          throw e;
        }
        matched.forEach((m, j) => {
          const i = known[m].i;
          const list = byGraph.get(i) ?? [];
          list.push(records[j]);
          byGraph.set(i, list);
        });
      }
    }

    const cases: ReportCase[] = [];
    const narrativeCases: NarrativeCase[] = [];
    for (const [i, file] of files.entries()) {
      if (sources.length > 0 && !byGraph.has(i)) continue;
      const g = await open(file);
      if (!g) continue;
      const found = reportable(g);
      const work: { c: TraceCase; a: AttributedInput }[] = [];
      if (sources.length > 0) {
        const all = listCases(g, { includePassed: true });
        for (const r of byGraph.get(i) ?? []) {
          const c = all.find((x) => x.queryId === r.query_id);
          if (c) work.push({ c, a: r });
        }
      } else if (found.length > 0) {
        const deps = await depsFor(g, {});
        for (const c of found) work.push({ c, a: await evidenceFlowEngine({ graph: g, case: c }, deps) });
      }
      io.stderr.write(`[${i + 1}/${files.length}] ${file}: ${work.length} case(s)\n`);
      for (const { c, a } of work) {
        const rc = reportCase(g, c, a, { file });
        cases.push(rc);
        if (model) narrativeCases.push(narrativeCase(g, c, rc));
      }
    }

    const r = buildReport(cases, { generatedAt: new Date().toISOString() });
    if (model) {
      io.stderr.write(
        `narrative: ${Math.ceil(narrativeCases.length / batchSize)} batch(es) of up to ${batchSize} cases\n`,
      );
      r.narrative = await writeNarrative(narrativeCases, {
        model,
        overview: await overviewText(values.overview),
        batchSize,
        onBatch: (done, total) => io.stderr.write(`narrative batch ${done}/${total}\n`),
      });
      const c = r.narrative.cost;
      io.stderr.write(
        `narrative: ${c.calls} call(s) (${c.cached} cached, ${c.failed} failed), ${c.inputTokens} input + ${c.outputTokens} output tokens${c.estimated ? ' (partly estimated)' : ''}; ${r.narrative.dropped_citations.length} unknown citation(s) dropped\n`,
      );
    } else if (typeof values['narrative-from'] === 'string') {
      const file = values['narrative-from'];
      try {
        r.narrative = narrativeFromText(
          parseErrorAnalysisReport(await readText(file), file),
          r.case_list.map((c) => c.case_id),
        );
      } catch (e) {
        if (e instanceof AttributionFileError) throw new CliError(e.message);
        throw e;
      }
    }

    const title = typeof values.title === 'string' ? values.title : undefined;
    for (const format of formats) {
      const text =
        format === 'md'
          ? reportMarkdown(r, { title })
          : format === 'html'
            ? reportHtml(r, { title })
            : format === 'json'
              ? `${JSON.stringify(r, null, 2)}\n`
              : `${JSON.stringify(errorAnalysisReportJson(r.narrative?.text ?? ''), null, 4)}\n`;
      const ext = format === 'paper' ? 'error_analysis_report.json' : format;
      await emit(io, formats.length > 1 ? `${values.out}.${ext}` : values.out, text);
    }
    io.stderr.write(
      `${r.cases} case(s): ${r.attributed} attributed, ${r.no_decisive_error} with no decisive error; ${r.clusters.length} cluster(s)` +
        (unreadable ? `; ${unreadable} file(s) could not be read` : '') +
        '\n',
    );
    return unreadable > 0 ? 1 : 0;
  },
});

async function emit(io: CliIO, out: unknown, text: string) {
  if (typeof out !== 'string') {
    io.stdout.write(text);
    return;
  }
  await writeAtomic(out, text);
}
