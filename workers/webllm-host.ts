/**
 * What the WebLLM worker exposes (`WebLLMWorkerApi`), over any engine with MLC's interface:
 * loading with progress, the model cache, and completions streamed chunk by chunk (`start`
 * a stream, pull it with `next`, `cancel` it early) — pulled, so the page reads at its own
 * pace and an engine error reaches the `next` call that was waiting for it.
 */
import type {
  ChatCompletionChunk,
  ChatCompletionRequestStreaming,
  InitProgressReport,
} from '@mlc-ai/web-llm';
import type { WebLLMEngine } from '../src/core/llm/index.ts';

export interface WebLLMWorkerApi {
  /** Loads a prebuilt model (downloading it into the browser's cache the first time). */
  load(modelId: string, contextWindow: number, onProgress?: (r: InitProgressReport) => void): Promise<void>;
  unload(): Promise<void>;
  /** Starts a streamed completion; returns its id for `next` / `cancel`. */
  start(request: ChatCompletionRequestStreaming): Promise<number>;
  next(stream: number): Promise<IteratorResult<ChatCompletionChunk, undefined>>;
  cancel(stream: number): Promise<void>;
  interrupt(): Promise<void>;
  isCached(modelId: string): Promise<boolean>;
  deleteCached(modelId: string): Promise<void>;
}

/** The engine the host drives (`MLCEngine` in the worker). */
export interface HostEngine extends WebLLMEngine {
  setInitProgressCallback(cb: (r: InitProgressReport) => void): void;
  reload(modelId: string, chatOpts?: { context_window_size?: number }): Promise<void>;
  unload(): Promise<void>;
}

/** WebLLM's model cache functions (`hasModelInCache`, `deleteModelAllInfoInCache`). */
interface ModelCache {
  has(modelId: string): Promise<boolean>;
  delete(modelId: string): Promise<void>;
}

export function webllmHost(engine: HostEngine, cache: ModelCache): WebLLMWorkerApi {
  const streams = new Map<number, AsyncIterator<ChatCompletionChunk>>();
  let lastStream = 0;
  const finished = { done: true, value: undefined } as const;
  return {
    async load(modelId, contextWindow, onProgress) {
      // Across comlink each report is a call back to the page: wait for them all, so no
      // report arrives after `load` has resolved.
      const reports: Promise<unknown>[] = [];
      engine.setInitProgressCallback((r) => {
        if (onProgress) reports.push(Promise.resolve(onProgress(r)));
      });
      await engine.reload(modelId, { context_window_size: contextWindow });
      await Promise.all(reports);
    },
    unload: () => engine.unload(),
    async start(request) {
      const chunks = await engine.chat.completions.create(request);
      streams.set(++lastStream, chunks[Symbol.asyncIterator]());
      return lastStream;
    },
    async next(stream) {
      const it = streams.get(stream);
      if (!it) return finished;
      try {
        const r = await it.next();
        if (!r.done) return r;
        streams.delete(stream);
        return finished;
      } catch (e) {
        streams.delete(stream);
        throw e;
      }
    },
    async cancel(stream) {
      const it = streams.get(stream);
      streams.delete(stream);
      await it?.return?.();
    },
    async interrupt() {
      engine.interruptGenerate();
    },
    isCached: (modelId) => cache.has(modelId),
    deleteCached: (modelId) => cache.delete(modelId),
  };
}
