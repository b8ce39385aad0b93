/// <reference types="vite/client" />
/**
 * The retrieval worker: hosts RetrievalService (src/core/retrieval/service.ts) behind
 * comlink. Indexes persist in IndexedDB (retrieval-store.ts). onnxruntime-web's wasm
 * files are bundled by Vite and served by the app (never the CDN default).
 *
 *   const api = Comlink.wrap<RetrievalApi>(new Worker(new URL('…/workers/retrieval.worker.ts',
 *     import.meta.url), { type: 'module' }));
 */
import * as Comlink from 'comlink';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { GpuProbe } from '../src/core/llm/webllm-models.ts';
import { RetrievalService } from '../src/core/retrieval/service.ts';
import { getOriginal } from '../src/db/repo.ts';
import { openDb } from '../src/db/schema.ts';
import { idbIndexStore } from './retrieval-store.ts';

const abs = (u: string) => new URL(u, self.location.href).href;

const service = new RetrievalService({
  store: typeof indexedDB === 'undefined' ? undefined : idbIndexStore(),
  wasmPaths: { mjs: abs(ortMjs), wasm: abs(ortWasm) },
  gpu: (navigator as Navigator & { gpu?: GpuProbe }).gpu,
  now: () => performance.now(),
});

/** What the UI calls (every method returns a promise through comlink). */
export type RetrievalApi = Pick<
  RetrievalService,
  'setEmbedding' | 'embedderInfo' | 'loadTrace' | 'buildIndex' | 'search' | 'cases' | 'startPoints' | 'cancel'
> & {
  /** Embeds texts with the current embedder (for checks and the evidence-flow attributor). */
  embed(texts: string[]): Promise<Float32Array>;
  /**
   * Opens a stored trace by graph_id, reading its file from the app's database here in
   * the worker (the page never holds the text). Opening the trace already open is free.
   */
  openStored(traceId: string): Promise<{ ok: boolean; issues: number; variables: number }>;
};

let db: ReturnType<typeof openDb> | null = null;
let opened: { traceId: string; result: Promise<{ ok: boolean; issues: number; variables: number }> } | null =
  null;

const api = {
  setEmbedding: service.setEmbedding.bind(service),
  embedderInfo: service.embedderInfo.bind(service),
  loadTrace(text: string, name: string) {
    opened = null;
    return service.loadTrace(text, name);
  },
  buildIndex: service.buildIndex.bind(service),
  search: service.search.bind(service),
  cases: service.cases.bind(service),
  startPoints: service.startPoints.bind(service),
  cancel: service.cancel.bind(service),
  async embed(texts: string[]) {
    const v = await service.embed(texts);
    return Comlink.transfer(v, [v.buffer]);
  },
  openStored(traceId: string) {
    if (opened?.traceId === traceId) return opened.result;
    const result = (async () => {
      db ??= openDb();
      const blob = await getOriginal(db, traceId);
      if (!blob) throw new Error(`trace ${traceId} is not stored`);
      // The index slot is keyed by graph_id, so a trace's stored index is found again after a reload.
      return service.loadTrace(await blob.text(), traceId);
    })();
    opened = { traceId, result };
    result.catch(() => {
      if (opened?.result === result) opened = null;
    });
    return result;
  },
} satisfies RetrievalApi;

Comlink.expose(api);
