/**
 * The optimisation loop's runs in the database, kept by the engine (the database's one writer)
 * for the systems worker, which runs the loop: `runs` rows of kind `optimize` under the traceId
 * `OPTIMIZE_RUNS`, the loop's state saved after every round.
 */
import type { MemtraceDb } from '../src/db/schema.ts';
import type { OptimizeRun, OptimizeRunStore } from './optimize-service.ts';

/** The traceId of optimisation runs (they span conversations, not traces; the Optimise view lists them by it). */
export const OPTIMIZE_RUNS = '*optimize';

/** The optimisation runs of `db`, as the systems worker asks for them (`now`: the clock of new rows). */
export function optimizeRuns(db: MemtraceDb, now: () => number = Date.now): OptimizeRunStore {
  return {
    async optimizeRun(id) {
      const row = await db.runs.get(id);
      return row?.kind === 'optimize' ? (row as OptimizeRun) : undefined;
    },
    async startOptimizeRun(request) {
      const row: OptimizeRun = {
        traceId: OPTIMIZE_RUNS,
        queryId: '',
        kind: 'optimize',
        method: 'evidence',
        status: 'running',
        createdAt: now(),
        request,
        state: null,
      };
      row.id = (await db.runs.add(row)) as number;
      return row;
    },
    async saveOptimizeState(id, state) {
      await db.runs.update(id, { state, status: state.status });
    },
  };
}
