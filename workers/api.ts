/**
 * The typed interfaces at the worker boundary. The UI holds comlink proxies of
 * `ImportApi` and `AnalysisApi`; everything crossing is plain data (typed arrays are
 * transferred). Graph-drawing components (src/app/lanes, src/app/neighbourhood) take
 * `LaneLayout` and `NeighbourhoodData` as their input (see src/app/graph-views.ts).
 */
import type {
  LaneLayout,
  LaneLayoutOptions,
  NeighbourhoodDrawing,
  NeighbourhoodDrawingOptions,
} from '../src/core/layout/index.ts';
import type { ChatCapabilities, ChatRequest, ChatResponse, ProviderKind } from '../src/core/llm/types.ts';
import type { TraceIssue } from '../src/core/trace/issues.ts';
import type { AgentProgress, AgentRunRow } from '../src/db/agent-runs.ts';
import type { ReattachReport } from '../src/db/labels.ts';
import type { SystemName } from '../src/systems/system.ts';
import type { DatasetName } from '../src/systems/types.ts';
import type {
  CompareProgress,
  CompareResult,
  MemoryComparison,
  QuestionComparison,
  RunComparison,
} from './compare-runs.ts';
import type { EvalProgress, EvalResult, EvaluatedCase } from './evaluation.ts';

export type {
  CompareProgress,
  CompareResult,
  EvalProgress,
  EvalResult,
  EvaluatedCase,
  MemoryComparison,
  QuestionComparison,
  RunComparison,
};

// ---------- import ----------

export interface ImportInput {
  /** The file's bytes (a File or Blob; crosses to the worker by reference). */
  blob: Blob;
  /** File name as shown to people. */
  name: string;
  /** Path inside a picked or dropped folder (`MemTraceBench/mem0/graph-1.json`), or the name. */
  path: string;
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

export type FileStatus = 'stored' | 'replaced' | 'exists' | 'invalid' | 'failed' | 'cancelled';

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
  /** A replaced trace: which of the person's / imported labels stayed attached (by query id). */
  labels?: ReattachReport;
}

export interface ImportOptions {
  /** Replace traces whose graph_id is already stored (otherwise they come back as `exists`). */
  replace?: boolean;
}

export interface ImportApi {
  importFiles(
    inputs: ImportInput[],
    options: ImportOptions,
    onProgress: (p: ImportProgress) => void,
  ): Promise<FileResult[]>;
  /** Stops the running import after the current step; nothing half-written is kept. */
  cancel(): void;
  /** Restores file labels a v1 correction overwrote (traces marked by the database upgrade); returns how many traces. */
  restoreFileLabels(): Promise<number>;
}

// ---------- running a reference memory system ----------

export type { DatasetName, SystemName };

/** A data set file as picked by the person (read in the worker; nothing leaves the machine). */
export interface DatasetSource {
  /** The file's bytes (a File or Blob; crosses to the worker by reference). */
  blob: Blob;
  /** File name (names flattened LoCoMo files, `26.json` → `conv-26`, and RealMem personas). */
  name: string;
  /** Which loader reads it; default `auto` (detected from the file's shape). */
  dataset?: DatasetName | 'auto';
}

export interface DatasetConversation {
  id: string;
  sessions: number;
  questions: number;
  speakers: string[];
}

export interface DatasetInfo {
  name: string;
  dataset: DatasetName;
  /** The layout in words (`LoCoMo, canonical list of samples`, …). */
  layout: string;
  /** True when the data set was detected rather than chosen. */
  detected: boolean;
  conversations: DatasetConversation[];
}

export interface SystemRunRequest {
  source: DatasetSource;
  conversationId: string;
  system: SystemName;
  /** Use only the first N sessions (questions asked later are answered after them). */
  maxSessions?: number;
}

export type SystemRunPhase = 'reading' | 'running' | 'exporting' | 'storing' | 'done';

export interface SystemRunProgress {
  phase: SystemRunPhase;
  sessionsDone: number;
  sessionsTotal: number;
  questionsAnswered: number;
  questionsTotal: number;
  /** Answers the offline judge scored correct so far. */
  correct: number;
  /** The last step, in words. */
  label: string;
}

export interface SystemRunResult {
  status: 'done' | 'cancelled' | 'failed';
  /** Always `offline`: deterministic components, no model. */
  mode: 'offline';
  system: SystemName;
  dataset: DatasetName;
  conversationId: string;
  /** What went wrong or what was kept, in words for people. */
  message?: string;
  /** The stored trace (graph_id), when the run finished and was stored. */
  traceId?: string;
  /** File name the trace is stored under. */
  file?: string;
  /** How the import path took it (`stored`, or `invalid` / `failed` with issues). */
  importStatus?: FileStatus;
  sessions: number;
  questions: number;
  correct: number;
  /** Questions judged wrong: the trace's failed cases. */
  failed: number;
  variables: number;
  operations: number;
  edges: number;
  bytes: number;
  warningCount: number;
  seconds: number;
}

/** A run that produced nothing (yet): counts at zero, status `failed` until the run says otherwise. */
export function emptyRunResult(
  fields: Pick<SystemRunResult, 'system' | 'dataset' | 'conversationId'> & { message?: string },
): SystemRunResult {
  return {
    status: 'failed',
    mode: 'offline',
    ...fields,
    sessions: 0,
    questions: 0,
    correct: 0,
    failed: 0,
    variables: 0,
    operations: 0,
    edges: 0,
    bytes: 0,
    warningCount: 0,
    seconds: 0,
  };
}

/**
 * Runs the reference memory systems (src/systems) in a worker, in the offline mode, and
 * stores the execution graph through the import path (as if the exported JSON had been imported).
 */
export interface SystemsApi {
  /** Reads a data set file: which data set and layout it is and its conversations. */
  inspect(source: DatasetSource): Promise<DatasetInfo>;
  /** Runs one system over one conversation; progress after every session and question. */
  run(request: SystemRunRequest, onProgress: (p: SystemRunProgress) => void): Promise<SystemRunResult>;
  /** Stops the running run before its next session or question; nothing is stored. */
  cancel(): void;
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

export interface OpSummary {
  id: string;
  name: string;
  category: string;
  createdAt: string;
  /** Position in execution order. */
  rank: number;
}

export interface OpDetail extends OpSummary {
  comment: string | null;
  session: string;
  metadata: string;
  inputs: VarView[];
  intermediates: VarView[];
  outputs: VarView[];
  previous: OpSummary | null;
  next: OpSummary | null;
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

export interface DiffLine {
  kind: 'same' | 'add' | 'del';
  text: string;
}

export interface VersionDiff {
  from: string;
  to: string;
  lines: DiffLine[];
  /** True when the diff was cut short (very different long values). */
  truncated: boolean;
}

export interface CaseContext {
  evidence: VarView[];
  /** Ops on the way from the conversation to the answer (upstream of the prediction), time order. */
  path: OpSummary[];
  pathTruncated: boolean;
  labelOp: OpSummary | null;
}

export interface SearchHit {
  varId: string;
  fullName: string;
  category: string;
  snippet: string;
  /** Match position inside the snippet (-1 when no exact place is known). */
  at: number;
  length: number;
  /** An op touching the variable (the one that wrote it when there is one). */
  op: OpSummary | null;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Problem with the query (bad regex), in words. */
  error?: string;
  tookMs: number;
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
  caseContext(traceId: string, queryId: string): Promise<CaseContext>;
  opDetail(traceId: string, opId: string): Promise<OpDetail | null>;
  varDetail(traceId: string, fullNodeId: string): Promise<VarDetail | null>;
  diffVersions(traceId: string, from: string, to: string): Promise<VersionDiff | null>;
  search(traceId: string, query: string, options: { regex?: boolean; limit?: number }): Promise<SearchResult>;
  /** The whole-graph lane layout (typed arrays transferred). */
  laneLayout(traceId: string, options?: LaneLayoutOptions): Promise<LaneLayout>;
  /** The layered neighbourhood of some ops / variables (unknown ids are skipped). */
  neighbourhood(
    traceId: string,
    seeds: NeighbourhoodSeedIds,
    options?: NeighbourhoodDrawingOptions,
  ): Promise<NeighbourhoodData>;
  /** Drops a trace's opened graph (after deletion or replacement). */
  forget(traceId: string): void;
  /**
   * Runs the evidence-flow attributor on one case (labelled or not); the result names
   * the op, the type (null: no decisive memory error), the reason and the path.
   */
  attributeCase(traceId: string, queryId: string): Promise<EvaluatedCase>;
  /**
   * Runs the evidence-flow attributor over every case of these traces that has a label under
   * `labelChoice` (core/labels: `file` — the default, the file's own — `source:<s>` or
   * `annotator:<name>`), scoring against that label, reporting progress after each case.
   * `cancelEvaluation()` stops it after the current case (status `cancelled`, the cases
   * done so far kept).
   */
  evaluate(
    traceIds: string[],
    onProgress: (p: EvalProgress) => void,
    labelChoice?: string,
  ): Promise<EvalResult>;
  cancelEvaluation(): void;
  /**
   * Runs (or resumes, from its stored checkpoint) the LLM agent of a stored `runs` row of
   * kind `agent` (src/db/agent-runs.ts): checkpoints and progress are written to the row
   * after every step, events are reported as they happen, and the row is finished as
   * done, cancelled or failed. The model stays in the page: the worker calls it through
   * `port` (so keys never leave the page). Resolves with the final row.
   */
  runAgent(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
  ): Promise<AgentRunRow>;
  /** Aborts a running agent (its row becomes `cancelled`). */
  cancelAgent(runId: number): void;
  /**
   * Compares two stored traces of one conversation (core/compare `compareRuns`): questions
   * paired by identity, outcome flips, first divergence, memory at the last question.
   * Progress after questions; `cancelCompare()` (or a newer comparison) stops it.
   */
  compareTraces(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
  ): Promise<CompareResult>;
  cancelCompare(): void;
  /** The memory at one question's time in both traces (a query id of either side). */
  compareMemory(
    traceA: string,
    traceB: string,
    queryA: string | null,
    queryB: string | null,
  ): Promise<MemoryComparison>;
}

// ---------- agent runs ----------

/** What the worker knows of the page's chat model (no key, no endpoint). */
export interface ModelInfo {
  provider: ProviderKind;
  model: string;
  capabilities: ChatCapabilities;
}

/** A chat request as it crosses to the page (the abort signal and token callback stay behind). */
export type PortRequest = Omit<ChatRequest, 'signal' | 'onToken'>;

/** A call's outcome: errors cross as data so their kind survives. */
export type PortResult = { ok: true; response: ChatResponse } | { ok: false; kind: string; message: string };

/** The page's chat model as the worker sees it (a comlink proxy). */
export interface ModelPort {
  complete(callId: number, request: PortRequest): Promise<PortResult>;
  abort(callId: number): void;
}

/** Live events of an agent run (the checkpoints themselves stay in the worker and the row). */
export type AgentRunEvent =
  | { type: 'step'; step: number; note: string }
  | { type: 'explore'; var_id: string }
  | { type: 'frontier'; var_ids: string[] }
  | { type: 'tokens'; input_tokens: number; output_tokens: number }
  /** A checkpoint was written to the row. */
  | { type: 'saved'; progress: AgentProgress };
