/**
 * The typed interfaces at the worker boundary. The UI holds comlink proxies of
 * `ImportApi` and `AnalysisApi`; everything crossing is plain data (typed arrays are
 * transferred). Graph-drawing components (src/app/lanes, src/app/neighbourhood) take
 * `GraphColumns` and `GraphSlice` as their input.
 */
import type { TraceIssue } from '../src/core/trace/issues.ts';

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

/** A small subgraph (one op's neighbourhood) for the layered layout. */
export interface GraphSlice {
  focus: string | null;
  vars: { id: string; fullName: string; version: number; category: string; label: string }[];
  ops: (OpSummary & { focus: boolean })[];
  /** Variable → variable edges, each carrying its op. */
  edges: { op: string; source: string; target: string }[];
}

/**
 * The whole graph as columns, for the lane view (100k+ variables). Indices are
 * positions in these arrays; categories are codes into the category lists.
 */
export interface GraphColumns {
  traceId: string;
  varId: string[];
  varLineage: Int32Array;
  varVersion: Int32Array;
  /** Creation order position of each variable. */
  varRank: Int32Array;
  varCategory: Uint16Array;
  varSentinel: Uint8Array;
  varCategories: string[];
  lineageNames: string[];
  opId: string[];
  opName: string[];
  /** Execution order position of each op. */
  opRank: Int32Array;
  opCategory: Uint16Array;
  opCategories: string[];
  edgeOp: Int32Array;
  edgeSrc: Int32Array;
  edgeDst: Int32Array;
}

export interface AnalysisApi {
  caseContext(traceId: string, queryId: string): Promise<CaseContext>;
  opDetail(traceId: string, opId: string): Promise<OpDetail | null>;
  varDetail(traceId: string, fullNodeId: string): Promise<VarDetail | null>;
  diffVersions(traceId: string, from: string, to: string): Promise<VersionDiff | null>;
  search(traceId: string, query: string, options: { regex?: boolean; limit?: number }): Promise<SearchResult>;
  neighbourhood(
    traceId: string,
    opId: string,
    options?: { depth?: number; maxOps?: number },
  ): Promise<GraphSlice | null>;
  columns(traceId: string): Promise<GraphColumns>;
  /** Drops a trace's opened graph (after deletion or replacement). */
  forget(traceId: string): void;
}
