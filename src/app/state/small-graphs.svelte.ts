/**
 * Main-thread graphs of small traces, for drawings that take a TraceGraph (the
 * neighbourhood view). Only traces up to MAX_BYTES are opened here (parsing 8 MB
 * costs well under 100 ms); bigger ones stay in the analysis worker only.
 */
import { getContext, setContext } from 'svelte';
import { buildGraph, type TraceGraph } from '../../core/graph/graph.ts';
import { parseTraceText } from '../../core/trace/import.ts';
import { getOriginal, getTrace } from '../../db/repo.ts';
import type { Services } from './services.ts';

export const MAX_BYTES = 8 * 1024 * 1024;

export class SmallGraphs {
  /** Keyed by trace id and import time, so a replaced trace is opened afresh. */
  readonly #cache = new Map<string, Promise<TraceGraph | null>>();
  constructor(private readonly services: Services) {}

  /** The graph of a stored trace when it is small enough, else null. */
  async get(traceId: string): Promise<TraceGraph | null> {
    const meta = await getTrace(this.services.db, traceId);
    if (!meta || meta.bytes > MAX_BYTES) return null;
    const key = `${traceId}@${meta.importedAt}`;
    let p = this.#cache.get(key);
    if (!p) {
      p = this.#open(traceId, meta.file);
      this.#cache.set(key, p);
      while (this.#cache.size > 2) this.#cache.delete(this.#cache.keys().next().value as string);
    }
    return p;
  }

  async #open(traceId: string, file: string): Promise<TraceGraph | null> {
    const blob = await getOriginal(this.services.db, traceId);
    if (!blob) return null;
    const parsed = parseTraceText(await blob.text(), { file });
    return parsed.ok ? buildGraph(parsed.doc) : null;
  }
}

const KEY = Symbol('small-graphs');
export function setupSmallGraphs(services: Services): SmallGraphs {
  return setContext(KEY, new SmallGraphs(services));
}
export function useSmallGraphs(): SmallGraphs {
  return getContext<SmallGraphs>(KEY);
}
