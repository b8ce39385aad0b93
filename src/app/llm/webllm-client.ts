/**
 * Page side of WebLLM: the engine and its library live in workers/webllm.worker.ts (so
 * `@mlc-ai/web-llm` ships once, in the worker); this client starts that worker on first
 * use and gives the page a `WebLLMEngine` whose completions stream from it, model loading
 * with progress, and the model cache.
 */
import type { InitProgressReport } from '@mlc-ai/web-llm';
import * as Comlink from 'comlink';
import type { WebLLMWorkerApi } from '../../../workers/webllm.worker.ts';
import type { WebLLMEngine } from '../../core/llm/index.ts';

export interface LoadedEngine {
  engine: WebLLMEngine;
  modelId: string;
  unload(): Promise<void>;
}

/** An engine whose `chat.completions.create` streams chunks pulled from the worker. */
export function remoteEngine(api: Comlink.Remote<WebLLMWorkerApi>): WebLLMEngine {
  return {
    chat: {
      completions: {
        async create(request) {
          const stream = await api.start(request);
          return {
            [Symbol.asyncIterator]: () => ({
              next: () => api.next(stream),
              async return() {
                await api.cancel(stream);
                return { done: true, value: undefined };
              },
            }),
          };
        },
      },
    },
    interruptGenerate() {
      void api.interrupt();
    },
  };
}

/** The page's WebLLM worker, started on first use and kept (one engine at a time). */
export class WebLLMClient {
  #api: Comlink.Remote<WebLLMWorkerApi> | null = null;

  #worker(): Comlink.Remote<WebLLMWorkerApi> {
    this.#api ??= Comlink.wrap<WebLLMWorkerApi>(
      new Worker(new URL('../../../workers/webllm.worker.ts', import.meta.url), { type: 'module' }),
    );
    return this.#api;
  }

  async load(
    modelId: string,
    opts: { contextWindow: number; onProgress?: (r: InitProgressReport) => void },
  ): Promise<LoadedEngine> {
    const api = this.#worker();
    const onProgress = opts.onProgress ? Comlink.proxy(opts.onProgress) : undefined;
    await api.load(modelId, opts.contextWindow, onProgress);
    return { engine: remoteEngine(api), modelId, unload: () => api.unload().catch(() => {}) };
  }

  async isCached(modelId: string): Promise<boolean> {
    try {
      return await this.#worker().isCached(modelId);
    } catch {
      return false;
    }
  }

  deleteCached(modelId: string): Promise<void> {
    return this.#worker().deleteCached(modelId);
  }
}
