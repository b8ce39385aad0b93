/**
 * The error report inside the engine worker: failed cases of stored traces, attributed
 * by evidence-flow or taken from an imported attribution file (the paper's `{results}`,
 * stored as a `runs` row of kind `imported-attributions`), read into report cases and
 * aggregated (core/report). The optional narrative runs here too, with the page's chat
 * model behind a port (keys stay in the page). Progress per case; aborting the build's
 * signal stops it after the current case (nothing is stored).
 */

import { ATTRIBUTOR_VERSION } from '../src/core/attribution/index.ts';
import { listCases, type TraceCase } from '../src/core/cases/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import { caseKey } from '../src/core/labels/index.ts';
import {
  type AttributedInput,
  type AttributionRecord,
  buildReport,
  type ErrorReport,
  type GraphKey,
  matchRecords,
  type NarrativeCase,
  narrativeCase,
  parseAttributionFile,
  type ReportCase,
  reportCase,
  writeNarrative,
} from '../src/core/report/index.ts';
import { isErrorType } from '../src/core/trace/index.ts';
import { latestOtherLabels } from '../src/db/labels.ts';
import type { LabelRow, MemtraceDb, RunRow } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';
import { attributeOne } from './evaluation.ts';
import type { Matching } from './matcher.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';

/** traceId of runs that span traces: imported attribution files and reports. */
const IMPORTED_RUNS = '*imported';
const REPORT_RUNS = '*report';

export interface ImportedAttributions extends RunRow {
  kind: 'imported-attributions';
  /** The file name as picked. */
  file: string;
  /** Records matched to stored traces. */
  records: (AttributionRecord & { trace_id: string })[];
  unmatched: number;
}

export type ReportSource = { kind: 'evidence' } | { kind: 'imported'; runId: number };

export interface ReportRequest {
  traceIds: string[];
  source: ReportSource;
}

export interface ReportProgress {
  done: number;
  total: number;
  traceId: string;
}

export interface StoredReport extends RunRow {
  kind: 'report';
  parameters: ReportRequest;
  result: ErrorReport;
  /**
   * The evidence-flow attributor that made its verdicts (`ATTRIBUTOR_VERSION`); null for an
   * imported file's verdicts and for reports stored before versions (database upgrade 4).
   */
  attributorVersion: string | null;
}

/** The verdict a label people gave stands for in the report (instead of the attributor's). */
function labelVerdict(l: LabelRow): AttributedInput {
  return {
    error_type: isErrorType(l.errorType) ? l.errorType : null,
    op_id: l.opId,
    reason: l.reason,
    method: `label:${l.source}`,
  };
}

export class ReportRunner {
  #running = false;
  /** Narrative inputs of the last report (they need the graphs, which stay here). */
  #narrativeCases: NarrativeCase[] = [];

  constructor(
    private readonly db: MemtraceDb,
    private readonly open: (traceId: string) => Promise<TraceGraph>,
    private readonly matching?: Matching,
  ) {}

  /** Reads an attribution file and keeps the records that match stored traces, as a run row. */
  async importAttributions(blob: Blob, name: string): Promise<ImportedAttributions> {
    const records = parseAttributionFile(await blob.text(), name);
    const traces = await this.db.traces.toArray();
    const keys: GraphKey[] = [];
    for (const t of traces) {
      const rows = await this.db.cases.where('traceId').equals(t.id).toArray();
      keys.push({
        path: t.path || t.file,
        graphId: t.id,
        benchName: t.file,
        queryIds: new Set(rows.map((r) => r.queryId)),
      });
    }
    const matched: ImportedAttributions['records'] = [];
    let unmatched = 0;
    for (const r of records) {
      try {
        const [i] = matchRecords([r], keys, name);
        matched.push({ ...r, trace_id: keys[i].graphId });
      } catch {
        unmatched++;
      }
    }
    const row: ImportedAttributions = {
      traceId: IMPORTED_RUNS,
      queryId: '',
      kind: 'imported-attributions',
      method: 'memtrace-file',
      status: 'done',
      createdAt: Date.now(),
      file: name,
      records: matched,
      unmatched,
    };
    row.id = (await this.db.runs.add(row)) as number;
    return row;
  }

  /** Builds and stores the report; null when `signal` aborts first (nothing stored). */
  async build(
    request: ReportRequest,
    onProgress: (p: ReportProgress) => void,
    signal?: AbortSignal,
  ): Promise<StoredReport | null> {
    if (this.#running) throw new Error('a report is already being built');
    this.#running = true;
    try {
      const imported =
        request.source.kind === 'imported'
          ? ((await this.db.runs.get(request.source.runId)) as ImportedAttributions | undefined)
          : undefined;
      if (request.source.kind === 'imported' && !imported)
        throw new Error('the imported attribution file is no longer stored');
      const work: { traceId: string; total: number }[] = [];
      for (const traceId of request.traceIds) {
        const n = imported
          ? imported.records.filter((r) => r.trace_id === traceId).length
          : await this.#evidenceCaseCount(traceId);
        if (n > 0) work.push({ traceId, total: n });
      }
      const total = work.reduce((s, w) => s + w.total, 0);
      const cases: ReportCase[] = [];
      const narrative: NarrativeCase[] = [];
      onProgress({ done: 0, total, traceId: '' });
      for (const { traceId } of work) {
        const g = await this.open(traceId);
        const meta = await this.db.traces.get(traceId);
        const jobs = await this.#jobs(traceId, g, imported);
        for (const j of jobs) {
          await yieldToMessages();
          if (signal?.aborted) return null;
          const a = j.a ?? (await this.#attribute(traceId, g, j.c, meta?.system ?? null));
          const rc = reportCase(g, j.c, a, { system: meta?.system ?? null });
          cases.push(rc);
          narrative.push(narrativeCase(g, j.c, rc));
          onProgress({ done: cases.length, total, traceId });
        }
      }
      if (signal?.aborted) return null;
      this.#narrativeCases = narrative;
      const row: StoredReport = {
        traceId: REPORT_RUNS,
        queryId: '',
        kind: 'report',
        method: request.source.kind === 'imported' ? 'memtrace-file' : 'evidence',
        status: 'done',
        createdAt: Date.now(),
        parameters: request,
        attributorVersion: request.source.kind === 'imported' ? null : ATTRIBUTOR_VERSION,
        result: buildReport(cases, { generatedAt: new Date().toISOString() }),
      };
      row.id = (await this.db.runs.add(row)) as number;
      return row;
    } finally {
      this.#running = false;
    }
  }

  /**
   * A trace's cases in the report and their verdicts when already known: an imported file's,
   * else the newest label people gave (a person's, a correction, the queue, an imported
   * annotations file, adjudicated — as the Cases list shows it), null: attributed by evidence-flow.
   * Evidence-flow reports the failed cases, the file's labelled ones and those people labelled.
   */
  async #jobs(
    traceId: string,
    g: TraceGraph,
    imported: ImportedAttributions | undefined,
  ): Promise<{ c: TraceCase; a: AttributedInput | null }[]> {
    const all = listCases(g, { includePassed: true });
    if (imported)
      return imported.records
        .filter((r) => r.trace_id === traceId)
        .map((r) => ({ c: all.find((x) => x.queryId === r.query_id)!, a: r }))
        .filter((j) => j.c);
    const people = await latestOtherLabels(this.db, [traceId]);
    return all
      .map((c) => ({ c, l: people.get(caseKey({ graphId: traceId, queryId: c.queryId })) }))
      .filter(({ c, l }) => c.failed || c.label || l)
      .map(({ c, l }) => ({ c, a: l ? labelVerdict(l) : null }));
  }

  /** How many cases an evidence-flow report of a stored trace covers (as `#jobs` picks them). */
  async #evidenceCaseCount(traceId: string): Promise<number> {
    const people = await latestOtherLabels(this.db, [traceId]);
    const rows = await this.db.cases.where('traceId').equals(traceId).toArray();
    return rows.filter(
      (r) => r.failed || r.errorType || people.has(caseKey({ graphId: traceId, queryId: r.queryId })),
    ).length;
  }

  /** Evidence-flow's verdict of one case, as the report reads it. */
  async #attribute(
    traceId: string,
    g: TraceGraph,
    c: TraceCase,
    system: string | null,
  ): Promise<AttributedInput> {
    const e = await attributeOne(traceId, g, c, system, null, this.matching);
    return {
      error_type: isErrorType(e.predicted_type) ? e.predicted_type : null,
      op_id: e.predicted_op,
      reason: e.reason,
      method: e.method,
      grounds: e.grounds,
    };
  }

  /** Writes the narrative of a stored report with the page's model (after `build` in this worker). */
  async narrate(
    runId: number,
    info: ModelInfo,
    port: ModelPort,
    onBatch: (done: number, total: number) => void,
  ): Promise<StoredReport> {
    const row = (await this.db.runs.get(runId)) as StoredReport | undefined;
    if (!row) throw new Error(`no report ${runId}`);
    if (this.#narrativeCases.length !== row.result.cases)
      throw new Error('build the report again in this session before writing its narrative');
    row.result.narrative = await writeNarrative(this.#narrativeCases, {
      model: new PortChatModel(info, port),
      onBatch: (d, t) => onBatch(d, t),
    });
    await this.db.runs.put(row);
    return row;
  }
}
