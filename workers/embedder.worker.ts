/// <reference types="vite/client" />
/**
 * The embedder worker: texts in, vectors out. It holds one embedder (none, the hashed
 * fallback or a transformers.js model) and never a trace; the engine worker asks it for
 * vectors over a port the page connects (`connect`). onnxruntime-web's wasm files are
 * bundled by Vite and served by the app (never the CDN default).
 */
import * as Comlink from 'comlink';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { GpuProbe } from '../src/core/llm/index.ts';
import { EmbedderHost } from '../src/core/retrieval/index.ts';
import './abort-transfer.ts';
import type { EmbedderApi } from './api.ts';

const abs = (u: string) => new URL(u, self.location.href).href;

const host = new EmbedderHost({
  wasmPaths: { mjs: abs(ortMjs), wasm: abs(ortWasm) },
  gpu: (navigator as Navigator & { gpu?: GpuProbe }).gpu,
});

const api = {
  setEmbedding: host.setEmbedding.bind(host),
  embedderInfo: host.embedderInfo.bind(host),
  async embed(texts: string[], signal?: AbortSignal) {
    const v = await host.embed(texts, signal);
    return Comlink.transfer(v, [v.buffer]);
  },
  connect(port: MessagePort) {
    Comlink.expose(api, port);
  },
} satisfies EmbedderApi;

Comlink.expose(api);
