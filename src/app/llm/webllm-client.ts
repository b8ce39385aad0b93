/**
 * Page side of WebLLM: starts workers/webllm.worker.ts, loads a model with progress, and
 * manages the model cache. `@mlc-ai/web-llm` is imported lazily, so the app bundle does not
 * grow until someone uses an in-browser model.
 */
import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { WebLLMEngine } from '../../core/llm/webllm.ts';

export interface LoadedEngine {
  engine: WebLLMEngine;
  modelId: string;
  unload(): Promise<void>;
}

export async function loadWebLLM(
  modelId: string,
  opts: { contextWindow: number; onProgress?: (r: InitProgressReport) => void },
): Promise<LoadedEngine> {
  const webllm = await import('@mlc-ai/web-llm');
  const worker = new Worker(new URL('../../../workers/webllm.worker.ts', import.meta.url), {
    type: 'module',
  });
  try {
    const engine = await webllm.CreateWebWorkerMLCEngine(
      worker,
      modelId,
      { initProgressCallback: opts.onProgress },
      { context_window_size: opts.contextWindow },
    );
    return {
      engine,
      modelId,
      async unload() {
        await engine.unload().catch(() => {});
        worker.terminate();
      },
    };
  } catch (e) {
    worker.terminate();
    throw e;
  }
}

export async function isModelCached(modelId: string): Promise<boolean> {
  const webllm = await import('@mlc-ai/web-llm');
  try {
    return await webllm.hasModelInCache(modelId);
  } catch {
    return false;
  }
}

export async function deleteCachedModel(modelId: string): Promise<void> {
  const webllm = await import('@mlc-ai/web-llm');
  await webllm.deleteModelAllInfoInCache(modelId);
}
