/** `setupLlm()` in the root component, `useLlm()` below it (svelte context pair). */
import { getContext, setContext } from 'svelte';
import type { CacheStore } from '../../core/llm/index.ts';
import { LlmSettings } from './settings.svelte.ts';
import { WebLLMState } from './webllm.svelte.ts';

interface LlmContext {
  settings: LlmSettings;
  webllm: WebLLMState;
}

const KEY = Symbol('memtrace.llm');

/**
 * Create the stores for this page (browser storage, navigator.gpu) and provide them. `cache` is
 * the response cache (the app's is kept by the engine worker, the database's one writer; none:
 * caching cannot be turned on).
 */
export function setupLlm(cache?: CacheStore): LlmContext {
  const webllm = new WebLLMState((navigator as Navigator & { gpu?: unknown }).gpu);
  const settings = new LlmSettings({
    storage: localStorage,
    cache,
    engineFor: (p) => webllm.engineFor(p.model),
  });
  const ctx = { settings, webllm };
  setContext(KEY, ctx);
  return ctx;
}

export function useLlm(): LlmContext {
  const ctx = getContext<LlmContext | undefined>(KEY);
  if (!ctx) throw new Error('useLlm() needs setupLlm() in a parent component');
  return ctx;
}
