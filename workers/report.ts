/**
 * The error report inside the engine worker: failed cases of stored traces, attributed
 * by evidence-flow or taken from an imported attribution file (the paper's `{results}`,
 * stored as a `runs` row of kind `imported-attributions`), read into report cases and
 * aggregated (core/report). A report takes a selection — traces, their systems, the label
 * source — and reuses the verdicts the engine holds from this attributor (stored one-case and
 * evaluation runs), attributing only the cases without one (and storing those verdicts). The
 * optional narrative runs here too, with the page's chat model behind a port (keys stay in
 * the page). Progress per case; aborting the build's signal stops it after the current case
 * (no report is stored).
 */

import { ATTRIBUTOR_VERSION } from '../src/core/attribution/index.ts';
import { listCases, type TraceCase } from '../src/core/cases/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import { caseKey, isLabelChoice, type LabelRecord, labelsFor } from '../src/core/labels/index.ts';
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
import { latestOtherLabels, listLabels } from '../src/db/labels.ts';
import { type EvaluatedCase, heldVerdicts, saveCaseRuns } from '../src/db/runs.ts';
import type { MemtraceDb, RunRow } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';
import { NO_LABELS, PEOPLE_LABELS, type ReportLabels } from './report-labels.ts';

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
  /** Only the traces of these memory systems (a trace's `system`; `unknown` when it has none); absent or empty: all. */
  systems?: string[];
  /** Which labels stand for a case's verdict (default `people`); the imported file's records ignore it. */
  labels?: ReportLabels;
}

export interface ReportProgress {
  done: number;
  total: number;
  traceId: string;
  /** Of the cases done: verdicts the engine held (stored by this attributor), taken as they were. */
  held: number;
  /** Of the cases done: attributed now (no current verdict was stored), and stored for the next time. */
  attributed: number;
}

/** Where the report's verdicts came from. */
export interface ReportVerdicts {
  /** Stored verdicts of this attributor, reused. */
  held: number;
  /** Attributed while the report was built. */
  attributed: number;
  /** A label stood for the verdict (the request's label source). */
  labels: number;
  /** Read from an imported attribution file. */
  imported: number;
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
  /** Where its verdicts came from (absent in reports stored before verdicts were reused). */
  verdicts?: ReportVerdicts;
}

/** The verdict a label people gave stands for in the report (instead of the attributor's). */
function labelVerdict(l: LabelRecord): AttributedInput {
  return {
    error_type: isErrorType(l.errorType) ? l.errorType : null,
    op_id: l.opId,
    reason: l.reason,
    method: `label:${l.source}`,
  };
}

/** An evidence-flow verdict (stored or made now) as the report reads it. */
function storedVerdict(e: EvaluatedCase): AttributedInput {
  return {
    error_type: isErrorType(e.predicted_type) ? e.predicted_type : null,
    op_id: e.predicted_op,
    reason: e.reason,
    method: e.method,
    grounds: e.grounds,
  };
}

/** One case of the report and its verdict when known before attributing (an imported record, a label). */
interface Job {
  c: TraceCase;
  a: AttributedInput | null;
  from: 'imported' | 'labels' | null;
}

/** Verdicts attributed while a report is built are stored in batches of this many (kept when it is cancelled). */
const SAVE_EVERY = 50;

/** What one build works through: the chosen traces with cases, and the verdicts already known. */
interface Plan {
  work: { traceId: string; total: number; system: string | null }[];
  total: number;
  imported: ImportedAttributions | undefined;
  held: Map<string, EvaluatedCase>;
  labels: ReportLabels;
}

/** Attributes one case of a stored trace as the case workspace does (the engine's `attributeCase`). */
export type AttributeCase = (traceId: string, queryId: string) => Promise<EvaluatedCase>;

export class ReportRunner {
  #running = false;
  /** Narrative inputs of the last report (they need the graphs, which stay here). */
  #narrativeCases: NarrativeCase[] = [];

  constructor(
    private readonly db: MemtraceDb,
    private readonly open: (traceId: string) => Promise<TraceGraph>,
    private readonly attribute: AttributeCase,
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

  /**
   * Builds and stores the report over the chosen traces and systems; null when `signal` aborts
   * first (no report stored; the verdicts attributed so far are kept, so the next build reuses them).
   * Evidence-flow verdicts the engine holds from this attributor are taken as stored; only cases
   * without one are attributed.
   */
  async build(
    request: ReportRequest,
    onProgress: (p: ReportProgress) => void,
    signal?: AbortSignal,
  ): Promise<StoredReport | null> {
    if (this.#running) throw new Error('a report is already being built');
    this.#running = true;
    try {
      const plan = await this.#plan(request);
      const tally: ReportVerdicts = { held: 0, attributed: 0, labels: 0, imported: 0 };
      const progress = (done: number, traceId: string) =>
        onProgress({ done, total: plan.total, traceId, held: tally.held, attributed: tally.attributed });
      const made: EvaluatedCase[] = [];
      const cases: ReportCase[] = [];
      const narrative: NarrativeCase[] = [];
      progress(0, '');
      for (const { traceId, system } of plan.work) {
        const g = await this.open(traceId);
        for (const j of await this.#jobs(traceId, g, plan)) {
          await yieldToMessages();
          if (signal?.aborted) return await this.#keep(made, null);
          const a = j.a ?? (await this.#verdict(traceId, j.c, plan, tally, made));
          if (j.from) tally[j.from]++;
          const rc = reportCase(g, j.c, a, { system });
          cases.push(rc);
          narrative.push(narrativeCase(g, j.c, rc));
          if (made.length >= SAVE_EVERY) await this.#keep(made, null);
          progress(cases.length, traceId);
        }
      }
      await this.#keep(made, null);
      if (signal?.aborted) return null;
      this.#narrativeCases = narrative;
      return await this.#store(request, cases, tally);
    } finally {
      this.#running = false;
    }
  }

  /** The chosen traces (by system too) with the number of cases each adds, and the verdicts already known. */
  async #plan(request: ReportRequest): Promise<Plan> {
    const imported =
      request.source.kind === 'imported'
        ? ((await this.db.runs.get(request.source.runId)) as ImportedAttributions | undefined)
        : undefined;
    if (request.source.kind === 'imported' && !imported)
      throw new Error('the imported attribution file is no longer stored');
    const systems = new Set(request.systems ?? []);
    const work: Plan['work'] = [];
    for (const traceId of request.traceIds) {
      const system = (await this.db.traces.get(traceId))?.system ?? null;
      if (systems.size > 0 && !systems.has(system ?? 'unknown')) continue;
      const n = imported
        ? imported.records.filter((r) => r.trace_id === traceId).length
        : await this.#evidenceCaseCount(traceId);
      if (n > 0) work.push({ traceId, total: n, system });
    }
    const held = imported
      ? new Map()
      : await heldVerdicts(
          this.db,
          work.map((w) => w.traceId),
        );
    const total = work.reduce((s, w) => s + w.total, 0);
    return { work, total, imported, held, labels: request.labels || PEOPLE_LABELS };
  }

  /** A case's evidence-flow verdict: the one the engine holds from this attributor, else attributed now. */
  async #verdict(
    traceId: string,
    c: TraceCase,
    plan: Plan,
    tally: ReportVerdicts,
    made: EvaluatedCase[],
  ): Promise<AttributedInput> {
    const held = plan.held.get(caseKey({ graphId: traceId, queryId: c.queryId }));
    if (held) {
      tally.held++;
      return storedVerdict(held);
    }
    const e = await this.attribute(traceId, c.queryId);
    made.push(e);
    tally.attributed++;
    return storedVerdict(e);
  }

  /** Stores the verdicts attributed so far as one-case runs (as the workspace's), then empties the list. */
  async #keep<T>(made: EvaluatedCase[], value: T): Promise<T> {
    if (made.length > 0) await saveCaseRuns(this.db, made.splice(0));
    return value;
  }

  async #store(request: ReportRequest, cases: ReportCase[], verdicts: ReportVerdicts): Promise<StoredReport> {
    const row: StoredReport = {
      traceId: REPORT_RUNS,
      queryId: '',
      kind: 'report',
      method: request.source.kind === 'imported' ? 'memtrace-file' : 'evidence',
      status: 'done',
      createdAt: Date.now(),
      parameters: request,
      attributorVersion: request.source.kind === 'imported' ? null : ATTRIBUTOR_VERSION,
      verdicts,
      result: buildReport(cases, { generatedAt: new Date().toISOString() }),
    };
    row.id = (await this.db.runs.add(row)) as number;
    return row;
  }

  /**
   * A trace's cases in the report and their verdicts when known before attributing: an imported
   * file's, else the label the request's label source gives (`people`: the newest label besides
   * the file's, as the Cases list shows it); null: evidence-flow's verdict (held or made now).
   * Evidence-flow reports the failed cases, the file's labelled ones and those people labelled.
   */
  async #jobs(traceId: string, g: TraceGraph, plan: Plan): Promise<Job[]> {
    const all = listCases(g, { includePassed: true });
    const { imported } = plan;
    if (imported)
      return imported.records
        .filter((r) => r.trace_id === traceId)
        .map((r) => ({ c: all.find((x) => x.queryId === r.query_id)!, a: r, from: 'imported' as const }))
        .filter((j) => j.c);
    const people = await latestOtherLabels(this.db, [traceId]);
    const chosen = await this.#labels(traceId, plan.labels, people);
    const key = (c: TraceCase) => caseKey({ graphId: traceId, queryId: c.queryId });
    return all
      .filter((c) => c.failed || c.label || people.has(key(c)))
      .map((c) => {
        const l = chosen.get(key(c));
        return l ? { c, a: labelVerdict(l), from: 'labels' as const } : { c, a: null, from: null };
      });
  }

  /** Each case's label under the label source, by `caseKey`. */
  async #labels(
    traceId: string,
    labels: ReportLabels,
    people: Map<string, LabelRecord>,
  ): Promise<Map<string, LabelRecord>> {
    if (labels === PEOPLE_LABELS) return people;
    if (labels === NO_LABELS) return new Map();
    if (!isLabelChoice(labels)) throw new Error(`unknown label source: ${labels}`);
    return labelsFor(await listLabels(this.db, [traceId]), labels);
  }

  /** How many cases an evidence-flow report of a stored trace covers (as `#jobs` picks them). */
  async #evidenceCaseCount(traceId: string): Promise<number> {
    const people = await latestOtherLabels(this.db, [traceId]);
    const rows = await this.db.cases.where('traceId').equals(traceId).toArray();
    return rows.filter(
      (r) => r.failed || r.errorType || people.has(caseKey({ graphId: traceId, queryId: r.queryId })),
    ).length;
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
