/** Test page: drives the real retrieval worker (workers/retrieval.worker.ts) through comlink. */
import * as Comlink from 'comlink';
import type { RetrievalApi } from '../../../workers/retrieval.worker.ts';

const api = Comlink.wrap<RetrievalApi>(
  new Worker(new URL('../../../workers/retrieval.worker.ts', import.meta.url), { type: 'module' }),
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
    const opened = await api.loadTrace(text, name);
    const first = await api.buildIndex('messages');
    const second = await api.buildIndex('messages');
    const hits = await api.search(query, { method: 'hybrid', k: 5 });
    return { opened, first, second, hits: hits.map((h) => [h.full_node_id, h.score]) };
  },
};
w.memtraceReady = true;
