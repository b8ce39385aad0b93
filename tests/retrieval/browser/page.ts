/**
 * Test page: drives the real embedder worker (workers/embedder.worker.ts) through comlink, and
 * ranks a trace the way the engine worker does (`TraceRetrieval` with vectors from that
 * worker, indexes kept in IndexedDB).
 */
import * as Comlink from 'comlink';
import { openTrace } from '../../../src/core/graph/index.ts';
import { TraceRetrieval } from '../../../src/core/retrieval/index.ts';
import '../../../workers/abort-transfer.ts';
import type { EmbedderApi } from '../../../workers/api.ts';
import { remoteEmbedder } from '../../../workers/remote-embedder.ts';
import { idbIndexStore } from '../../../workers/retrieval-store.ts';

const api = Comlink.wrap<EmbedderApi>(
  new Worker(new URL('../../../workers/embedder.worker.ts', import.meta.url), { type: 'module' }),
);

const w = window as unknown as Record<string, unknown>;
w.memtraceTest = {
  async embedServed(baseUrl: string, name: string, texts: string[]) {
    const info = await api.setEmbedding({ kind: 'served', name, baseUrl });
    const v = await api.embed(texts);
    return { info, vectors: Array.from(v) };
  },
  async searchTrace(text: string, name: string, query: string) {
    await api.setEmbedding({ kind: 'fallback' });
    const r = openTrace(text, { file: name });
    if (!r.ok) return { opened: { ok: false } };
    const opened = { ok: true, issues: r.issues.length, variables: r.graph.varId.length };
    const embedder = await remoteEmbedder(api);
    const retrieval = new TraceRetrieval(r.graph, name, { store: idbIndexStore() });
    const first = await retrieval.buildIndex('messages', embedder);
    const second = await retrieval.buildIndex('messages', embedder);
    const hits = await retrieval.search(query, { method: 'hybrid', k: 5, embedder });
    return { opened, first, second, hits: hits.map((h) => [h.full_node_id, h.score]) };
  },
};
w.memtraceReady = true;
