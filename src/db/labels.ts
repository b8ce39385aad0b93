/**
 * Label records in storage. Adding a label never changes another record or the case row (which
 * keeps the file's own label); a person's or an imported label can be deleted and the deletion
 * undone; a trace's file labels are rewritten only when the trace itself is (import, replace).
 */
import {
  ADJUDICATED_SOURCE,
  type AnnotationsFile,
  annotatorOf,
  caseKey,
  causeRefusal,
  classifyIncoming,
  ENGINE_SOURCE,
  type IncomingLabel,
  type LabelContext,
  type LabelRecord,
  type OpKind,
  PERSON_SOURCE,
  toAnnotationsFile,
} from '../core/labels/index.ts';
import { type CaseRun, type EvaluatedCase, type EvaluationRun, isStaleVerdict } from './runs.ts';
import type { CaseRow, LabelRow, MemtraceDb } from './schema.ts';

/** A label made in the workbench. */
export interface LabelInput {
  traceId: string;
  queryId: string;
  errorType: string;
  opId: string;
  /** Why (the attributor's reason when accepted, the person's words otherwise). */
  reason: string;
  /** Who (the annotator name from the settings; '' when none is set). */
  annotator?: string;
  /** `person` (default), `agent` (an agent's result a person accepted or corrected), `adjudicated`. */
  source?: string;
  /** accepted | corrected (an engine's result), queue (typed in the annotation queue), adjudicated. */
  decision?: string;
  /** The engine whose result was accepted or corrected. */
  method?: string;
  /**
   * The op's name and kind: a type it cannot cause is refused (core/labels `causeRefusal`).
   * The app always passes it; without it (scripts, migrations) nothing is checked.
   */
  opKind?: OpKind;
}

/** MemTraceBench context of a case, carried into exports. */
export function caseContextFields(row: CaseRow): LabelContext {
  return {
    query: row.question,
    golden_answers: row.goldenAnswers,
    prediction: row.prediction ?? '',
    source_evidence_ids: row.evidenceIds,
  };
}

/**
 * Stores a label of a stored case as a new record (source `person` unless given), next to
 * every other label of the case. Returns the stored row.
 */
export async function saveLabel(
  db: MemtraceDb,
  input: LabelInput,
  now: () => number = Date.now,
): Promise<LabelRow> {
  const refusal = input.opKind ? causeRefusal(input.errorType, input.opKind) : null;
  if (refusal) throw new Error(`label not saved: ${refusal}`);
  return db.transaction('rw', [db.cases, db.labels], async () => {
    const row = await db.cases.get([input.traceId, input.queryId]);
    if (!row) throw new Error(`no stored case ${input.queryId} in trace ${input.traceId}`);
    const label: LabelRow = {
      graphId: input.traceId,
      queryId: input.queryId,
      errorType: input.errorType,
      opId: input.opId,
      reason: input.reason,
      source: input.source ?? PERSON_SOURCE,
      annotator: input.annotator?.trim() ?? '',
      createdAt: new Date(now()).toISOString(),
      origin: 'workbench',
      context: caseContextFields(row),
      deletedAt: null,
      ...(input.decision ? { decision: input.decision } : {}),
      ...(input.method ? { method: input.method } : {}),
    };
    label.id = (await db.labels.add(label)) as number;
    return label;
  });
}

/** An adjudicated final label of a case. */
export interface AdjudicationInput {
  graphId: string;
  queryId: string;
  errorType: string;
  opId: string | null;
  reason: string;
  annotator: string;
  /** The op's name and kind, when known: a type it cannot cause is refused. */
  opKind?: OpKind;
}

/** An adjudicated final label (source `adjudicated`) of a case, stored case or not. */
export async function saveAdjudication(
  db: MemtraceDb,
  input: AdjudicationInput,
  now: () => number = Date.now,
): Promise<LabelRow> {
  const refusal = input.opKind ? causeRefusal(input.errorType, input.opKind) : null;
  if (refusal) throw new Error(`label not saved: ${refusal}`);
  const { opKind: _kind, ...fields } = input;
  const row = await db.cases.get([input.graphId, input.queryId]);
  const label: LabelRow = {
    ...fields,
    source: ADJUDICATED_SOURCE,
    annotator: input.annotator.trim(),
    createdAt: new Date(now()).toISOString(),
    origin: 'workbench',
    decision: 'adjudicated',
    deletedAt: null,
    ...(row ? { context: caseContextFields(row) } : {}),
  };
  label.id = (await db.labels.add(label)) as number;
  return label;
}

/** Every label of a case, oldest first (deleted ones too when asked, for undo). */
export async function caseLabels(
  db: MemtraceDb,
  graphId: string,
  queryId: string,
  options: { deleted?: boolean } = {},
): Promise<LabelRow[]> {
  const rows = await db.labels.where('[graphId+queryId]').equals([graphId, queryId]).toArray();
  return rows
    .filter((r) => options.deleted || r.deletedAt === null)
    .sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
}

/** Live labels of some traces (all when none given). */
export async function listLabels(db: MemtraceDb, graphIds?: readonly string[]): Promise<LabelRow[]> {
  const rows = graphIds
    ? await db.labels
        .where('graphId')
        .anyOf([...graphIds])
        .toArray()
    : await db.labels.toArray();
  return rows.filter((r) => r.deletedAt === null).sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
}

/**
 * Per case (`caseKey`), the newest live label besides the file's own (a person's, an agent's,
 * imported, adjudicated): what the Cases list shows next to the file's label and what the report
 * takes as a case's verdict — one reading of "the label people gave".
 */
export async function latestOtherLabels(
  db: MemtraceDb,
  graphIds?: readonly string[],
): Promise<Map<string, LabelRow>> {
  const out = new Map<string, LabelRow>();
  for (const r of await listLabels(db, graphIds)) if (r.origin !== 'file') out.set(caseKey(r), r);
  return out;
}

/** Deletes a person's (or an imported) label; the file's own labels cannot be deleted. Undo with `restoreLabel`. */
export async function deleteLabel(db: MemtraceDb, id: number, now: () => number = Date.now): Promise<void> {
  await db.transaction('rw', db.labels, async () => {
    const row = await db.labels.get(id);
    if (!row) throw new Error(`no label ${id}`);
    if (row.origin === 'file') throw new Error("the file's own labels cannot be deleted");
    await db.labels.update(id, { deletedAt: now() });
  });
}

export async function restoreLabel(db: MemtraceDb, id: number): Promise<void> {
  await db.labels.update(id, { deletedAt: null });
}

/**
 * The labels made in this workbench (not the files' own, not imported ones) as an annotations
 * file — of some traces, or of one annotator, when asked.
 */
export async function exportLabels(
  db: MemtraceDb,
  filter: { graphIds?: readonly string[]; annotator?: string } = {},
): Promise<AnnotationsFile> {
  const rows = (await listLabels(db, filter.graphIds)).filter(
    (r) =>
      r.origin === 'workbench' && (filter.annotator === undefined || annotatorOf(r) === filter.annotator),
  );
  return toAnnotationsFile(rows);
}

/** How incoming labels relate to the stored ones (new, duplicate, conflict); nothing is written. */
export async function planImport(
  db: MemtraceDb,
  incoming: readonly LabelRecord[],
): Promise<IncomingLabel<LabelRow>[]> {
  return classifyIncoming(await listLabels(db), incoming);
}

/** Stores the incoming labels a person chose to keep, as imported records. */
export async function storeImported(
  db: MemtraceDb,
  labels: readonly LabelRecord[],
  file: string,
): Promise<number> {
  const rows: LabelRow[] = labels.map((l) => ({
    ...l,
    origin: 'imported',
    importedFrom: file,
    deletedAt: null,
  }));
  await db.labels.bulkAdd(rows);
  return rows.length;
}

/** What happened to a replaced trace's labels (by query id). */
export interface ReattachReport {
  /** Labels (a person's, imported) still attached: their question is in the new file. */
  kept: number;
  /** Labels whose question is not in the new file: kept in storage (and exports), not shown on a case. */
  detached: { id: number; queryId: string; annotator: string; errorType: string }[];
}

/**
 * Inside a trace's store transaction: rewrites its file labels and reports which of the other
 * labels still name one of its questions.
 */
export async function replaceFileLabels(
  db: MemtraceDb,
  graphId: string,
  fileLabels: readonly LabelRecord[],
  queryIds: ReadonlySet<string>,
): Promise<ReattachReport> {
  const rows = await db.labels.where('graphId').equals(graphId).toArray();
  await db.labels.bulkDelete(rows.filter((r) => r.origin === 'file').map((r) => r.id as number));
  await db.labels.bulkAdd(fileLabels.map((l) => ({ ...l, deletedAt: null })));
  const others = rows.filter((r) => r.origin !== 'file' && r.deletedAt === null);
  const detached = others
    .filter((r) => !queryIds.has(r.queryId))
    .map((r) => ({
      id: r.id as number,
      queryId: r.queryId,
      annotator: annotatorOf(r),
      errorType: r.errorType,
    }));
  return { kept: others.length - detached.length, detached };
}

/** The annotator name an attribution engine takes part in agreement under (as `memtrace agreement --engine`). */
export const engineAnnotator = (method: string) => `engine:${method}`;

/**
 * The attribution engines' stored answers as label records (source `engine`), so agreement
 * between an engine and people is the same computation: per case, the newest one-case run of
 * each method, else the case's result in the newest evaluation run. Verdicts an older
 * attributor made are left out (they are not this engine's answers).
 */
export async function engineLabels(db: MemtraceDb): Promise<LabelRecord[]> {
  const rows = (await db.runs.toArray()).sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  const out = new Map<string, LabelRecord>();
  const put = (verdict: EvaluatedCase) => {
    if (isStaleVerdict(verdict)) return;
    const {
      trace_id: graphId,
      query_id: queryId,
      method,
      predicted_type: type,
      predicted_op: op,
      reason,
    } = verdict;
    out.set(JSON.stringify([graphId, queryId, method]), {
      graphId,
      queryId,
      errorType: type ?? 'none',
      opId: op,
      reason,
      source: ENGINE_SOURCE,
      annotator: engineAnnotator(method),
      createdAt: '',
      origin: 'imported',
    });
  };
  const evaluation = rows.filter((r) => r.kind === 'evaluation' && r.status !== 'running').at(-1) as
    | EvaluationRun
    | undefined;
  for (const c of evaluation?.result?.cases ?? []) put(c);
  for (const r of rows) if (r.kind === 'attribution' && r.status === 'done') put((r as CaseRun).result);
  return [...out.values()];
}
