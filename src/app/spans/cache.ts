/**
 * The span rows of the last traces asked for, kept in the page: the trace page asks for them
 * as it opens (before the engine starts its attribution warm-up, which can hold the worker for
 * seconds on a big trace), so the span view draws at once. Keyed by trace id and import time,
 * so a trace imported again is asked for again.
 */
import type { EngineApi, SpanTable } from '../../../workers/api.ts';

const KEEP = 2;
const cache = new Map<string, Promise<SpanTable>>();

/** The span rows of a stored trace (`importedAt`: its `TraceMeta.importedAt`), asked of the engine once. */
export function spanTableOf(
  analysis: Pick<EngineApi, 'spanTable'>,
  traceId: string,
  importedAt: number,
): Promise<SpanTable> {
  const key = `${importedAt}\u0000${traceId}`;
  let p = cache.get(key);
  if (!p) {
    p = analysis.spanTable(traceId);
    // A failed request is asked again next time.
    p.catch(() => cache.delete(key));
  }
  cache.delete(key);
  cache.set(key, p);
  while (cache.size > KEEP) cache.delete(cache.keys().next().value as string);
  return p;
}
