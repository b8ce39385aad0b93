/** The embedder worker's current embedder, seen from another worker as a core `Embedder`. */
import type * as Comlink from 'comlink';
import type { Embedder } from '../src/core/retrieval/index.ts';
import type { EmbedderApi } from './api.ts';

/** The embedder in use in the embedder worker (null: none, BM25 only); `embed` calls it over its port. */
export async function remoteEmbedder(remote: Comlink.Remote<EmbedderApi>): Promise<Embedder | null> {
  const info = await remote.embedderInfo();
  if (info.kind === 'none' || !info.id) return null;
  return {
    id: info.id,
    kind: info.kind,
    dims: info.dims,
    label: info.label,
    embed: (texts, options) => remote.embed([...texts], options?.signal),
  };
}
