/** Repository functions over the workbench database. Writes of one trace are one transaction. */
import { caseKey, type LabelRecord } from '../core/labels/index.ts';
import { latestOtherLabels, type ReattachReport, replaceFileLabels } from './labels.ts';
import type { BlobRow, CaseRow, MemtraceDb, QaAttachment, TraceMeta } from './schema.ts';

export interface StoredTrace {
  meta: TraceMeta;
  blob: Blob;
  cases: CaseRow[];
  /** The file's own labels (`data.annotations`, core/labels `fileLabels`). */
  labels: LabelRecord[];
}

export type StoreOutcome = 'stored' | 'replaced' | 'exists';

export interface StoreResult {
  outcome: StoreOutcome;
  /** A replaced trace's QA file, kept with the new file (its questions are to be joined again). */
  qa?: QaAttachment;
  /** Replaced traces: which of the person's / imported labels still name one of its cases. */
  labels?: ReattachReport;
}

/** True when an error (possibly wrapped by Dexie in `inner`) means the storage quota is used up. */
export function isQuotaError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth++) {
    const name = (cur as { name?: unknown }).name;
    if (name === 'QuotaExceededError' || name === 'QuotaExceeded') return true;
    cur = (cur as { inner?: unknown }).inner;
  }
  return false;
}

export const QUOTA_MESSAGE =
  'The browser refused to store more data (storage quota exceeded). Delete traces you no longer need, or allow this site more storage, then import again. Nothing already stored was changed.';

/**
 * Stores a trace, its original file, its cases and its file labels atomically. When a trace
 * with the same id exists and `replace` is false, nothing is written and `'exists'` is
 * returned. Replacing keeps the QA file dropped beside it (returned, to be joined again), the
 * person's and imported labels attached by query id and
 * reports those whose question the new file no longer has. A failure (quota, abort) rolls
 * the whole transaction back: stored data is untouched.
 */
export async function storeTrace(
  db: MemtraceDb,
  t: StoredTrace,
  options: { replace?: boolean } = {},
): Promise<StoreResult> {
  return db.transaction('rw', [db.traces, db.blobs, db.cases, db.indexes, db.labels], async () => {
    const existing = await db.traces.get(t.meta.id);
    if (existing && !options.replace) return { outcome: 'exists' as const };
    if (existing) {
      await db.cases.where('traceId').equals(t.meta.id).delete();
      await db.indexes.where('traceId').equals(t.meta.id).delete();
    }
    const qa = existing ? (await db.blobs.get(t.meta.id))?.qa : undefined;
    const blobRow: BlobRow = { traceId: t.meta.id, blob: t.blob, type: t.blob.type, ...(qa ? { qa } : {}) };
    await db.traces.put(qa ? { ...t.meta, qaFile: qa.file } : t.meta);
    await db.blobs.put(blobRow);
    await db.cases.bulkPut(t.cases);
    const labels = await replaceFileLabels(db, t.meta.id, t.labels, new Set(t.cases.map((c) => c.queryId)));
    return existing
      ? { outcome: 'replaced' as const, labels, ...(qa ? { qa } : {}) }
      : { outcome: 'stored' as const };
  });
}

export async function traceExists(db: MemtraceDb, id: string): Promise<boolean> {
  return (await db.traces.where('id').equals(id).count()) > 0;
}

/** Stored traces, newest import first. */
export async function listTraces(db: MemtraceDb): Promise<TraceMeta[]> {
  return (await db.traces.orderBy('importedAt').toArray()).reverse();
}

export function getTrace(db: MemtraceDb, id: string): Promise<TraceMeta | undefined> {
  return db.traces.get(id);
}

/** The original file of a trace, verbatim. */
export async function getOriginal(db: MemtraceDb, id: string): Promise<Blob | undefined> {
  return (await db.blobs.get(id))?.blob;
}

/** The original file of a trace and the QA file joined to it, as stored. */
export async function getStored(
  db: MemtraceDb,
  id: string,
): Promise<{ blob: Blob; qa?: QaAttachment } | undefined> {
  const row = await db.blobs.get(id);
  return row && { blob: row.blob, ...(row.qa ? { qa: row.qa } : {}) };
}

/**
 * Keeps a QA file with a stored trace and replaces its case rows by those of the joined trace
 * (its meta's counts and stats with them), in one transaction.
 */
export async function attachQa(
  db: MemtraceDb,
  traceId: string,
  qa: QaAttachment,
  cases: CaseRow[],
  meta: Pick<TraceMeta, 'stats'>,
): Promise<void> {
  await db.transaction('rw', [db.traces, db.blobs, db.cases], async () => {
    await db.blobs.update(traceId, { qa });
    await db.cases.where('traceId').equals(traceId).delete();
    await db.cases.bulkPut(cases);
    await db.traces.update(traceId, {
      qaFile: qa.file,
      stats: meta.stats,
      caseCount: cases.length,
      labelledCount: cases.filter((c) => c.errorType !== null).length,
    });
  });
}

export interface CaseFilter {
  traceId?: string;
  system?: string;
  /** An error type (the file's label or another live one), or '' for any. */
  errorType?: string;
  /** Labelled: by the file or by any live label record (a person's, an agent's, imported, adjudicated). */
  labelled?: 'labelled' | 'unlabelled' | 'all';
}

/** The newest live label of a case besides the file's own: who said which type. */
export interface OtherLabel {
  errorType: string;
  source: string;
  /** Who ('' when unknown: the source stands for them). */
  annotator: string;
  opId: string | null;
}

/** A listed case: the stored row and the newest label made or imported besides the file's. */
export interface ListedCase extends CaseRow {
  otherLabel: OtherLabel | null;
}

/** Newest live label per case (`caseKey`) that is not the file's own. */
async function otherLabels(db: MemtraceDb, traceId?: string): Promise<Map<string, OtherLabel>> {
  const out = new Map<string, OtherLabel>();
  for (const [key, r] of await latestOtherLabels(db, traceId === undefined ? undefined : [traceId]))
    out.set(key, { errorType: r.errorType, source: r.source, annotator: r.annotator, opId: r.opId });
  return out;
}

/** Cases across traces (or of one), with their newest other label, filtered, in trace then case order. */
export async function listCaseRows(db: MemtraceDb, f: CaseFilter = {}): Promise<ListedCase[]> {
  const [rows, others] = await db.transaction('r', [db.cases, db.labels], () =>
    Promise.all([
      f.traceId ? db.cases.where('traceId').equals(f.traceId).toArray() : db.cases.toArray(),
      otherLabels(db, f.traceId),
    ]),
  );
  return rows
    .map((c) => ({
      ...c,
      otherLabel: others.get(caseKey({ graphId: c.traceId, queryId: c.queryId })) ?? null,
    }))
    .filter((c) => (f.system ? c.system === f.system : true))
    .filter((c) =>
      f.errorType ? c.errorType === f.errorType || c.otherLabel?.errorType === f.errorType : true,
    )
    .filter((c) => {
      const labelled = c.errorType !== null || c.otherLabel !== null;
      return f.labelled === 'labelled' ? labelled : f.labelled === 'unlabelled' ? !labelled : true;
    })
    .sort((a, b) => (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : a.order - b.order));
}

/**
 * Labelled cases per trace — by the file or by any live label record, as the Cases list's
 * "labelled only" counts them: the one count every list, page and view shows (the trace row's
 * `labelledCount` is the file's alone, as imported).
 */
export async function labelledCounts(db: MemtraceDb): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const c of await listCaseRows(db, { labelled: 'labelled' }))
    counts.set(c.traceId, (counts.get(c.traceId) ?? 0) + 1);
  return counts;
}

export function getCase(db: MemtraceDb, traceId: string, queryId: string): Promise<CaseRow | undefined> {
  return db.cases.get([traceId, queryId]);
}

/** Deletes a trace and everything stored for it (its labels too: they quote its conversation). */
export async function deleteTrace(db: MemtraceDb, id: string): Promise<void> {
  await db.transaction('rw', [db.traces, db.blobs, db.cases, db.runs, db.labels, db.indexes], async () => {
    await db.traces.delete(id);
    await db.blobs.delete(id);
    await db.cases.where('traceId').equals(id).delete();
    await db.runs.where('traceId').equals(id).delete();
    await db.labels.where('graphId').equals(id).delete();
    await db.indexes.where('traceId').equals(id).delete();
  });
}

export async function getSetting<T>(db: MemtraceDb, key: string): Promise<T | undefined> {
  return (await db.settings.get(key))?.value as T | undefined;
}

export async function setSetting(db: MemtraceDb, key: string, value: unknown): Promise<void> {
  await db.settings.put({ key, value });
}
