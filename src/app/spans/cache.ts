/**
 * The span rows of the last traces asked for, kept in the page. They are asked for as soon as
 * a trace is stored and when its trace page opens — before the engine starts its attribution
 * warm-up, which can hold the worker for seconds on a big trace — so the span view draws at
 * once. A trace imported again is asked for again (`refreshSpanTable`).
 */
import type { EngineApi, SpanTable } from '../../../workers/api.ts';

type Asker = Pick<EngineApi, 'spanTable'>;

const KEEP = 2;
const cache = new Map<string, Promise<SpanTable>>();

/** The span rows of a stored trace, asked of the engine once (the last few are kept). */
export function spanTableOf(analysis: Asker, traceId: string): Promise<SpanTable> {
  let p = cache.get(traceId);
  if (!p) {
    p = analysis.spanTable(traceId);
    // A failed request (a deleted trace) is asked again next time.
    p.catch(() => cache.delete(traceId));
  }
  cache.delete(traceId);
  cache.set(traceId, p);
  while (cache.size > KEEP) cache.delete(cache.keys().next().value as string);
  return p;
}

/** Asks again for the rows of a trace just stored (a new one, or one replaced by its new import). */
export function refreshSpanTable(analysis: Asker, traceId: string): void {
  cache.delete(traceId);
  void spanTableOf(analysis, traceId);
}
