/**
 * The smartcomment execution-graph model, field for field as the toolkit writes it.
 * Records are kept as the parsed objects themselves: unknown keys survive, and
 * export is a plain serialisation of the same objects.
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
  [key: string]: Json;
}

/** Fields every record carries. Derived ones (`trigger_point`) may be absent in hand-made files. */
export interface RecordBase {
  created_at: string;
  filename: string;
  lineno: number;
  metadata: JsonObject;
  graph_id: string;
  user_id: string | null;
  project_id: string | null;
  trigger_point?: string;
  [key: string]: unknown;
}

/** A variable version record (`data.nodes`): its name, version, value, class, comment and category. */
export interface VariableRecord extends RecordBase {
  name: string;
  version: number;
  /** Always a string in smartcomment files (Python repr or a custom encoding). */
  value: string;
  class_name: string | null;
  comment: string | null;
  category: string;
  session_id: string;
  full_name?: string;
  node_id?: string;
  full_node_id?: string;
}

/** An operation record (`data.operations`): its id, name, comment and category. */
export interface OperationRecord extends RecordBase {
  op_id: string;
  op_name: string | null;
  comment: string | null;
  category: string;
  session_id: string;
}

/** An edge record (`data.edges`): a data flow from one variable version to another, within an op. */
export interface EdgeRecord extends RecordBase {
  edge_id: string;
  op_id: string;
  category: string;
  source_full_node_id: string;
  target_full_node_id: string;
  comment: string | null;
  session_id: string;
}

/** A session record (`data.sessions`), which groups records. */
export interface SessionRecord extends RecordBase {
  session_id: string;
  session_name: string | null;
  comment: string | null;
  category: string;
}

/** A MemTraceBench label for one failed question (extra keys are kept). */
export interface Annotation {
  query_id: string;
  query?: string;
  golden_answers?: string[] | string;
  prediction?: string;
  source_evidence_ids?: string[];
  final_error_type: string;
  final_op_id: string;
  label_source?: string;
  reason?: string;
  [key: string]: unknown;
}

/**
 * The records of a trace file (`data`): sessions, variables, operations, edges and MemTraceBench
 * annotations.
 */
export interface TraceData {
  sessions: SessionRecord[];
  nodes: VariableRecord[];
  operations: OperationRecord[];
  edges: EdgeRecord[];
  annotations?: Annotation[];
  [key: string]: unknown;
}

/** The top-level fields of a smartcomment file besides `data`, in the toolkit's key order. */
export interface TraceHeader {
  graph_id: string;
  user_id: string | null;
  project_id: string | null;
  storage_path: string | null;
  strict: boolean;
  driver_type: string;
  created_at: string;
  metadata: JsonObject;
}

/** A whole smartcomment file. */
export interface TraceDocument extends TraceHeader {
  data: TraceData;
  [key: string]: unknown;
}

/** The five error types of the MemTrace taxonomy, in pipeline order. */
export const ERROR_TYPES = [
  'ExtractionError',
  'UpdateError',
  'DeletionError',
  'RetrievalError',
  'ResponseError',
] as const;
/** One of the five error types. */
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Whether a value is one of the five error type names. */
export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === 'string' && (ERROR_TYPES as readonly string[]).includes(value);
}

/** Ids of the sentinel records the toolkit adds only when needed. */
export const SENTINEL = {
  session: '__none__',
  variable: 'COMMENT:NONE@1',
  operation: '__none_op__',
  category: 'sentinel',
} as const;
