/** `setupLlm()` in the root component, `useLlm()` below it (svelte context pair). */
import { getContext, setContext } from 'svelte';
import { IndexedDbCacheStore } from '../../db/llm-cache.ts';
import { LlmSettings } from './settings.svelte.ts';
import { WebLLMState } from './webllm.svelte.ts';

interface LlmContext {
  settings: LlmSettings;
  webllm: WebLLMState;
}

const KEY = Symbol('memtrace.llm');

/** Create the stores for this page (browser storage, IndexedDB cache, navigator.gpu) and provide them. */
export function setupLlm(): LlmContext {
  const webllm = new WebLLMState((navigator as Navigator & { gpu?: unknown }).gpu);
  const settings = new LlmSettings({
    storage: localStorage,
    cache: new IndexedDbCacheStore(),
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
