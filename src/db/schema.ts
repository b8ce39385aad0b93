/**
 * The Dexie schema (design.md "Storage"): few, large values, indexed only where queried.
 * - traces: one row per stored graph (meta + stats), keyed by graph_id.
 * - blobs: the original file, byte for byte, one row per trace.
 * - cases: failed / annotated questions, queryable across traces.
 * - runs, annotations, indexes: attribution runs, user labels, serialised search indexes.
 * - settings: small key/value pairs.
 */
import Dexie, { type EntityTable } from 'dexie';
import type { TraceStats } from '../core/stats/stats.ts';
import type { TraceIssue } from '../core/trace/issues.ts';
import type { Annotation } from '../core/trace/types.ts';

export interface TraceMeta {
  /** The trace's graph_id (primary key). */
  id: string;
  /** File name as dropped or picked. */
  file: string;
  /** Path inside a picked folder (or the file name). */
  path: string;
  system: string | null;
  projectId: string | null;
  createdAt: string;
  importedAt: number;
  /** Size of the original file in bytes. */
  bytes: number;
  stats: TraceStats;
  caseCount: number;
  labelledCount: number;
  /** Warnings found at import (capped like the importer's list). */
  warnings: TraceIssue[];
  warningCount: number;
}

export interface BlobRow {
  traceId: string;
  /** The original file, verbatim. */
  blob: Blob;
  type: string;
}

export interface CaseRow {
  traceId: string;
  queryId: string;
  /** Position in the trace's case list. */
  order: number;
  system: string | null;
  question: string;
  goldenAnswers: string[];
  prediction: string | null;
  judgeScore: number | null;
  judgeResponse: string | null;
  judgeOpId: string | null;
  failed: boolean;
  evidenceIds: string[];
  errorType: string | null;
  labelOpId: string | null;
  labelSource: string | null;
  labelReason: string | null;
}

export interface RunRow {
  id?: number;
  traceId: string;
  queryId: string;
  method: string;
  status: string;
  createdAt: number;
  [key: string]: unknown;
}

export interface AnnotationRow {
  id?: number;
  traceId: string;
  queryId: string;
  errorType: string;
  opId: string | null;
  note: string;
  createdAt: number;
  /** The label in MemTraceBench's fields (query_id, golden_answers, final_error_type, …), as exported. */
  bench?: Annotation;
}

export interface IndexRow {
  traceId: string;
  kind: string;
  data: unknown;
}

export interface SettingRow {
  key: string;
  value: unknown;
}

export type MemtraceDb = Dexie & {
  traces: EntityTable<TraceMeta, 'id'>;
  blobs: EntityTable<BlobRow, 'traceId'>;
  cases: Dexie.Table<CaseRow, [string, string]>;
  runs: EntityTable<RunRow, 'id'>;
  annotations: EntityTable<AnnotationRow, 'id'>;
  indexes: Dexie.Table<IndexRow, [string, string]>;
  settings: EntityTable<SettingRow, 'key'>;
};

export const DB_NAME = 'memtrace-workbench';

/** Opens (or creates) the workbench database. Each caller owns its instance. */
export function openDb(name: string = DB_NAME): MemtraceDb {
  const db = new Dexie(name) as MemtraceDb;
  db.version(1).stores({
    traces: '&id, importedAt',
    blobs: '&traceId',
    cases: '[traceId+queryId], traceId',
    runs: '++id, traceId, [traceId+queryId]',
    annotations: '++id, traceId, [traceId+queryId]',
    indexes: '[traceId+kind], traceId',
    settings: '&key',
  });
  return db;
}
