/**
 * Provider profiles (what the settings UI edits and the CLI flags describe) and
 * `createChatModel`, which turns a profile plus a key into a robust, accounted,
 * optionally cached ChatModel. Profiles never hold keys; keys travel separately.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { metered, type UsageMeter } from './accounting.ts';
import { AnthropicChatModel } from './anthropic.ts';
import { type CacheStore, cached } from './cache.ts';
import { LlmError } from './errors.ts';
import { OpenAICompatibleChatModel } from './openai.ts';
import { redactDeep } from './redact.ts';
import { type RobustOptions, robust } from './robust.ts';
import { type ChatModel, type FetchLike, providerKinds } from './types.ts';
import { WebLLMChatModel, type WebLLMEngine } from './webllm.ts';
import { findWebLLMModel } from './webllm-models.ts';

// zod's tree-shakable `mini` build: the page validates profiles at start-up, and full zod
// (~80 KiB) would sit in the main chunk for these dozen fields. English messages, as full zod.
z.config(en());

/**
 * The schema a stored or imported provider profile must match (zod mini); defaults fill `baseUrl`, `model`
 * and `rememberKey`.
 */
export const ProviderProfileSchema = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  kind: z.enum(providerKinds),
  /** OpenAI-compatible / Anthropic endpoint (unused for WebLLM). */
  baseUrl: z._default(z.string(), ''),
  /** Model name, or for WebLLM a prebuilt model id. */
  model: z._default(z.string(), ''),
  /** Keep the key in this browser's storage (off: memory only, gone on reload). */
  rememberKey: z._default(z.boolean(), false),
  jsonMode: z.optional(z.enum(['json_object', 'json_schema', 'none'])),
  streamUsage: z.optional(z.boolean()),
  contextWindow: z.optional(z.int().check(z.positive())),
  timeoutMs: z.optional(z.int().check(z.nonnegative())),
  /** A stream that sends nothing for this long fails (default 60 s; 0 = no limit). */
  idleTimeoutMs: z.optional(z.int().check(z.nonnegative())),
  /** An answer may be at most this many bytes (default 32 MiB). */
  maxResponseBytes: z.optional(z.int().check(z.positive())),
  retries: z.optional(z.int().check(z.minimum(0), z.maximum(10))),
  concurrency: z.optional(z.int().check(z.minimum(1), z.maximum(64))),
});
/** A provider profile: which provider and model, and how calls to it are made. Never holds a key. */
export type ProviderProfile = z.infer<typeof ProviderProfileSchema>;

/**
 * A starting point for a new profile: a provider, its usual base URL and model, and whether it needs a
 * key.
 */
export interface Preset {
  label: string;
  kind: (typeof providerKinds)[number];
  baseUrl: string;
  model: string;
  needsKey: boolean;
}

/** Starting points for the profile editor. Local servers need no key. */
export const PRESETS: readonly Preset[] = [
  {
    label: 'OpenAI',
    kind: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    needsKey: true,
  },
  {
    label: 'OpenRouter',
    kind: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'qwen/qwen3-8b',
    needsKey: true,
  },
  {
    label: 'Anthropic',
    kind: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    model: 'claude-haiku-4-5',
    needsKey: true,
  },
  {
    label: 'Ollama',
    kind: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'qwen3:8b',
    needsKey: false,
  },
  {
    label: 'llama.cpp server',
    kind: 'openai',
    baseUrl: 'http://127.0.0.1:8080/v1',
    model: 'default',
    needsKey: false,
  },
  {
    label: 'LM Studio',
    kind: 'openai',
    baseUrl: 'http://127.0.0.1:1234/v1',
    model: 'qwen3-8b',
    needsKey: false,
  },
  {
    label: 'vLLM',
    kind: 'openai',
    baseUrl: 'http://127.0.0.1:8000/v1',
    model: 'Qwen/Qwen3-8B',
    needsKey: false,
  },
  {
    label: 'In-browser (WebLLM)',
    kind: 'webllm',
    baseUrl: '',
    model: 'Qwen3-4B-q4f16_1-MLC',
    needsKey: false,
  },
];

/**
 * What `createChatModel` adds to a profile: the key, fetch, retry settings, cache, meter and (WebLLM) the
 * engine.
 */
export interface CreateOptions {
  apiKey?: string;
  fetch?: FetchLike;
  /** Retries, timeouts, concurrency (defaults from the profile, then robust()'s). */
  robust?: RobustOptions;
  /** Turn the response cache on by passing a store. */
  cache?: CacheStore;
  /** Record every call's tokens here. */
  meter?: UsageMeter;
  label?: string;
  /** Running in a web page (Anthropic's browser header). */
  browser?: boolean;
  /** WebLLM only: the loaded engine (see src/app/llm/webllm-client.ts). */
  engine?: WebLLMEngine;
}

/** The raw provider for a profile (one attempt per call). */
function createProvider(profile: ProviderProfile, opts: CreateOptions = {}): ChatModel {
  const apiKey = opts.apiKey || undefined;
  switch (profile.kind) {
    case 'openai':
      return new OpenAICompatibleChatModel({
        baseUrl: profile.baseUrl,
        model: profile.model,
        apiKey,
        jsonMode: profile.jsonMode,
        streamUsage: profile.streamUsage,
        contextWindow: profile.contextWindow,
        fetch: opts.fetch,
        idleTimeoutMs: profile.idleTimeoutMs,
        maxResponseBytes: profile.maxResponseBytes,
      });
    case 'anthropic':
      return new AnthropicChatModel({
        baseUrl: profile.baseUrl || undefined,
        model: profile.model,
        apiKey,
        contextWindow: profile.contextWindow,
        browser: opts.browser,
        fetch: opts.fetch,
        idleTimeoutMs: profile.idleTimeoutMs,
        maxResponseBytes: profile.maxResponseBytes,
      });
    case 'webllm': {
      if (!opts.engine)
        throw new LlmError(
          'unavailable',
          'The in-browser model is not loaded yet: load it in the LLM settings first.',
        );
      const m = findWebLLMModel(profile.model);
      return new WebLLMChatModel({
        engine: opts.engine,
        model: profile.model,
        contextWindow: profile.contextWindow ?? m?.contextWindow ?? 4096,
        nativeTools: m?.nativeTools,
      });
    }
  }
}

/** Provider → robust (retries, timeout, concurrency) → cache (if given) → meter (if given). */
export function createChatModel(profile: ProviderProfile, opts: CreateOptions = {}): ChatModel {
  let m = createProvider(profile, opts);
  if (profile.kind !== 'webllm')
    m = robust(m, {
      retries: profile.retries,
      timeoutMs: profile.timeoutMs,
      concurrency: profile.concurrency,
      ...opts.robust,
    });
  else if (opts.robust?.timeoutMs) m = robust(m, { retries: 0, concurrency: 1, ...opts.robust });
  if (opts.cache) m = cached(m, opts.cache, { endpoint: profile.baseUrl || undefined });
  if (opts.meter) m = metered(m, opts.meter, { label: opts.label });
  return m;
}

/** Settings as JSON for export: profiles only, and anything key-like stripped or redacted. */
export function exportSettings(
  profiles: readonly ProviderProfile[],
  secrets: readonly string[] = [],
): string {
  return JSON.stringify({ version: 1, profiles: redactDeep(profiles, secrets) }, null, 2);
}

/** Read exported settings back (invalid profiles are dropped with a reason). */
export function importSettings(text: string): { profiles: ProviderProfile[]; problems: string[] } {
  const problems: string[] = [];
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    return { profiles: [], problems: [`not JSON: ${(e as Error).message}`] };
  }
  const list = (j as { profiles?: unknown[] })?.profiles;
  if (!Array.isArray(list)) return { profiles: [], problems: ['no "profiles" list'] };
  const profiles: ProviderProfile[] = [];
  list.forEach((p, i) => {
    const r = ProviderProfileSchema.safeParse(p);
    if (r.success) profiles.push(r.data);
    else problems.push(`profile ${i + 1}: ${z.prettifyError(r.error)}`);
  });
  return { profiles, problems };
}
