/**
 * The newest attribution of every case that has one — a one-case run from the case
 * workspace, else the newest evaluation — and whether it agrees with the case's label,
 * for the "attribution agrees?" column of the case list.
 */
import { type CaseRun, EVALUATION_RUNS, type EvaluationRun } from '../../db/runs.ts';
import type { CaseRow, MemtraceDb } from '../../db/schema.ts';

export interface Attributed {
  type: string | null;
  op: string | null;
  method: string;
  /** Row id of the run it comes from (newer runs have larger ids). */
  runId: number;
}

export const caseKey = (traceId: string, queryId: string) => `${traceId}\u0000${queryId}`;

/** Newest attribution per case key. */
export async function latestAttributions(db: MemtraceDb): Promise<Map<string, Attributed>> {
  const out = new Map<string, Attributed>();
  const put = (key: string, a: Attributed) => {
    const had = out.get(key);
    if (!had || had.runId < a.runId) out.set(key, a);
  };
  const evaluation = (await db.runs.where('traceId').equals(EVALUATION_RUNS).last()) as
    | EvaluationRun
    | undefined;
  for (const c of evaluation?.result?.cases ?? [])
    put(caseKey(c.trace_id, c.query_id), {
      type: c.predicted_type,
      op: c.predicted_op,
      method: c.method,
      runId: evaluation?.id ?? 0,
    });
  const runs = (await db.runs
    .where('traceId')
    .notEqual(EVALUATION_RUNS)
    .filter((r) => r.kind === 'attribution' && r.status === 'done')
    .toArray()) as CaseRun[];
  for (const r of runs)
    put(caseKey(r.traceId, r.queryId), {
      type: r.result.predicted_type,
      op: r.result.predicted_op,
      method: r.result.method,
      runId: r.id ?? 0,
    });
  return out;
}

type Agreement = 'agrees' | 'type only' | 'disagrees' | 'unlabelled';

/** How an attribution compares with the case's label: same type and op, same type only, or not. */
export function agreement(c: Pick<CaseRow, 'errorType' | 'labelOpId'>, a: Attributed): Agreement {
  if (!c.errorType) return 'unlabelled';
  if (a.type !== c.errorType) return 'disagrees';
  // A label that names no op agrees on everything it says.
  return !c.labelOpId || a.op === c.labelOpId ? 'agrees' : 'type only';
}
