/**
 * The trace engine (the engine worker's service): imports files — each parsed and validated
 * once — and keeps the graphs it built open, one `TraceEngine` per open trace (the few most
 * recent; a trace not open is read from the database once). Everything about a trace is
 * answered here: the views' questions, the words search, ranked retrieval (vectors come from
 * the embedder worker over a port), attribution, evaluation, reports, comparisons. Requests
 * take an `AbortSignal` (the page aborts the older of two requests of one view).
 */
import * as Comlink from 'comlink';
import { summarize } from '../src/core/bench/index.ts';
import { answerOpOf } from '../src/core/cases/index.ts';
import { buildGraph, type TraceGraph } from '../src/core/graph/index.ts';
import type { LabelRecord } from '../src/core/labels/index.ts';
import type { LaneLayout, LaneLayoutOptions, NeighbourhoodDrawingOptions } from '../src/core/layout/index.ts';
import type { CacheEntry } from '../src/core/llm/index.ts';
import type {
  DocScope,
  Embedder,
  IndexInfo,
  IndexStore,
  SearchMethod,
  ServiceHit,
  ServiceProgress,
} from '../src/core/retrieval/index.ts';
import {
  type AgentModelInfo,
  type AgentRunInit,
  type AgentRunRow,
  addAgentRun,
  reopenAgentRun,
} from '../src/db/agent-runs.ts';
import {
  type AdjudicationInput,
  deleteLabel,
  type LabelInput,
  restoreLabel,
  saveAdjudication,
  saveLabel,
  storeImported,
} from '../src/db/labels.ts';
import { IndexedDbCacheStore } from '../src/db/llm-cache.ts';
import { deleteTrace, getStored, listTraces, setSetting } from '../src/db/repo.ts';
import {
  addEvaluationRun,
  type EvaluationRun,
  finishEvaluationRun,
  isCurrentVerdict,
  isStaleVerdict,
  latestCaseRun,
  listEvaluationRuns,
  saveCaseRun,
} from '../src/db/runs.ts';
import type { LabelRow, MemtraceDb } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';
import { AgentRunner } from './agent-runs.ts';
import type {
  AgentRunEvent,
  CaseOverview,
  CaseThrough,
  CaseVerdict,
  EmbedderApi,
  EngineApi,
  FileResult,
  ImportInput,
  ImportOptions,
  ImportProgress,
  LaneLayoutProgress,
  LaneMark,
  ModelInfo,
  ModelPort,
  NeighbourhoodData,
  NeighbourhoodSeedIds,
  OpDetail,
  OpMatches,
  OpSummary,
  SearchQuery,
  SearchResult,
  SpanTable,
  SystemsStoreApi,
  VarDetail,
  VersionDiff,
} from './api.ts';
import { askModel, type ModelJudgedVerdict } from './ask-model.ts';
import { type CompareProgress, type CompareResult, Comparer, type MemoryComparison } from './compare-runs.ts';
import {
  attributeOne,
  type EvalProgress,
  type EvalResult,
  type EvaluatedCase,
  Evaluator,
  findCase,
  prepareAttribution,
} from './evaluation.ts';
import { ImportService } from './import-service.ts';
import { JudgeFits } from './judge-fits.ts';
import { type MatcherInfo, type MatcherProgress, Matching, warmLanguage } from './matcher.ts';
import { optimizeRuns } from './optimize-runs.ts';
import { withQa } from './qa-attach.ts';
import { remoteEmbedder } from './remote-embedder.ts';
import {
  type ImportedAttributions,
  type ReportProgress,
  type ReportRequest,
  ReportRunner,
  type StoredReport,
} from './report.ts';
import { TraceEngine } from './trace-engine.ts';
import { readStoredTrace } from './trace-read.ts';
import { type VerdictNames, verdictNames } from './verdict-names.ts';

/** Traces kept open (each holds its graph and indexes); older ones are dropped and reopened on demand. */
const KEEP_OPEN = 3;

export class EngineService implements EngineApi {
  readonly #open = new Map<string, Promise<TraceEngine>>();
  readonly #importer: ImportService;
  #cache: IndexedDbCacheStore | undefined;
  readonly #evaluator: Evaluator;
  readonly #agents: AgentRunner;
  readonly #reports: ReportRunner;
  readonly #comparer: Comparer;
  readonly #matching: Matching;
  readonly #fits: JudgeFits;
  #embedder: Comlink.Remote<EmbedderApi> | null = null;

  constructor(
    private readonly db: MemtraceDb,
    options: {
      matching?: Matching;
      store?: IndexStore;
      now?: () => number;
      /** `buildStamp` of the running code: traces' judge fits are stored under it (null: not stored). */
      build?: string | null;
    } = {},
  ) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#matching = options.matching ?? new Matching();
    this.#fits = new JudgeFits(db, options.build ?? null);
    this.#importer = new ImportService(db, options.now, (id, graph) => this.#adopt(id, graph));
    const graphOf = async (id: string) => (await this.#get(id)).graph;
    this.#evaluator = new Evaluator(db, graphOf, this.#matching);
    this.#agents = new AgentRunner(db, graphOf, this.#matching);
    this.#reports = new ReportRunner(db, graphOf, (traceId, queryId) => this.attributeCase(traceId, queryId));
    this.#comparer = new Comparer(graphOf);
  }

  readonly #store: IndexStore | undefined;
  readonly #now: () => number;

  // ---------- open traces ----------

  /** The engine of a stored trace, opened from the database when it is not open (most recent few kept). */
  #get(traceId: string): Promise<TraceEngine> {
    let p = this.#open.get(traceId);
    if (p) {
      this.#open.delete(traceId);
      this.#open.set(traceId, p);
      return p;
    }
    p = this.#load(traceId);
    this.#keep(traceId, p);
    p.catch(() => {
      if (this.#open.get(traceId) === p) this.#open.delete(traceId);
    });
    return p;
  }

  #keep(traceId: string, engine: Promise<TraceEngine>): void {
    this.#open.delete(traceId);
    this.#open.set(traceId, engine);
    while (this.#open.size > KEEP_OPEN) this.#open.delete(this.#open.keys().next().value as string);
  }

  /** A trace just imported: its graph becomes the open engine (the file is not parsed again). */
  #adopt(traceId: string, graph: TraceGraph): void {
    this.#keep(traceId, Promise.resolve(withSpanRows(new TraceEngine(traceId, graph, this.#store))));
  }

  async #load(traceId: string): Promise<TraceEngine> {
    const stored = await getStored(this.db, traceId);
    if (!stored) throw new Error(`trace ${traceId} is not stored`);
    const opened = await readStoredTrace(stored.blob, traceId);
    if (!opened.ok) throw new Error(`trace ${traceId} no longer parses: ${opened.issues[0]?.message ?? ''}`);
    // A QA file dropped beside it joins again (its questions are cases of the trace).
    const graph = buildGraph(withQa(opened.doc, stored.qa));
    return withSpanRows(new TraceEngine(traceId, graph, this.#store));
  }

  forget(traceId: string): void {
    this.#open.delete(traceId);
  }

  // ---------- import ----------

  importFiles(
    inputs: ImportInput[],
    options: ImportOptions,
    onProgress?: (p: ImportProgress) => void,
    signal?: AbortSignal,
  ): Promise<FileResult[]> {
    // Each stored file's graph becomes its open engine (`#adopt`): no second parse.
    return this.#importer.importFiles(inputs, options, onProgress, signal);
  }

  restoreFileLabels(): Promise<number> {
    return this.#importer.restoreFileLabels();
  }

  // ---------- one trace's views ----------

  async caseOverview(traceId: string, queryId: string, signal?: AbortSignal): Promise<CaseOverview> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.caseOverview(queryId);
  }

  async opDetail(traceId: string, opId: string, signal?: AbortSignal): Promise<OpDetail | null> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.opDetail(opId);
  }

  async describeOps(traceId: string, opIds: string[], signal?: AbortSignal): Promise<(OpSummary | null)[]> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.describeOps(opIds);
  }

  async findOps(traceId: string, query: string, limit = 100, signal?: AbortSignal): Promise<OpMatches> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.findOps(query, limit);
  }

  async varDetail(traceId: string, fullNodeId: string, signal?: AbortSignal): Promise<VarDetail | null> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.varDetail(fullNodeId);
  }

  async diffVersions(
    traceId: string,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<VersionDiff | null> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.diffVersions(from, to);
  }

  async spanTable(traceId: string, signal?: AbortSignal): Promise<SpanTable> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.spanTable;
  }

  async casesThroughOp(traceId: string, opId: string, signal?: AbortSignal): Promise<CaseThrough[]> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.casesThroughOp(opId);
  }

  async laneLayout(
    traceId: string,
    options: LaneLayoutOptions = {},
    onProgress: (p: LaneLayoutProgress) => void = () => {},
    signal?: AbortSignal,
  ): Promise<LaneLayout> {
    onProgress({ phase: 'opening' });
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    onProgress({
      phase: 'layout',
      variables: engine.graph.varId.length,
      operations: engine.graph.opId.length,
    });
    return engine.laneLayout(options);
  }

  async valuePreview(traceId: string, fullNodeId: string, chars = 160): Promise<string> {
    return (await this.#get(traceId)).valuePreview(fullNodeId, chars);
  }

  async neighbourhood(
    traceId: string,
    seeds: NeighbourhoodSeedIds,
    options: NeighbourhoodDrawingOptions = {},
    signal?: AbortSignal,
  ): Promise<NeighbourhoodData> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.neighbourhood(seeds, options);
  }

  async laneMarks(traceId: string): Promise<LaneMark[]> {
    const engine = await this.#get(traceId);
    const g = engine.graph;
    const marks: LaneMark[] = [];
    for (const c of engine.cases.filter((x) => x.failed)) {
      const o = answerOpOf(g, c);
      if (o >= 0) marks.push({ opId: g.opId[o], kind: 'answer', queryId: c.queryId, note: c.question });
    }
    const rows = await this.db.cases.where('traceId').equals(traceId).toArray();
    for (const r of rows)
      if (r.labelOpId && r.errorType)
        marks.push({ opId: r.labelOpId, kind: 'label', queryId: r.queryId, note: r.errorType });
    // Attributions: each case's newest one-case run, else the newest evaluation's result.
    const attributed = new Map<string, { op: string; type: string | null }>();
    const evaluation = (await listEvaluationRuns(this.db)).find((r) => r.result);
    // A verdict of an older attributor is no mark of this one.
    for (const e of evaluation?.result?.cases ?? [])
      if (e.trace_id === traceId && e.predicted_op && !isStaleVerdict(e))
        attributed.set(e.query_id, { op: e.predicted_op, type: e.predicted_type });
    for (const r of rows) {
      const run = await latestCaseRun(this.db, traceId, r.queryId);
      if (run?.result.predicted_op && !isStaleVerdict(run.result))
        attributed.set(r.queryId, { op: run.result.predicted_op, type: run.result.predicted_type });
    }
    for (const [queryId, a] of attributed)
      marks.push({ opId: a.op, kind: 'attribution', queryId, note: a.type ?? 'no decisive memory error' });
    return marks.filter((m) => g.opIndex.has(m.opId));
  }

  // ---------- search ----------

  /** Words (or regex) search over stored traces; an aborted search stops before its next trace. */
  async search(query: SearchQuery, signal?: AbortSignal): Promise<SearchResult> {
    const t0 = performance.now();
    const q = query.q.trim();
    const limit = query.limit ?? 200;
    const ids = query.traceIds?.length ? query.traceIds : (await listTraces(this.db)).map((t) => t.id);
    const result: SearchResult = { groups: [], variables: 0, truncated: false, traces: 0, tookMs: 0 };
    const done = () => ({ ...result, tookMs: performance.now() - t0 });
    if (!q) return done();
    if (query.regex) {
      try {
        new RegExp(q);
      } catch (e) {
        return { ...done(), error: e instanceof Error ? e.message : String(e) };
      }
    }
    for (const traceId of ids) {
      let engine: TraceEngine;
      try {
        engine = await this.#get(traceId);
      } catch {
        continue; // deleted meanwhile or unreadable: the trace list says so
      }
      signal?.throwIfAborted();
      result.traces++;
      const found = engine.search(q, !!query.regex, limit);
      result.truncated ||= found.truncated;
      result.variables += found.variables;
      result.groups.push(...found.groups);
    }
    return done();
  }

  /** The systems worker's port: its runs' traces are imported (and kept open) here, its optimisation runs kept. */
  connectSystems(port: MessagePort): void {
    const api = {
      importFiles: this.importFiles.bind(this),
      ...optimizeRuns(this.db, this.#now),
    } satisfies SystemsStoreApi;
    Comlink.expose(api, port);
  }

  /** The port of the embedder worker (the page connects the two workers once). */
  connectEmbedder(port: MessagePort): void {
    this.#embedder = Comlink.wrap<EmbedderApi>(port);
  }

  /** The embedder in use, as the engine builds indexes with it (null: BM25 only). */
  #currentEmbedder(): Promise<Embedder | null> {
    return this.#embedder ? remoteEmbedder(this.#embedder) : Promise.resolve(null);
  }

  async buildIndex(
    traceId: string,
    scope: DocScope,
    onProgress?: (p: ServiceProgress) => void,
    signal?: AbortSignal,
  ): Promise<IndexInfo> {
    const engine = await this.#get(traceId);
    signal?.throwIfAborted();
    return engine.retrieval.buildIndex(scope, await this.#currentEmbedder(), { signal, onProgress });
  }

  async rankedSearch(
    traceId: string,
    query: string,
    options: { method?: SearchMethod; k?: number } = {},
    signal?: AbortSignal,
  ): Promise<ServiceHit[]> {
    const engine = await this.#get(traceId);
    return engine.retrieval.search(query, { ...options, embedder: await this.#currentEmbedder(), signal });
  }

  // ---------- attribution, evaluation, reports, comparison ----------

  /** Where the app serves the word-vector file (the page knows its base URL), and its body when the page is downloading it. */
  setWordVectors(url: string, body?: ReadableStream<Uint8Array>): void {
    this.#matching.setSource(url, body);
  }

  #warmed = false;

  /**
   * Loads the matcher's word vectors (once; later calls return at once), with progress, and
   * warms its language tools once — the page calls it as soon as traces are stored, so the
   * first case opened finds both ready.
   */
  async loadMatcher(onProgress?: (p: MatcherProgress) => void): Promise<MatcherInfo> {
    const info = this.#matching.load(onProgress);
    if (!this.#warmed) {
      this.#warmed = true;
      // While the vectors still arrive (the page downloads them); requests waiting run first.
      await yieldToMessages();
      await warmLanguage(yieldToMessages);
    }
    return info;
  }

  /**
   * Readies, in the background, the first attribution of these traces (the Cases list asks for
   * the traces of its first rows): the matcher's vectors and language tools, then each trace
   * opened (at most the few kept open), its messages index and its judge's fit (read back when
   * this build stored it with the trace), which every case of the trace then reuses. Requests
   * that arrive meanwhile run between the steps.
   */
  async prepareAttribution(traceIds: string[]): Promise<void> {
    const ids = [...new Set(traceIds)].slice(0, KEEP_OPEN);
    // The stored files are read from the database while the matcher loads (I/O beside its work).
    const opening = ids.map((id) => this.#get(id).catch(() => null));
    await this.loadMatcher();
    for (const [i, traceId] of ids.entries()) {
      await yieldToMessages();
      const engine = await opening[i];
      if (!engine) continue; // deleted meanwhile or unreadable: the views say so
      await yieldToMessages();
      await this.#judgeFitReady(traceId, engine.graph);
      await prepareAttribution(engine.graph, this.#matching);
    }
  }

  /** The trace's judge fit on its graph: read back when stored by this build, else computed (and stored) once. */
  async #judgeFitReady(traceId: string, g: TraceGraph): Promise<void> {
    const [setup, vectors] = await Promise.all([this.#matching.options(), this.#matching.identity()]);
    await this.#fits.ready(traceId, g, setup, vectors);
  }

  async attributeCase(traceId: string, queryId: string): Promise<EvaluatedCase> {
    const { graph: g } = await this.#get(traceId);
    const c = findCase(g, queryId);
    if (!c) throw new Error(`no question ${queryId} in trace ${traceId}`);
    await this.#judgeFitReady(traceId, g);
    const row = await this.db.cases.get([traceId, queryId]);
    const label = row?.errorType ? { type: row.errorType, op: row.labelOpId } : null;
    return attributeOne(traceId, g, c, row?.system ?? null, label, this.#matching);
  }

  /**
   * A case's evidence-flow verdict as the workspace shows it: the stored one when this
   * attributor made it, else attributed now and stored (this worker writes `runs`). A verdict
   * stored by an older attributor (or before verdicts carried their version or grounds) is
   * re-computed, never shown as current. `fresh`: attribute again regardless ("Run again").
   */
  async caseVerdict(traceId: string, queryId: string, fresh = false): Promise<CaseVerdict> {
    const stored = fresh ? undefined : await latestCaseRun(this.db, traceId, queryId);
    if (stored && isCurrentVerdict(stored.result))
      return {
        verdict: stored.result,
        replaced: null,
        saveError: null,
        names: await this.#names(traceId, stored.result),
      };
    const verdict = await this.attributeCase(traceId, queryId);
    const replaced = stored ? (stored.result.attributor_version ?? 'unversioned') : null;
    const names = await this.#names(traceId, verdict);
    try {
      await saveCaseRun(this.db, verdict);
      return { verdict, replaced, saveError: null, names };
    } catch (e) {
      // Shown all the same; the workspace says it was not kept.
      return { verdict, replaced, saveError: e instanceof Error ? e.message : String(e), names };
    }
  }

  /** What a verdict names, named from its trace (the case page opens it anyway); none when it cannot be opened. */
  async #names(traceId: string, verdict: EvaluatedCase): Promise<VerdictNames> {
    try {
      return verdictNames((await this.#get(traceId)).graph, verdict);
    } catch {
      return { ops: [], variables: [] };
    }
  }

  /**
   * The case attributed again with the page's chat model judging its uncertain verdict (rule
   * `stage-judge`, called through `port`); not stored. Aborting `signal` aborts its calls.
   */
  async askModel(
    traceId: string,
    queryId: string,
    model: ModelInfo,
    port: ModelPort,
    signal?: AbortSignal,
  ): Promise<ModelJudgedVerdict> {
    const { graph: g } = await this.#get(traceId);
    await this.#judgeFitReady(traceId, g);
    return askModel(this.db, traceId, g, queryId, { info: model, port, matching: this.#matching }, signal);
  }

  // ---------- the page's writes (this worker is the database's writer) ----------

  async deleteTrace(traceId: string): Promise<void> {
    await deleteTrace(this.db, traceId);
    this.forget(traceId);
  }

  addAgentRun(init: AgentRunInit): Promise<number> {
    return addAgentRun(this.db, init);
  }

  reopenAgentRun(id: number, model?: AgentModelInfo): Promise<number> {
    return reopenAgentRun(this.db, id, model);
  }

  setSetting(key: string, value: unknown): Promise<void> {
    return setSetting(this.db, key, value);
  }

  /** The LLM response cache's database, opened on first use (the page's model calls fill it through here). */
  #llmCache(): IndexedDbCacheStore {
    this.#cache ??= new IndexedDbCacheStore();
    return this.#cache;
  }

  llmCacheGet(key: string): Promise<CacheEntry | undefined> {
    return this.#llmCache().get(key);
  }

  llmCacheSet(key: string, entry: CacheEntry): Promise<void> {
    return this.#llmCache().set(key, entry);
  }

  llmCacheSize(): Promise<number> {
    return this.#llmCache().size();
  }

  llmCacheClear(): Promise<void> {
    return this.#llmCache().clear();
  }

  saveLabel(input: LabelInput): Promise<LabelRow> {
    return saveLabel(this.db, input);
  }

  saveAdjudication(input: AdjudicationInput): Promise<LabelRow> {
    return saveAdjudication(this.db, input);
  }

  deleteLabel(id: number): Promise<void> {
    return deleteLabel(this.db, id);
  }

  restoreLabel(id: number): Promise<void> {
    return restoreLabel(this.db, id);
  }

  storeImportedLabels(labels: LabelRecord[], file: string): Promise<number> {
    return storeImported(this.db, labels, file);
  }

  evaluate(
    traceIds: string[],
    onProgress: (p: EvalProgress) => void,
    labelChoice?: string,
    signal?: AbortSignal,
  ): Promise<EvalResult> {
    return this.#evaluator.evaluate(traceIds, onProgress, labelChoice, signal);
  }

  async runEvaluation(
    parameters: EvaluationRun['parameters'],
    onStarted: (row: EvaluationRun) => void,
    onProgress: (p: EvalProgress) => void,
    signal?: AbortSignal,
  ): Promise<EvaluationRun> {
    const id = await addEvaluationRun(this.db, parameters);
    void onStarted((await this.db.runs.get(id)) as EvaluationRun);
    try {
      const out = await this.#evaluator.evaluate(
        parameters.traceIds,
        onProgress,
        parameters.labelChoice,
        signal,
      );
      const result = { summary: summarize(out.cases), cases: out.cases, missing: out.missing };
      await finishEvaluationRun(this.db, id, { status: out.status, result, error: null });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      await finishEvaluationRun(this.db, id, { status: 'failed', result: null, error });
      throw e;
    }
    return (await this.db.runs.get(id)) as EvaluationRun;
  }

  runAgent(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
    signal?: AbortSignal,
  ): Promise<AgentRunRow> {
    return this.#agents.run(runId, model, port, onEvent, signal);
  }

  buildReport(
    request: ReportRequest,
    onProgress: (p: ReportProgress) => void,
    signal?: AbortSignal,
  ): Promise<StoredReport | null> {
    return this.#reports.build(request, onProgress, signal);
  }

  importAttributions(blob: Blob, name: string): Promise<ImportedAttributions> {
    return this.#reports.importAttributions(blob, name);
  }

  narrateReport(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onBatch: (done: number, total: number) => void,
  ): Promise<StoredReport> {
    return this.#reports.narrate(runId, model, port, onBatch);
  }

  compareTraces(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
    signal?: AbortSignal,
  ): Promise<CompareResult> {
    return this.#comparer.compare(traceA, traceB, onProgress, signal);
  }

  compareMemory(
    traceA: string,
    traceB: string,
    queryA: string | null,
    queryB: string | null,
  ): Promise<MemoryComparison> {
    return this.#comparer.memoryAt(traceA, traceB, queryA, queryB);
  }
}

/** An engine just opened: a span trace's rows are built now (a few hundred ms for 100k spans), so its span view opens at once. */
function withSpanRows(engine: TraceEngine): TraceEngine {
  void engine.spanTable;
  return engine;
}
