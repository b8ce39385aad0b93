/** A trace's cases as the database stores them (import, a QA file joined, file labels restored). */
import type { TraceCase } from '../src/core/cases/index.ts';
import type { CaseRow } from '../src/db/schema.ts';

/** Case rows of a trace: its cases in order, each with the file's own label. */
export function caseRowsOf(traceId: string, system: string | null, cases: TraceCase[]): CaseRow[] {
  return cases.map(({ graphId: _graphId, label, ...fields }, order) => ({
    traceId,
    order,
    system,
    ...fields,
    errorType: label?.errorType ?? null,
    labelOpId: label?.opId ?? null,
    labelSource: label?.source ?? null,
    labelReason: label?.reason ?? null,
  }));
}
