/**
 * The Dexie schema (design.md "Storage"): few, large values, indexed only where queried.
 * - traces: one row per stored graph (meta + stats), keyed by graph_id.
 * - blobs: the original file, byte for byte, one row per trace.
 * - cases: failed / annotated questions, queryable across traces.
 * - runs, indexes: attribution runs, serialised search indexes.
 * - labels: every label as its own record — the file's own, a person's, an agent's,
 *   imported, adjudicated (src/core/labels); none overwrites another.
 * - settings: small key/value pairs.
 *
 * Versions: 1 had `annotations` (workbench labels) and wrote a person's label over the case
 * row's; 2 adds `labels` and moves every annotation row into it (see `migrateToLabels`);
 * 3 drops `annotations`; 4 stores each record type's version (`RECORD_VERSIONS`, a `settings`
 * row) and gives every stored evidence-flow verdict its attributor's version (null: unknown,
 * stale) — later record versions add their migrations there (`migrateRecordVersions`).
 */
import Dexie, { type EntityTable, type Transaction } from 'dexie';
import type { TraceCase } from '../core/cases/index.ts';
import {
  AGENT_SOURCE,
  contextOf,
  FILE_SOURCE,
  type LabelRecord,
  PERSON_SOURCE,
} from '../core/labels/index.ts';
import type { TraceStats } from '../core/stats/index.ts';
import type { Annotation, TraceIssue } from '../core/trace/index.ts';
import { migrateRecordVersions, RECORD_VERSIONS, RECORD_VERSIONS_KEY } from './record-versions.ts';

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
  /** Cases the file labels, as imported; the views count every live label (`labelledCounts`). */
  labelledCount: number;
  /** Warnings found at import (capped like the importer's list). */
  warnings: TraceIssue[];
  warningCount: number;
  /**
   * Set by the version-2 upgrade when a v1 correction had overwritten a case row's file
   * label: the engine worker re-reads the stored file to restore the file's labels.
   */
  fileLabelsPending?: boolean;
  /** The QA file whose questions are joined to the trace (dropped beside it), by name. */
  qaFile?: string;
}

/** A QA file given beside a trace, verbatim: its rows are joined to the trace each time it opens. */
export interface QaAttachment {
  /** Its name as dropped or picked (the place its messages name). */
  file: string;
  text: string;
}

export interface BlobRow {
  traceId: string;
  /** The original file, verbatim. */
  blob: Blob;
  type: string;
  /** The QA file joined to the trace (the newest dropped beside it), when there is one. */
  qa?: QaAttachment;
}

/** A case as stored: core's case (`TraceCase`) of a stored trace, its label flattened into columns. */
export interface CaseRow extends Omit<TraceCase, 'graphId' | 'label'> {
  traceId: string;
  /** Position in the trace's case list. */
  order: number;
  system: string | null;
  /** The file's own label (its first annotation of the question); a person's labels are `labels` rows. */
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

/** A label record as stored. */
export interface LabelRow extends LabelRecord {
  id?: number;
  /** When a person deleted it (kept so the deletion can be undone); null while live. */
  deletedAt: number | null;
  /** accepted / corrected (an engine's result), queue, adjudicated, … */
  decision?: string;
  /** The engine whose result was accepted or corrected. */
  method?: string;
  /** The annotations file it came from (origin `imported`). */
  importedFrom?: string;
}

/** A version-1 workbench label (the `annotations` table, migrated into `labels` by version 2). */
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
  labels: EntityTable<LabelRow, 'id'>;
  indexes: Dexie.Table<IndexRow, [string, string]>;
  settings: EntityTable<SettingRow, 'key'>;
};

export const DB_NAME = 'memtrace-workbench';

/** The version-1 schema (kept: Dexie upgrades from every declared version). */
export const V1_STORES = {
  traces: '&id, importedAt',
  blobs: '&traceId',
  cases: '[traceId+queryId], traceId',
  runs: '++id, traceId, [traceId+queryId]',
  annotations: '++id, traceId, [traceId+queryId]',
  indexes: '[traceId+kind], traceId',
  settings: '&key',
};

/** Opens (or creates) the workbench database. Each caller owns its instance. */
export function openDb(name: string = DB_NAME): MemtraceDb {
  const db = new Dexie(name) as MemtraceDb;
  db.version(1).stores(V1_STORES);
  db.version(2)
    .stores({ labels: '++id, graphId, [graphId+queryId]' })
    .upgrade((tx) => migrateToLabels(tx));
  db.version(3).stores({ annotations: null });
  db.version(4)
    .stores({})
    .upgrade((tx) => migrateRecordVersions(tx));
  // A new database starts at the current record versions (upgrades run only on older ones).
  db.on('populate', (tx) => {
    tx.table('settings').put({ key: RECORD_VERSIONS_KEY, value: { ...RECORD_VERSIONS } });
  });
  return db;
}

const V1_SOURCES: Record<string, string> = { workbench: PERSON_SOURCE, 'workbench-agent': AGENT_SOURCE };

/**
 * Version 1 → 2: every `annotations` row becomes a `labels` row (source `person` or `agent`,
 * its time, reason, decision and MemTraceBench context kept), and each case row's file label
 * becomes a file-origin record. A case row whose label a v1 correction had overwritten gets
 * its label fields cleared and its trace is marked `fileLabelsPending`, so the engine worker
 * restores the file's labels from the stored original (an upgrade transaction cannot read blobs).
 */
export async function migrateToLabels(tx: Transaction): Promise<void> {
  const labels = tx.table<LabelRow, number>('labels');
  const old = await tx.table<AnnotationRow, number>('annotations').toArray();
  await labels.bulkAdd(
    old.map((a) => {
      const bench = (a.bench ?? {}) as Partial<Annotation>;
      const source =
        typeof bench.label_source === 'string'
          ? (V1_SOURCES[bench.label_source] ?? bench.label_source)
          : PERSON_SOURCE;
      const context = contextOf(bench);
      return {
        graphId: a.traceId,
        queryId: a.queryId,
        errorType: a.errorType,
        opId: a.opId,
        reason: a.note || (typeof bench.reason === 'string' ? bench.reason : ''),
        source,
        annotator: '',
        createdAt: new Date(a.createdAt).toISOString(),
        origin: 'workbench' as const,
        deletedAt: null,
        ...(typeof bench.decision === 'string' ? { decision: bench.decision } : {}),
        ...(typeof bench.method === 'string' ? { method: bench.method } : {}),
        ...(context ? { context } : {}),
      };
    }),
  );
  const pending = new Set<string>();
  const fileLabels: LabelRow[] = [];
  await tx
    .table<CaseRow, [string, string]>('cases')
    .toCollection()
    .modify((c) => {
      if (c.errorType === null) return;
      if (c.labelSource !== null && c.labelSource in V1_SOURCES) {
        pending.add(c.traceId);
        c.errorType = null;
        c.labelOpId = null;
        c.labelSource = null;
        c.labelReason = null;
        return;
      }
      fileLabels.push({
        graphId: c.traceId,
        queryId: c.queryId,
        errorType: c.errorType,
        opId: c.labelOpId,
        reason: c.labelReason ?? '',
        source: c.labelSource ?? FILE_SOURCE,
        annotator: '',
        createdAt: '',
        origin: 'file',
        deletedAt: null,
      });
    });
  await labels.bulkAdd(fileLabels);
  await tx
    .table<TraceMeta, string>('traces')
    .toCollection()
    .modify((t) => {
      if (pending.has(t.id)) t.fileLabelsPending = true;
    });
}
