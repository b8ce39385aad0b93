/**
 * WebLLM's engine in its own worker — the only place `@mlc-ai/web-llm` is loaded, so the
 * library ships once in the build. The page (src/app/llm/webllm-client.ts) drives it
 * through comlink (`WebLLMWorkerApi`, workers/webllm-host.ts).
 */
import { deleteModelAllInfoInCache, hasModelInCache, MLCEngine } from '@mlc-ai/web-llm';
import * as Comlink from 'comlink';
import { type WebLLMWorkerApi, webllmHost } from './webllm-host.ts';

export type { WebLLMWorkerApi };

const api = webllmHost(new MLCEngine(), {
  has: (modelId) => hasModelInCache(modelId),
  delete: (modelId) => deleteModelAllInfoInCache(modelId),
}) satisfies WebLLMWorkerApi;
Comlink.expose(api);
