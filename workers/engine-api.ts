/** The engine worker's API: import, the open traces' analyses, ranked retrieval (`EngineApi`). */
import type { OpSummary } from '../src/core/graph/index.ts';
import type { LabelRecord } from '../src/core/labels/index.ts';
import type {
  LaneLayout,
  LaneLayoutOptions,
  NeighbourhoodDrawing,
  NeighbourhoodDrawingOptions,
} from '../src/core/layout/index.ts';
import type { CacheEntry } from '../src/core/llm/index.ts';
import type {
  DocScope,
  EmbedderInfo,
  EmbeddingSetting,
  IndexInfo,
  SearchMethod,
  ServiceHit,
  ServiceProgress,
} from '../src/core/retrieval/index.ts';
import type { SpanTable } from '../src/core/spans/index.ts';
import type { DiffLine } from '../src/core/text/index.ts';
import type { TraceDocument, TraceIssue } from '../src/core/trace/index.ts';
import type { AgentModelInfo, AgentRunInit, AgentRunRow } from '../src/db/agent-runs.ts';
import type { AdjudicationInput, LabelInput, ReattachReport } from '../src/db/labels.ts';
import type { EvaluationRun } from '../src/db/runs.ts';
import type { LabelRow } from '../src/db/schema.ts';
import type { AgentRunEvent } from './agent-runs.ts';
import type { ModelJudgedVerdict } from './ask-model.ts';
import type {
  CompareProgress,
  CompareResult,
  MemoryComparison,
  QuestionComparison,
  RunComparison,
} from './compare-runs.ts';
import type { EvalProgress, EvalResult, EvaluatedCase } from './evaluation.ts';
import type { MatcherInfo, MatcherProgress } from './matcher.ts';
import type { ModelInfo, ModelPort } from './model-port.ts';
import type { OptimizeEvent, OptimizeRequest, OptimizeRun, OptimizeRunStore } from './optimize-service.ts';
import type {
  ImportedAttributions,
  ReportProgress,
  ReportRequest,
  ReportSource,
  ReportVerdicts,
  StoredReport,
} from './report.ts';
import type { VerdictNames } from './verdict-names.ts';

export type { VarName, VerdictNames } from './verdict-names.ts';
export type {
  CompareProgress,
  CompareResult,
  EvalProgress,
  EvalResult,
  EvaluatedCase,
  ImportedAttributions,
  MemoryComparison,
  ModelJudgedVerdict,
  OptimizeEvent,
  OptimizeRequest,
  OptimizeRun,
  QuestionComparison,
  ReportProgress,
  ReportRequest,
  ReportSource,
  ReportVerdicts,
  RunComparison,
  StoredReport,
};

// ---------- import ----------

/** A case's verdict as the workspace gets it (`caseVerdict`). */
export interface CaseVerdict {
  verdict: EvaluatedCase;
  /** The attributor version of the stored verdict this one replaced ('unversioned': made before versions); null when none was. */
  replaced: string | null;
  /** Why the new verdict could not be stored (it is shown all the same); null when stored or reused. */
  saveError: string | null;
  /** The ops and variables the verdict names, named (empty when its trace cannot be opened): names from the first frame. */
  names: VerdictNames;
}

export interface ImportInput {
  /** The file's bytes (a File or Blob; crosses to the worker by reference). */
  blob: Blob;
  /** File name as shown to people. */
  name: string;
  /** Path inside a picked or dropped folder (`MemTraceBench/mem0/graph-1.json`), or the name. */
  path: string;
  /**
   * The document the bytes were written from, when the caller holds it (a reference-system run):
   * checked as it is, not parsed back from the bytes. It must be what parsing `blob` gives.
   */
  document?: TraceDocument;
}

export type ImportPhase = 'reading' | 'parsing' | 'indexing' | 'storing' | 'done';

export interface ImportProgress {
  fileIndex: number;
  fileCount: number;
  name: string;
  phase: ImportPhase;
  /** Bytes of the files finished so far plus a share of the current one. */
  bytesDone: number;
  bytesTotal: number;
}

/** `questions`: a QA file (not a trace), joined to the traces imported with it, or else to the stored ones. */
export type FileStatus = 'stored' | 'replaced' | 'exists' | 'invalid' | 'failed' | 'cancelled' | 'questions';

export interface FileResult {
  name: string;
  path: string;
  status: FileStatus;
  /** graph_id, when the file parsed. */
  traceId?: string;
  /** Problems with their place (capped); errors make the file `invalid`. */
  issues: TraceIssue[];
  errorCount: number;
  warningCount: number;
  /** Why a file failed to store (quota, …), in words for people. */
  message?: string;
  /** For span formats (OTLP, OpenInference, Langfuse): what the spans became, in one line. */
  summary?: string;
  /** A replaced trace: which of the person's / imported labels stayed attached (by query id). */
  labels?: ReattachReport;
}

export interface ImportOptions {
  /** Replace traces whose graph_id is already stored (otherwise they come back as `exists`). */
  replace?: boolean;
}

export interface ImportApi {
  /**
   * Reads, validates and stores files; each stored trace stays open in the engine. Aborting
   * `signal` stops the import after the current step; nothing half-written is kept.
   */
  importFiles(
    inputs: ImportInput[],
    options: ImportOptions,
    onProgress?: (p: ImportProgress) => void,
    signal?: AbortSignal,
  ): Promise<FileResult[]>;
  /** Restores file labels a v1 correction overwrote (traces marked by the database upgrade); returns how many traces. */
  restoreFileLabels(): Promise<number>;
}

// ---------- analysis ----------

export interface VarView {
  id: string;
  fullName: string;
  name: string;
  version: number;
  className: string | null;
  category: string;
  createdAt: string;
  comment: string | null;
  /** The stored value, verbatim. */
  value: string;
  /** Human text of the value: unquoted string, or pretty JSON of a parsed JSON / Python literal. */
  pretty: string;
  /** Whether `pretty` differs from `value`. */
  hasPretty: boolean;
  versionCount: number;
  sentinel: boolean;
}

/** An op as every view names it (core/graph `opSummary`). */
export type { OpSummary };

/** Ops of a trace matching a search (`EngineApi.findOps`): the first few, in execution order, and how many matched. */
export interface OpMatches {
  ops: OpSummary[];
  total: number;
}

export interface OpDetail extends OpSummary {
  metadata: string;
  inputs: VarView[];
  intermediates: VarView[];
  outputs: VarView[];
  previous: OpSummary | null;
  next: OpSummary | null;
  /** Line diffs of the units this op mutated: each output that is a later version of a unit, against the version before it. */
  changes: VersionDiff[];
}

export interface VersionEntry {
  id: string;
  version: number;
  createdAt: string;
  chars: number;
}

export interface VarDetail {
  variable: VarView;
  metadata: string;
  producers: OpSummary[];
  consumers: OpSummary[];
  versions: VersionEntry[];
}

export type { OptimizeState } from '../src/systems/optimize/types.ts';
export type { SpanTable };

/** A case whose path (core/cases `casePath`) passes through an op (`AnalysisApi.casesThroughOp`). */
export interface CaseThrough {
  queryId: string;
  question: string;
  failed: boolean;
}

/** Where the app serves the evidence-flow matcher's word vectors, relative to its base URL (emitted by the build). */
export { NO_LABELS, PEOPLE_LABELS, type ReportLabels } from './report-labels.ts';
export type { DiffLine };

export const WORD_VECTORS_PATH = 'vectors/sg100d-100k.bin';
export type { MatcherInfo, MatcherProgress } from './matcher.ts';

export interface VersionDiff {
  from: string;
  to: string;
  lines: DiffLine[];
  /** True when the diff was cut short (very different long values). */
  truncated: boolean;
}

/** A case as the workspace shows it: its evidence messages and the ops that caused its answer. */
export interface CaseOverview {
  evidence: VarView[];
  /**
   * The causes of the judged answer in execution order, then the judge (core `casePath`):
   * the last `PATH_SHOWN` of them when there are more (the labelled op is kept in place).
   */
  path: OpSummary[];
  /** Ops on the whole path. */
  pathTotal: number;
  pathTruncated: boolean;
  /** The op that wrote the judged answer. */
  answerOp: OpSummary | null;
  labelOp: OpSummary | null;
}

/** Most ops of a case path sent to the page (the ones nearest the answer). */
export const PATH_SHOWN = 200;

/** A value search across stored traces (`AnalysisApi.search`). */
export interface SearchQuery {
  q: string;
  /** The query is a regular expression over whole values (default: words and word beginnings). */
  regex?: boolean;
  /** Stored traces to search (default: all of them). */
  traceIds?: string[];
  /** Most matching variables per trace (default 200). */
  limit?: number;
}

/** One matching version of a memory unit. */
export interface SearchVersion {
  varId: string;
  version: number;
  snippet: string;
  /** Match position inside the snippet (-1 when no exact place is known). */
  at: number;
  length: number;
  /** Every match inside the snippet as [start, length], sorted (whole words or the whole phrase). */
  marks: [number, number][];
}

/** The hits of one logical variable (a memory unit and its versions), one row in the results. */
export interface SearchGroup {
  traceId: string;
  fullName: string;
  category: string;
  /** Versions of the unit in the trace (matching or not). */
  versionCount: number;
  /** The matching versions, in version order. */
  versions: SearchVersion[];
  /** The op that wrote the first matching version (else one that touches it). */
  op: OpSummary | null;
  /** Questions (query full_node_ids) whose evidence is one of the matching versions. */
  evidenceOf: string[];
}

export interface SearchResult {
  groups: SearchGroup[];
  /** Matching variables found (all groups). */
  variables: number;
  /** The per-trace limit stopped the search in at least one trace. */
  truncated: boolean;
  /** Traces searched. */
  traces: number;
  /** Problem with the query (bad regex), in words. */
  error?: string;
  tookMs: number;
}

export interface LaneLayoutProgress {
  phase: 'opening' | 'layout';
  /** Variables and ops of the trace, once it is open. */
  variables?: number;
  operations?: number;
}

/** A mark on the lane view: a failed case's answer op, a labelled op, an attributed op. */
export interface LaneMark {
  opId: string;
  kind: 'answer' | 'label' | 'attribution';
  queryId: string;
  /** What the mark says (the question, the label's type, the attributed type). */
  note: string;
}

/** Seeds of a neighbourhood by id (ops and/or variables). */
export interface NeighbourhoodSeedIds {
  ops?: string[];
  vars?: string[];
}

/**
 * The layered neighbourhood of a few seeds (core/layout `neighbourhoodDrawing`): the
 * layout plus, per local node, its id (`ids[local]` is an op id when
 * `nb.kind[local] === NODE_OP`, else a full_node_id), label, category and value
 * preview, so the page draws it without the graph. `seeds` are the seeds' local indices.
 */
export type NeighbourhoodData = NeighbourhoodDrawing;

export interface AnalysisApi {
  /**
   * Where the app serves the evidence-flow matcher's word-vector file (`WORD_VECTORS_PATH` under
   * the app's base). `body`: the file as the page downloads it (transferred), read instead of
   * fetching it again — the page's thread downloads while the worker is still starting up.
   */
  setWordVectors(url: string, body?: ReadableStream<Uint8Array>): void;
  /**
   * Loads the matcher's word vectors once per worker, with progress (bytes); without them
   * (no file, a failed fetch) attribution matches one layer down and `note` says why.
   */
  loadMatcher(onProgress?: (p: MatcherProgress) => void): Promise<MatcherInfo>;
  /**
   * Readies the first attribution of these traces in the background (vectors, the trace opened,
   * its messages index, its judge's fit): the case opened next gets its verdict sooner.
   */
  prepareAttribution(traceIds: string[]): Promise<void>;
  /** The case's evidence and the ops that caused its answer (core `casePath`). */
  caseOverview(traceId: string, queryId: string, signal?: AbortSignal): Promise<CaseOverview>;
  opDetail(traceId: string, opId: string, signal?: AbortSignal): Promise<OpDetail | null>;
  /** Names of some ops of a trace (null for an id the trace does not have), in the order asked. */
  describeOps(traceId: string, opIds: string[], signal?: AbortSignal): Promise<(OpSummary | null)[]>;
  /**
   * Every op of the trace whose name, kind, comment, session, step ("step 12") or id holds
   * every word of `query` (all ops for an empty one): the first `limit`, in execution order.
   */
  findOps(traceId: string, query: string, limit?: number, signal?: AbortSignal): Promise<OpMatches>;
  varDetail(traceId: string, fullNodeId: string, signal?: AbortSignal): Promise<VarDetail | null>;
  diffVersions(traceId: string, from: string, to: string, signal?: AbortSignal): Promise<VersionDiff | null>;
  /**
   * Searches variable values across stored traces, grouped by memory unit. An aborted
   * `signal` (a newer search) stops it before its next trace.
   */
  search(query: SearchQuery, signal?: AbortSignal): Promise<SearchResult>;
  /** Marks for the lane view: failed cases' answer ops, labelled ops, attributed ops. */
  laneMarks(traceId: string): Promise<LaneMark[]>;
  /**
   * The whole-graph lane layout (typed arrays transferred), reporting its phases: opening
   * the trace (read and parse, when it is not open yet), then laying it out.
   */
  laneLayout(
    traceId: string,
    options?: LaneLayoutOptions,
    onProgress?: (p: LaneLayoutProgress) => void,
    signal?: AbortSignal,
  ): Promise<LaneLayout>;
  /** The head of a variable's value as one line (hover tooltips), '' when unknown. */
  valuePreview(traceId: string, fullNodeId: string, chars?: number): Promise<string>;
  /** The layered neighbourhood of some ops / variables (unknown ids are skipped). */
  neighbourhood(
    traceId: string,
    seeds: NeighbourhoodSeedIds,
    options?: NeighbourhoodDrawingOptions,
    signal?: AbortSignal,
  ): Promise<NeighbourhoodData>;
  /** Drops a trace's open engine (after deletion). */
  forget(traceId: string): void;
  /**
   * The span tree / waterfall rows of a span-based trace (OTLP, OpenInference / Phoenix,
   * Langfuse; core/spans `buildSpanTable`), built once per open trace; no rows for a trace
   * of no spans.
   */
  spanTable(traceId: string, signal?: AbortSignal): Promise<SpanTable>;
  /** The cases (passed ones too) whose path passes through an op, in the trace's case order. */
  casesThroughOp(traceId: string, opId: string, signal?: AbortSignal): Promise<CaseThrough[]>;
  /**
   * Runs the evidence-flow attributor on one case (labelled or not); the result names
   * the op, the type (null: no decisive memory error), the reason and the path.
   */
  attributeCase(traceId: string, queryId: string): Promise<EvaluatedCase>;
  /**
   * The case's evidence-flow verdict for the workspace: the stored one when this attributor
   * made it, else attributed now and stored by the engine (a verdict of an older attributor is
   * re-computed). `fresh`: attribute again regardless.
   */
  caseVerdict(traceId: string, queryId: string, fresh?: boolean): Promise<CaseVerdict>;
  /**
   * Puts the case's uncertain evidence-flow verdict to the page's chat model (rule `stage-judge`:
   * per stage, "does this text state the answer?", 3 votes), called through `port` so keys stay
   * in the page; the result (the model's pick first, still uncertain) is returned, not stored.
   * Aborting `signal` aborts the model's calls.
   */
  askModel(
    traceId: string,
    queryId: string,
    model: ModelInfo,
    port: ModelPort,
    signal?: AbortSignal,
  ): Promise<ModelJudgedVerdict>;
  /**
   * Runs the evidence-flow attributor over every case of these traces that has a label under
   * `labelChoice` (core/labels: `file` — the default, the file's own — `source:<s>` or
   * `annotator:<name>`), scoring against that label, reporting progress after each case.
   * Aborting `signal` stops it after the current case (status `cancelled`, the cases done so
   * far kept).
   */
  evaluate(
    traceIds: string[],
    onProgress: (p: EvalProgress) => void,
    labelChoice?: string,
    signal?: AbortSignal,
  ): Promise<EvalResult>;
  /**
   * `evaluate` as the Evaluation view runs it, stored by the engine: the run row is added
   * (`onStarted` gets it at once), the cases attributed, and the row finished — done or
   * cancelled with its result and summary, or failed with the error (then thrown). Resolves with
   * the finished row.
   */
  runEvaluation(
    parameters: EvaluationRun['parameters'],
    onStarted: (row: EvaluationRun) => void,
    onProgress: (p: EvalProgress) => void,
    signal?: AbortSignal,
  ): Promise<EvaluationRun>;
  /**
   * Runs (or resumes, from its stored checkpoint) the LLM agent of a stored `runs` row of
   * kind `agent` (src/db/agent-runs.ts): checkpoints and progress are written to the row
   * after every step, events are reported as they happen, and the row is finished as
   * done, cancelled or failed. The model stays in the page: the worker calls it through
   * `port` (so keys never leave the page). Aborting `signal` stops the run and its model call
   * (the row becomes `cancelled`). Resolves with the final row.
   */
  runAgent(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
    signal?: AbortSignal,
  ): Promise<AgentRunRow>;
  /**
   * The error report (core/report) over the failed cases of the chosen traces (and systems),
   * attributed by evidence-flow — the verdicts this attributor already stored are reused, only
   * cases without one are attributed (and stored) — or read from an imported attribution file;
   * the request's label source decides which labels stand for verdicts. Stored as a `runs` row
   * of kind `report`. Resolves null when `signal` aborts first (no report is stored).
   */
  buildReport(
    request: ReportRequest,
    onProgress: (p: ReportProgress) => void,
    signal?: AbortSignal,
  ): Promise<StoredReport | null>;
  /** Reads an attribution file (the paper's `{results}`, `memtrace attribute --json`, bench results) into a stored run; records are matched to stored traces. */
  importAttributions(blob: Blob, name: string): Promise<ImportedAttributions>;
  /** Writes a stored report's narrative with the page's chat model (called through `port`). */
  narrateReport(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onBatch: (done: number, total: number) => void,
  ): Promise<StoredReport>;
  /**
   * Compares two stored traces of one conversation (core/compare `compareRuns`): questions
   * paired by identity, outcome flips, first divergence, memory at the last question.
   * Progress after questions; aborting `signal` stops it (`cancelled`).
   */
  compareTraces(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
    signal?: AbortSignal,
  ): Promise<CompareResult>;
  /** The memory at one question's time in both traces (a query id of either side). */
  compareMemory(
    traceA: string,
    traceB: string,
    queryA: string | null,
    queryB: string | null,
  ): Promise<MemoryComparison>;
}

/** Ranked retrieval over one open trace (BM25 in the engine; vectors from the embedder worker). */
export interface RankedApi {
  /** Connects the embedder worker (a port the page made; the other end went to `EmbedderApi.connect`). */
  connectEmbedder(port: MessagePort): void;
  /** Builds (or loads from storage) the trace's index of a scope with the embedder in use. */
  buildIndex(
    traceId: string,
    scope: DocScope,
    onProgress?: (p: ServiceProgress) => void,
    signal?: AbortSignal,
  ): Promise<IndexInfo>;
  /** The best `k` documents of the index built last (`bm25`, `dense` or `hybrid`). */
  rankedSearch(
    traceId: string,
    query: string,
    options?: { method?: SearchMethod; k?: number },
    signal?: AbortSignal,
  ): Promise<ServiceHit[]>;
}

/**
 * Label writes: the engine is the one writer of `labels` (src/db/labels.ts does the writing);
 * the page reads them, and its views follow them with a live query.
 */
export interface LabelsApi {
  /** Stores a label of a stored case (a person's, an agent's accepted / corrected); refused when its op cannot cause its type. */
  saveLabel(input: LabelInput): Promise<LabelRow>;
  /** Stores an adjudicated final label of a case. */
  saveAdjudication(input: AdjudicationInput): Promise<LabelRow>;
  /** Deletes a person's or an imported label (kept for undo). */
  deleteLabel(id: number): Promise<void>;
  /** Undoes a deletion. */
  restoreLabel(id: number): Promise<void>;
  /** Stores labels of an annotations file a person chose to keep, as imported records; returns how many. */
  storeImportedLabels(labels: LabelRecord[], file: string): Promise<number>;
}

/**
 * The page's other writes, made here so the engine is the one writer of the database (the
 * systems worker's traces and optimisation runs aside).
 */
export interface StorageApi {
  /** Deletes a stored trace and everything stored for it, and drops its open engine. */
  deleteTrace(traceId: string): Promise<void>;
  /** Stores a new agent run (status `running`); returns its id (`runAgent` then runs it). */
  addAgentRun(init: AgentRunInit): Promise<number>;
  /** Opens a new segment of an interrupted or failed agent run (optionally with another model). */
  reopenAgentRun(id: number, model?: AgentModelInfo): Promise<number>;
  /** Stores a small setting (annotator name, annotation queue, demo offered). */
  setSetting(key: string, value: unknown): Promise<void>;
  /** The LLM response cache (its own database, `memtrace-llm-cache`): the entry of a request's key. */
  llmCacheGet(key: string): Promise<CacheEntry | undefined>;
  /** Stores a response under its request's key. */
  llmCacheSet(key: string, entry: CacheEntry): Promise<void>;
  /** How many responses the cache holds. */
  llmCacheSize(): Promise<number>;
  /** Empties the cache. */
  llmCacheClear(): Promise<void>;
  /**
   * Serves the systems worker on `port` (the page connects the two once, `SystemsApi.connectEngine`):
   * it writes nothing itself, the engine stores its runs' traces and optimisation runs.
   */
  connectSystems(port: MessagePort): void;
}

/**
 * What the engine serves the systems worker on their port: a run's trace goes through the
 * engine's import (its document handed over, checked and built into the graph the engine keeps
 * open; never written out and parsed back), and the optimisation loop's runs are kept.
 */
export interface SystemsStoreApi extends Pick<ImportApi, 'importFiles'>, OptimizeRunStore {}

/** The engine worker: one engine per open trace, everything asked of a trace, and the database's writes. */
export interface EngineApi extends ImportApi, AnalysisApi, RankedApi, LabelsApi, StorageApi {}

export type {
  DocScope,
  EmbedderInfo,
  EmbeddingSetting,
  IndexInfo,
  SearchMethod,
  ServiceHit,
  ServiceProgress,
};
