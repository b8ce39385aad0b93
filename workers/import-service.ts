/**
 * Import: read → parse and validate (core) → build the graph, stats and cases →
 * store atomically (db) → hand the graph to the engine (`adopt`), which keeps it open, so
 * the file is parsed once. Runs inside the engine worker; plain class so Node tests can
 * drive it on fake-indexeddb.
 */
import { listCases, systemOf } from '../src/core/cases/index.ts';
import { buildGraph, type TraceGraph } from '../src/core/graph/index.ts';
import { fileLabels } from '../src/core/labels/index.ts';
import { looksLikeQaFile } from '../src/core/qa/index.ts';
import { traceStats } from '../src/core/stats/index.ts';
import {
  checkParsedValue,
  decodeUtf8,
  type ImportResult,
  IssueCollector,
  parseTraceText,
  type TraceIssue,
} from '../src/core/trace/index.ts';
import { replaceFileLabels } from '../src/db/labels.ts';
import { isQuotaError, QUOTA_MESSAGE, storeTrace } from '../src/db/repo.ts';
import type { MemtraceDb, TraceMeta } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';
import type {
  FileResult,
  ImportApi,
  ImportInput,
  ImportOptions,
  ImportPhase,
  ImportProgress,
} from './api.ts';
import { caseRowsOf } from './case-rows.ts';
import { joinQaFile, rejoinQa } from './qa-attach.ts';
import { parseTraceBlob, readStoredTrace } from './trace-read.ts';

/** Rough share of a file's work done when each phase starts (parse dominates). */
const PHASE_SHARE: Record<ImportPhase, number> = {
  reading: 0,
  parsing: 0.15,
  indexing: 0.6,
  storing: 0.8,
  done: 1,
};

export class ImportService implements ImportApi {
  constructor(
    private readonly db: MemtraceDb,
    private readonly now: () => number = Date.now,
    /** Takes the graph of each trace stored (the engine keeps it open). */
    private readonly adopt: (traceId: string, graph: TraceGraph) => void = () => {},
  ) {}

  /** Imports files in order; an aborted `signal` stops after the current step (nothing half-written is kept). */
  async importFiles(
    inputs: ImportInput[],
    options: ImportOptions,
    onProgress: (p: ImportProgress) => void = () => {},
    signal?: AbortSignal,
  ): Promise<FileResult[]> {
    const bytesTotal = inputs.reduce((s, f) => s + f.blob.size, 0);
    let bytesBefore = 0;
    const results: FileResult[] = [];
    const qaFiles: { index: number; input: ImportInput; text: string }[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i];
      const step = async (phase: ImportPhase) => {
        // A busy worker sees an abort only once it has taken its messages.
        if (phase !== 'done' && signal) await yieldToMessages();
        if (phase !== 'done') signal?.throwIfAborted();
        onProgress({
          fileIndex: i,
          fileCount: inputs.length,
          name: input.name,
          phase,
          bytesDone: bytesBefore + Math.round(input.blob.size * PHASE_SHARE[phase]),
          bytesTotal,
        });
      };
      try {
        const r = await this.#importOne(input, options, step, signal);
        if ('qaText' in r) qaFiles.push({ index: results.length, input, text: r.qaText });
        results.push('qaText' in r ? { ...base(input), status: 'questions' } : r);
      } catch (e) {
        if (!signal?.aborted) throw e;
        for (const rest of inputs.slice(i))
          results.push({ ...base(rest), status: 'cancelled', message: 'Import cancelled; nothing stored.' });
        break;
      }
      bytesBefore += input.blob.size;
      await step('done');
    }
    if (signal?.aborted) return results;
    // QA files join the traces imported with them (stored before, too), else every stored trace.
    const batch = results.flatMap((r) =>
      r.traceId && (r.status === 'stored' || r.status === 'replaced' || r.status === 'exists')
        ? [r.traceId]
        : [],
    );
    for (const qa of qaFiles)
      results[qa.index] = await joinQaFile(
        this.db,
        qa.input,
        qa.text,
        batch.length ? batch : null,
        this.adopt,
      );
    return results;
  }

  async #importOne(
    input: ImportInput,
    options: ImportOptions,
    step: (p: ImportPhase) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<FileResult | { qaText: string }> {
    const parsed = await readAndParse(input, step, signal);
    if ('status' in parsed || 'qaText' in parsed) return parsed;
    const errorCount = parsed.issues.filter((x) => x.severity === 'error').length;
    const warningCount = parsed.issues.length - errorCount;
    if (!parsed.ok)
      return {
        ...base(input),
        status: 'invalid',
        issues: parsed.issues,
        errorCount,
        warningCount,
        ...(parsed.summary ? { summary: parsed.summary.text } : {}),
      };
    await step('indexing');
    const doc = parsed.doc;
    const graph = buildGraph(doc);
    const stats = traceStats(graph);
    const system = systemOf(doc, input.path);
    const traceId = doc.graph_id;
    const caseRows = caseRowsOf(traceId, system, listCases(graph));
    const meta: TraceMeta = {
      id: traceId,
      file: input.name,
      path: input.path,
      system,
      projectId: typeof doc.project_id === 'string' ? doc.project_id : null,
      createdAt: typeof doc.created_at === 'string' ? doc.created_at : '',
      importedAt: this.now(),
      bytes: input.blob.size,
      stats,
      caseCount: caseRows.length,
      labelledCount: caseRows.filter((c) => c.errorType !== null).length,
      warnings: parsed.issues.slice(0, 50),
      warningCount,
    };
    await step('storing');
    try {
      // The original bytes, verbatim: a later version of the importer can re-read them.
      const original = input.blob.slice(0, input.blob.size, input.blob.type || 'application/json');
      const stored = await storeTrace(
        this.db,
        { meta, blob: original, cases: caseRows, labels: fileLabels(doc) },
        { replace: options.replace === true },
      );
      if (stored.outcome !== 'exists') this.adopt(traceId, graph);
      // A QA file dropped beside the trace it replaces joins the new file too.
      if (stored.qa) await rejoinQa(this.db, traceId, stored.qa, this.adopt);
      return {
        ...base(input),
        status: stored.outcome,
        traceId,
        issues: parsed.issues,
        errorCount,
        warningCount,
        ...(parsed.summary ? { summary: parsed.summary.text } : {}),
        ...(stored.labels ? { labels: stored.labels } : {}),
      };
    } catch (e) {
      return {
        ...base(input),
        status: 'failed',
        traceId,
        issues: parsed.issues,
        errorCount,
        warningCount,
        message: isQuotaError(e) ? QUOTA_MESSAGE : `could not store the trace: ${errorText(e)}`,
      };
    }
  }

  /**
   * Restores the file labels of traces a v1 correction had overwritten (`fileLabelsPending`,
   * set by the database upgrade) from their stored originals. Returns how many were restored.
   */
  async restoreFileLabels(): Promise<number> {
    const pending = (await this.db.traces.toArray()).filter((t) => t.fileLabelsPending);
    let restored = 0;
    for (const meta of pending) {
      const blob = (await this.db.blobs.get(meta.id))?.blob;
      const parsed = blob ? await readStoredTrace(blob, meta.path || meta.file) : null;
      if (!parsed?.ok) continue;
      const caseRows = caseRowsOf(meta.id, meta.system, listCases(buildGraph(parsed.doc)));
      await this.db.transaction('rw', [this.db.traces, this.db.cases, this.db.labels], async () => {
        await this.db.cases.where('traceId').equals(meta.id).delete();
        await this.db.cases.bulkPut(caseRows);
        await replaceFileLabels(
          this.db,
          meta.id,
          fileLabels(parsed.doc),
          new Set(caseRows.map((c) => c.queryId)),
        );
        await this.db.traces.update(meta.id, {
          fileLabelsPending: false,
          caseCount: caseRows.length,
          labelledCount: caseRows.filter((c) => c.errorType !== null).length,
        });
      });
      restored++;
    }
    return restored;
  }
}

/**
 * Reads and parses the file, streamed: the bytes are decoded and cut into records as they
 * arrive, so its whole text never sits beside the document (`parseTraceBlob`). A file the
 * streaming reader gives up on (broken JSON, bad bytes, a repeated key, another layout) is read
 * whole, which words each problem with its exact place.
 */
async function readAndParse(
  input: ImportInput,
  step: (p: ImportPhase) => Promise<void>,
  signal?: AbortSignal,
): Promise<ReturnType<typeof parseTraceText> | FileResult | { qaText: string }> {
  await step('reading');
  await step('parsing');
  const file = input.path || input.name;
  // A run's own document: the same checks, no parse of the bytes it was just written to.
  if (input.document) return checkParsedValue({ value: input.document }, new IssueCollector(file));
  let streamed: ImportResult | null;
  try {
    streamed = await parseTraceBlob(input.blob, { file }, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    return { ...base(input), status: 'failed', message: `could not read the file: ${errorText(e)}` };
  }
  // Not a trace as it streamed (or off the plain layout): read whole, with exact places, where a QA file is recognised.
  return streamed?.ok ? streamed : readWhole(input);
}

/**
 * Reads the file's bytes, decodes them strictly (a bad byte is reported with its offset,
 * never replaced) and parses the text. Its own function so the text is garbage as soon as
 * it is parsed: only the parsed document lives on.
 */
async function readWhole(
  input: ImportInput,
): Promise<ReturnType<typeof parseTraceText> | FileResult | { qaText: string }> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await input.blob.arrayBuffer());
  } catch (e) {
    return { ...base(input), status: 'failed', message: `could not read the file: ${errorText(e)}` };
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) {
    const issue: TraceIssue = {
      severity: 'error',
      code: 'invalid-utf8',
      message: decoded.message,
      file: input.path || input.name,
      line: decoded.line,
    };
    return { ...base(input), status: 'invalid', issues: [issue], errorCount: 1, warningCount: 0 };
  }
  const parsed = parseTraceText(decoded.text, { file: input.path || input.name });
  // A file that is no trace may be a QA file (by its shape): its questions join the traces.
  return !parsed.ok && looksLikeQaFile(decoded.text) ? { qaText: decoded.text } : parsed;
}

function base(input: ImportInput): FileResult {
  return { name: input.name, path: input.path, status: 'failed', issues: [], errorCount: 0, warningCount: 0 };
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
