/** The retrieval worker (BM25 / embeddings / hybrid search), started on first use; `setup…/use…` context pair. */
import { getContext, setContext } from 'svelte';
import { createRetrievalClient, type RetrievalClient } from '../retrieval/client.ts';

export class RetrievalHost {
  #client: RetrievalClient | null = null;

  /** The worker proxy (the worker starts here the first time). */
  get api(): RetrievalClient['api'] {
    this.#client ??= createRetrievalClient();
    return this.#client.api;
  }

  dispose(): void {
    this.#client?.terminate();
    this.#client = null;
  }
}

const KEY = Symbol('retrieval');
export function setupRetrieval(): RetrievalHost {
  return setContext(KEY, new RetrievalHost());
}
export function useRetrieval(): RetrievalHost {
  return getContext<RetrievalHost>(KEY);
}
