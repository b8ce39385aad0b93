/**
 * Attribution runs and workbench labels.
 * - An evaluation run (many traces) is a `runs` row whose traceId is `EVALUATION_RUNS`;
 *   its result holds the per-case results and their summary.
 * - A one-case run is a `runs` row of its trace and question (kind `attribution`).
 * Accepting or correcting a result stores a label record (src/db/labels.ts).
 */

import { ATTRIBUTOR_VERSION } from '../core/attribution/index.light.ts';
import type { PathStep } from '../core/attribution/index.ts';
import type { BenchSummary, ScoredCase } from '../core/bench/index.ts';
import type { OpSummary } from '../core/graph/index.ts';
import { caseKey } from '../core/labels/index.ts';
import type { VerdictGrounds } from '../core/report/index.ts';
import type { MemtraceDb, RunRow } from './schema.ts';

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
  /** The label's and the predicted op named (absent in older rows): lists show them without their trace. */
  ops?: OpSummary[];
  /** What the verdict rests on (evidence-flow; absent in older rows and other engines' results). */
  grounds?: VerdictGrounds | null;
  /**
   * The evidence-flow attributor's version that made the verdict (`ATTRIBUTOR_VERSION`); null in
   * rows stored before versions (database upgrade 4); absent for other engines' verdicts.
   */
  attributor_version?: string | null;
}

/** Whether a stored evidence-flow verdict was made by another (older) attributor than this code's. */
export function isStaleVerdict(c: Pick<EvaluatedCase, 'method' | 'attributor_version'>): boolean {
  return c.method === 'evidence' && c.attributor_version !== ATTRIBUTOR_VERSION;
}

/**
 * Whether a stored verdict stands as this attributor's: evidence-flow's, made by this code's
 * version, with its grounds (verdicts stored before grounds existed are made again).
 */
export function isCurrentVerdict(
  c: Pick<EvaluatedCase, 'method' | 'attributor_version' | 'grounds'>,
): boolean {
  return c.method === 'evidence' && !isStaleVerdict(c) && c.grounds !== undefined;
}

/** Whether a stored run of many verdicts (a report: `attributorVersion`) was made by an older evidence-flow attributor. */
export function isStaleRun(row: { method: string; attributorVersion?: string | null }): boolean {
  return row.method === 'evidence' && row.attributorVersion !== ATTRIBUTOR_VERSION;
}

/** The evidence-flow verdicts of an evaluation run made by an older attributor (none: the run is current). */
export function staleCases(run: Pick<EvaluationRun, 'result'>): number {
  return run.result?.cases.filter(isStaleVerdict).length ?? 0;
}

export type RunStatus = 'running' | 'done' | 'cancelled' | 'failed';

export interface EvaluationRun extends RunRow {
  kind: 'evaluation';
  status: RunStatus;
  /**
   * `labelChoice`: which labels it scored against (core/labels; absent in older rows = `file`);
   * `matcher`: the evidence-flow matcher layer it ran with (absent in older rows: `lexical`).
   */
  parameters: { traceIds: string[]; engine: string; labelChoice?: string; matcher?: string };
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

/** A one-case verdict as its stored `runs` row. */
function caseRunRow(result: EvaluatedCase, createdAt: number): CaseRun {
  return {
    traceId: result.trace_id,
    queryId: result.query_id,
    kind: 'attribution',
    method: result.method,
    status: 'done',
    createdAt,
    result,
  };
}

export async function saveCaseRun(db: MemtraceDb, result: EvaluatedCase): Promise<number> {
  return (await db.runs.add(caseRunRow(result, Date.now()))) as number;
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

/** Stores many one-case verdicts at once (one transaction). */
export async function saveCaseRuns(db: MemtraceDb, results: readonly EvaluatedCase[]): Promise<void> {
  const now = Date.now();
  await db.runs.bulkAdd(results.map((r) => caseRunRow(r, now)));
}

/**
 * The current evidence-flow verdicts stored for these traces (`isCurrentVerdict`), by `caseKey`:
 * a case's newest one-case run (what its workspace shows), else its verdict in the newest
 * evaluation run that holds one. An older attributor's verdicts are left out: they are made again.
 */
export async function heldVerdicts(
  db: MemtraceDb,
  traceIds: readonly string[],
): Promise<Map<string, EvaluatedCase>> {
  const wanted = new Set(traceIds);
  const out = new Map<string, EvaluatedCase>();
  const key = (c: EvaluatedCase) => caseKey({ graphId: c.trace_id, queryId: c.query_id });
  // Oldest first, so a newer verdict replaces an older one; one-case runs after evaluations.
  for (const run of (await listEvaluationRuns(db)).reverse())
    for (const c of run.result?.cases ?? [])
      if (wanted.has(c.trace_id) && isCurrentVerdict(c)) out.set(key(c), c);
  const rows = (await db.runs
    .where('traceId')
    .anyOf([...wanted])
    .toArray()) as CaseRun[];
  rows.sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  for (const r of rows)
    if (r.kind === 'attribution' && r.status === 'done' && isCurrentVerdict(r.result))
      out.set(key(r.result), r.result);
  return out;
}
