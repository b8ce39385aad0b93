/**
 * Attribution runs and workbench labels.
 * - An evaluation run (many traces) is a `runs` row whose traceId is `EVALUATION_RUNS`;
 *   its result holds the per-case results and their summary.
 * - A one-case run is a `runs` row of its trace and question (kind `attribution`).
 * - Accepting or correcting an attribution adds an `annotations` row (with the
 *   MemTraceBench fields) and makes it the case's label, in one transaction.
 */
import type { PathStep } from '../core/attribution/types.ts';
import type { BenchSummary, ScoredCase } from '../core/bench/metrics.ts';
import type { Annotation } from '../core/trace/types.ts';
import type { AnnotationRow, MemtraceDb, RunRow } from './schema.ts';

/** The traceId of runs that span traces (evaluations). */
export const EVALUATION_RUNS = '*evaluation';

/** One attributed case: the prediction, its explanation, and (when labelled) the label it is scored against. */
export interface EvaluatedCase extends ScoredCase {
  method: string;
  trace_id: string;
  query_id: string;
  question: string;
  reason: string;
  path: PathStep[];
}

export type RunStatus = 'running' | 'done' | 'cancelled' | 'failed';

export interface EvaluationRun extends RunRow {
  kind: 'evaluation';
  status: RunStatus;
  parameters: { traceIds: string[]; engine: string };
  finishedAt: number | null;
  result: { summary: BenchSummary; cases: EvaluatedCase[]; missing: string[] } | null;
  error: string | null;
}

export interface CaseRun extends RunRow {
  kind: 'attribution';
  status: RunStatus;
  result: EvaluatedCase;
}

export async function addEvaluationRun(
  db: MemtraceDb,
  parameters: EvaluationRun['parameters'],
  method = 'evidence',
): Promise<number> {
  const row: EvaluationRun = {
    traceId: EVALUATION_RUNS,
    queryId: '',
    kind: 'evaluation',
    method,
    status: 'running',
    createdAt: Date.now(),
    parameters,
    finishedAt: null,
    result: null,
    error: null,
  };
  return (await db.runs.add(row)) as number;
}

export async function finishEvaluationRun(
  db: MemtraceDb,
  id: number,
  changes: Pick<EvaluationRun, 'status' | 'result' | 'error'>,
): Promise<void> {
  await db.runs.update(id, { ...changes, finishedAt: Date.now() });
}

/** Evaluation runs, newest first. */
export async function listEvaluationRuns(db: MemtraceDb): Promise<EvaluationRun[]> {
  const rows = await db.runs.where('traceId').equals(EVALUATION_RUNS).toArray();
  return (rows as EvaluationRun[]).sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
}

export async function saveCaseRun(db: MemtraceDb, result: EvaluatedCase): Promise<number> {
  const row: CaseRun = {
    traceId: result.trace_id,
    queryId: result.query_id,
    kind: 'attribution',
    method: result.method,
    status: 'done',
    createdAt: Date.now(),
    result,
  };
  return (await db.runs.add(row)) as number;
}

/** The newest finished one-case run of a method, if any. */
export async function latestCaseRun(
  db: MemtraceDb,
  traceId: string,
  queryId: string,
  method = 'evidence',
): Promise<CaseRun | undefined> {
  const rows = await db.runs.where('[traceId+queryId]').equals([traceId, queryId]).toArray();
  return (rows as CaseRun[])
    .filter((r) => r.kind === 'attribution' && r.method === method && r.status === 'done')
    .sort((a, b) => (b.id ?? 0) - (a.id ?? 0))[0];
}

export interface LabelInput {
  traceId: string;
  queryId: string;
  errorType: string;
  opId: string;
  /** Why (the attributor's reason when accepted, the person's words when corrected). */
  reason: string;
  /** 'accepted' (the attribution as it was) or 'corrected'. */
  decision: 'accepted' | 'corrected';
  /** The method whose result was accepted or corrected. */
  method: string;
  /** `label_source` of the annotation and the case (default `workbench`; agent results: `workbench-agent`). */
  labelSource?: string;
}

/**
 * Stores a person's label for a case: an annotation with MemTraceBench fields
 * (label_source `workbench` unless given), which becomes the case's label. Returns the annotation.
 */
export async function saveLabel(db: MemtraceDb, input: LabelInput): Promise<AnnotationRow> {
  return db.transaction('rw', [db.cases, db.annotations, db.traces], async () => {
    const row = await db.cases.get([input.traceId, input.queryId]);
    if (!row) throw new Error(`no stored case ${input.queryId} in trace ${input.traceId}`);
    const bench: Annotation = {
      query_id: input.queryId,
      query: row.question,
      golden_answers: row.goldenAnswers,
      prediction: row.prediction ?? '',
      source_evidence_ids: row.evidenceIds,
      final_error_type: input.errorType,
      final_op_id: input.opId,
      label_source: input.labelSource ?? 'workbench',
      reason: input.reason,
      decision: input.decision,
      method: input.method,
    };
    const annotation: AnnotationRow = {
      traceId: input.traceId,
      queryId: input.queryId,
      errorType: input.errorType,
      opId: input.opId,
      note: input.reason,
      createdAt: Date.now(),
      bench,
    };
    annotation.id = (await db.annotations.add(annotation)) as number;
    const wasLabelled = row.errorType !== null;
    await db.cases.update([input.traceId, input.queryId], {
      errorType: input.errorType,
      labelOpId: input.opId,
      labelSource: input.labelSource ?? 'workbench',
      labelReason: input.reason || null,
    });
    if (!wasLabelled) {
      const t = await db.traces.get(input.traceId);
      if (t) await db.traces.update(input.traceId, { labelledCount: t.labelledCount + 1 });
    }
    return annotation;
  });
}

/** A case's workbench annotations, newest first. */
export async function listAnnotations(
  db: MemtraceDb,
  traceId: string,
  queryId: string,
): Promise<AnnotationRow[]> {
  const rows = await db.annotations.where('[traceId+queryId]').equals([traceId, queryId]).toArray();
  return rows.sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
}
