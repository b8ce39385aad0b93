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
import type { ChatModel } from '../../core/llm/index.ts';
import type {
  AttributedInput,
  AttributionRecord,
  ErrorReport,
  GraphKey,
  NarrativeCase,
  ReportCase,
} from '../../core/report/index.ts';
import { depsFor } from '../attribution-setup.ts';
import { command } from '../command.ts';
import { eachTraceFile, readText, traceFilesIn } from '../files.ts';
import { CliError, type CliIO } from '../io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from '../provider-flags.ts';
import { writeAtomic } from '../write.ts';

/**
 * The report builder and the evidence-flow engine, loaded when the command runs: their imports
 * are heavy (the NLP libraries under the evidence walk) and `memtrace --help` needs neither.
 */
async function reportLib() {
  // Names destructured, so the faces' check (scripts/check-faces.ts) sees what the command takes.
  const [
    {
      AttributionFileError,
      buildReport,
      errorAnalysisReportJson,
      matchRecords,
      narrativeCase,
      narrativeFromText,
      parseAttributionFile,
      parseErrorAnalysisReport,
      reportCase,
      reportHtml,
      reportMarkdown,
      writeNarrative,
    },
    { evidenceFlowEngine },
  ] = await Promise.all([import('../../core/report/index.ts'), import('../../core/attribution/index.ts')]);
  return {
    AttributionFileError,
    buildReport,
    errorAnalysisReportJson,
    matchRecords,
    narrativeCase,
    narrativeFromText,
    parseAttributionFile,
    parseErrorAnalysisReport,
    reportCase,
    reportHtml,
    reportMarkdown,
    writeNarrative,
    evidenceFlowEngine,
  };
}

const FORMATS = ['md', 'html', 'json', 'paper'] as const;
type ReportFormat = (typeof FORMATS)[number];

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
  const lib = await reportLib();
  const out: { file: string; records: AttributionRecord[] }[] = [];
  for (const file of files) {
    try {
      out.push({ file, records: lib.parseAttributionFile(await readText(file), file) });
    } catch (e) {
      throw attributionError(lib, e);
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

type ReportLib = Awaited<ReturnType<typeof reportLib>>;

/** An attribution file's problem as the command's one-line error. */
function attributionError(lib: ReportLib, e: unknown): unknown {
  return e instanceof lib.AttributionFileError ? new CliError(e.message) : e;
}

/** What one report run reads: its trace files and the attribution files' records (if any). */
interface ReportInput {
  lib: ReportLib;
  io: CliIO;
  files: string[];
  sources: { file: string; records: AttributionRecord[] }[];
}

/**
 * With attribution files: each record's graph (by its place in `files`), found in one pass over
 * the graphs; and how many files could not be read.
 */
async function recordsByGraph(
  input: ReportInput,
): Promise<{ byGraph: Map<number, AttributionRecord[]>; unreadable: number }> {
  const byGraph = new Map<number, AttributionRecord[]>();
  if (input.sources.length === 0) return { byGraph, unreadable: 0 };
  const keys: (GraphKey | null)[] = input.files.map(() => null);
  const unreadable = await eachTraceFile(
    input.files,
    input.io,
    (g, file, i) => {
      keys[i] = keyOf(file, g);
    },
    { progress: false },
  );
  const known = keys.map((k, i) => ({ k, i })).filter((x): x is { k: GraphKey; i: number } => x.k !== null);
  for (const { file, records } of input.sources) {
    let matched: number[];
    try {
      matched = input.lib.matchRecords(
        records,
        known.map((x) => x.k),
        file,
      );
    } catch (e) {
      throw attributionError(input.lib, e);
    }
    matched.forEach((m, j) => {
      const i = known[m].i;
      const list = byGraph.get(i) ?? [];
      list.push(records[j]);
      byGraph.set(i, list);
    });
  }
  return { byGraph, unreadable };
}

/**
 * The report's cases, file by file: those the attribution records name, or else every
 * reportable case attributed by evidence-flow; with their narrative inputs when a model writes one.
 */
async function collectCases(input: ReportInput, byGraph: Map<number, AttributionRecord[]>, narrate: boolean) {
  const { lib, io, files, sources } = input;
  const cases: ReportCase[] = [];
  const narrativeCases: NarrativeCase[] = [];
  const unreadable = await eachTraceFile(
    files,
    io,
    async (g, file, i) => {
      const work: { c: TraceCase; a: AttributedInput }[] = [];
      if (sources.length > 0) {
        const all = listCases(g, { includePassed: true });
        for (const r of byGraph.get(i) ?? []) {
          const c = all.find((x) => x.queryId === r.query_id);
          if (c) work.push({ c, a: r });
        }
      } else {
        const found = reportable(g);
        if (found.length > 0) {
          const deps = await depsFor(g, {});
          for (const c of found)
            work.push({ c, a: await lib.evidenceFlowEngine({ graph: g, case: c }, deps) });
        }
      }
      io.stderr.write(`[${i + 1}/${files.length}] ${file}: ${work.length} case(s)\n`);
      for (const { c, a } of work) {
        const rc = lib.reportCase(g, c, a, { file });
        cases.push(rc);
        if (narrate) narrativeCases.push(lib.narrativeCase(g, c, rc));
      }
    },
    { progress: false, only: sources.length > 0 ? (i) => byGraph.has(i) : undefined },
  );
  return { cases, narrativeCases, unreadable };
}

/** A model writes the narrative (batches of `batchSize`), with its cost on stderr. */
async function writeModelNarrative(
  r: ErrorReport,
  narrativeCases: NarrativeCase[],
  run: { lib: ReportLib; io: CliIO; model: ChatModel; batchSize: number; overview: unknown },
): Promise<void> {
  const { io, batchSize } = run;
  io.stderr.write(
    `narrative: ${Math.ceil(narrativeCases.length / batchSize)} batch(es) of up to ${batchSize} cases\n`,
  );
  r.narrative = await run.lib.writeNarrative(narrativeCases, {
    model: run.model,
    overview: await overviewText(run.overview),
    batchSize,
    onBatch: (done, total) => io.stderr.write(`narrative batch ${done}/${total}\n`),
  });
  const c = r.narrative.cost;
  io.stderr.write(
    `narrative: ${c.calls} call(s) (${c.cached} cached, ${c.failed} failed), ${c.inputTokens} input + ${c.outputTokens} output tokens${c.estimated ? ' (partly estimated)' : ''}; ${r.narrative.dropped_citations.length} unknown citation(s) dropped\n`,
  );
}

/** The narrative of an earlier error_analysis_report.json, its citations kept to this report's cases. */
async function readNarrative(lib: ReportLib, r: ErrorReport, file: string): Promise<void> {
  try {
    r.narrative = lib.narrativeFromText(
      lib.parseErrorAnalysisReport(await readText(file), file),
      r.case_list.map((c) => c.case_id),
    );
  } catch (e) {
    throw attributionError(lib, e);
  }
}

/** The report in one format. */
function formatReport(
  lib: ReportLib,
  r: ErrorReport,
  format: ReportFormat,
  title: string | undefined,
): string {
  if (format === 'md') return lib.reportMarkdown(r, { title });
  if (format === 'html') return lib.reportHtml(r, { title });
  if (format === 'json') return `${JSON.stringify(r, null, 2)}\n`;
  return `${JSON.stringify(lib.errorAnalysisReportJson(r.narrative?.text ?? ''), null, 4)}\n`;
}

export const report = command({
  name: 'report',
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
    const lib = await reportLib();
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
    const input: ReportInput = { lib, io, files, sources: await readAttributions(values.attributions ?? []) };
    const matched = await recordsByGraph(input);
    const found = await collectCases(input, matched.byGraph, model !== undefined);
    const unreadable = matched.unreadable + found.unreadable;

    const r = lib.buildReport(found.cases, { generatedAt: new Date().toISOString() });
    if (model)
      await writeModelNarrative(r, found.narrativeCases, {
        lib,
        io,
        model,
        batchSize,
        overview: values.overview,
      });
    else if (typeof values['narrative-from'] === 'string')
      await readNarrative(lib, r, values['narrative-from']);

    const title = typeof values.title === 'string' ? values.title : undefined;
    for (const format of formats) {
      const ext = format === 'paper' ? 'error_analysis_report.json' : format;
      await emit(
        io,
        formats.length > 1 ? `${values.out}.${ext}` : values.out,
        formatReport(lib, r, format, title),
      );
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
