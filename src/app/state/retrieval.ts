/**
 * Ranked retrieval as the search panel uses it: the embedder worker chooses the embedder,
 * the engine worker indexes and ranks the open trace. A small proxy where the newest task
 * wins: starting one (or `cancel`) aborts the one running; a model load likewise aborts the
 * older load. `setup…/use…` context pair.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type {
  DocScope,
  EmbedderInfo,
  EmbeddingSetting,
  IndexInfo,
  SearchMethod,
  ServiceHit,
  ServiceProgress,
} from '../../../workers/api.ts';
import type { Services } from './services.ts';

export class RankedRetrieval {
  #task: AbortController | null = null;
  #loading: AbortController | null = null;

  constructor(private readonly services: Services) {}

  /** Aborts the running task (an index build, a search) and a model still loading. */
  cancel(): void {
    this.#task?.abort();
    this.#loading?.abort();
  }

  #next(): AbortSignal {
    this.#task?.abort();
    this.#task = new AbortController();
    return this.#task.signal;
  }

  embedderInfo(): Promise<EmbedderInfo> {
    return Promise.resolve(this.services.embedder.embedderInfo());
  }

  setEmbedding(setting: EmbeddingSetting, onProgress?: (p: ServiceProgress) => void): Promise<EmbedderInfo> {
    this.#loading?.abort();
    this.#loading = new AbortController();
    return this.services.embedder.setEmbedding(
      setting,
      onProgress && Comlink.proxy(onProgress),
      this.#loading.signal,
    );
  }

  buildIndex(
    traceId: string,
    scope: DocScope,
    onProgress?: (p: ServiceProgress) => void,
  ): Promise<IndexInfo> {
    return this.services.engine.buildIndex(
      traceId,
      scope,
      onProgress && Comlink.proxy(onProgress),
      this.#next(),
    );
  }

  search(
    traceId: string,
    query: string,
    options: { method?: SearchMethod; k?: number },
  ): Promise<ServiceHit[]> {
    return this.services.engine.rankedSearch(traceId, query, options, this.#next());
  }
}

const KEY = Symbol('retrieval');
export function setupRetrieval(services: Services): RankedRetrieval {
  return setContext(KEY, new RankedRetrieval(services));
}
export function useRetrieval(): RankedRetrieval {
  return getContext<RankedRetrieval>(KEY);
}
