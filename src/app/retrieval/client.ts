/**
 * Starts the retrieval worker and returns its comlink proxy. Mount the search panel with it:
 *
 *   import { createRetrievalClient } from './retrieval/client.ts';
 *   import SearchPanel from './retrieval/SearchPanel.svelte';
 *   const retrieval = createRetrievalClient();
 *   <SearchPanel api={retrieval.api} trace={{ name, text }} onpick={(id) => …} />
 */
import * as Comlink from 'comlink';
import type { RetrievalApi } from '../../../workers/retrieval.worker.ts';

export type { RetrievalApi };

export interface RetrievalClient {
  api: Comlink.Remote<RetrievalApi>;
  terminate(): void;
}

export function createRetrievalClient(): RetrievalClient {
  const worker = new Worker(new URL('../../../workers/retrieval.worker.ts', import.meta.url), {
    type: 'module',
    name: 'memtrace-retrieval',
  });
  const api = Comlink.wrap<RetrievalApi>(worker);
  return {
    api,
    terminate() {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}

/** The files of a folder picked with `<input type="file" webkitdirectory>`, by path inside that folder. */
export function pickedFolderFiles(list: FileList): { name: string; files: Map<string, Blob> } {
  const files = new Map<string, Blob>();
  let name = 'model';
  for (const f of Array.from(list)) {
    const rel = f.webkitRelativePath || f.name;
    const parts = rel.split('/');
    if (parts.length > 1) name = parts[0];
    files.set(parts.length > 1 ? parts.slice(1).join('/') : rel, f);
  }
  return { name, files };
}
