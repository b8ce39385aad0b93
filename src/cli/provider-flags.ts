/**
 * Provider flags shared by every command that talks to an LLM (`chat`, later `attribute`, …):
 *
 *   --provider openai|anthropic  --base-url URL  --model M  --api-key-env NAME
 *   --timeout MS  --retries N  --concurrency N  --cache-dir DIR
 *
 * Spread `PROVIDER_FLAGS` into a command's options and call `chatModelFromFlags(values, io)`.
 * The key is read from the environment variable named by --api-key-env (never from a
 * flag, so it stays out of shell history and process lists).
 */
import { resolve } from 'node:path';
import { FolderCacheStore } from '../core/llm/cache-folder.node.ts';
import {
  type ChatModel,
  createChatModel,
  type ProviderProfile,
  ProviderProfileSchema,
  type UsageMeter,
  type UsageTotals,
} from '../core/llm/index.ts';
import { flags, oneOf, type ValuesOf } from './command.ts';
import { CliError, type CliIO } from './io.ts';

/** The providers `--provider` (or `$MEMTRACE_PROVIDER`) names. */
const PROVIDERS = ['openai', 'anthropic'] as const;

export const PROVIDER_FLAGS = flags({
  provider: {
    type: 'string',
    choices: PROVIDERS,
    help: 'the LLM provider (default: $MEMTRACE_PROVIDER; required for the LLM methods)',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    help: 'the endpoint (default: $MEMTRACE_BASE_URL, else https://api.openai.com/v1 or https://api.anthropic.com)',
  },
  model: { type: 'string', value: 'M', help: 'the model name (default: $MEMTRACE_MODEL)' },
  'api-key-env': {
    type: 'string',
    value: 'NAME',
    help: 'the environment variable holding the key, never the key itself (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)',
  },
  timeout: {
    type: 'string',
    value: 'MS',
    int: { min: 0 },
    help: 'per-attempt timeout in ms (default: 120000; 0 = none)',
  },
  retries: {
    type: 'string',
    value: 'N',
    int: { min: 0 },
    help: 'retries after a 429, 5xx or network error (default: 4; 1 after a timeout)',
  },
  concurrency: {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'requests (and cases) in flight at once (default: 1 case, 4 requests)',
  },
  'cache-dir': {
    type: 'string',
    value: 'DIR',
    help: 'answer repeated requests from this folder (default: no cache)',
  },
});

/** The provider flags' values, as every command that declares them gets them. */
export type ProviderValues = ValuesOf<typeof PROVIDER_FLAGS>;

export const PROVIDER_USAGE =
  '--provider openai|anthropic [--base-url URL] --model M [--api-key-env NAME] [--timeout MS] [--retries N] [--concurrency N] [--cache-dir DIR]';

const DEFAULTS = {
  openai: { baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY' },
  anthropic: { baseUrl: 'https://api.anthropic.com', keyEnv: 'ANTHROPIC_API_KEY' },
} as const;

/** The profile and key the flags describe (env fallbacks: MEMTRACE_PROVIDER, MEMTRACE_BASE_URL, MEMTRACE_MODEL). */
function profileFromFlags(
  values: ProviderValues,
  io: CliIO,
): { profile: ProviderProfile; apiKey?: string; cacheDir?: string } {
  const given = values.provider ?? io.env.MEMTRACE_PROVIDER;
  if (!given) throw new CliError(`no provider given: ${PROVIDER_USAGE}`, 2);
  // $MEMTRACE_PROVIDER is checked as the flag is.
  const provider = oneOf('provider', PROVIDERS, given);
  const d = DEFAULTS[provider];
  const model = values.model ?? io.env.MEMTRACE_MODEL;
  if (!model) throw new CliError('--model is required (e.g. --model gpt-4o-mini, or qwen3:8b for Ollama)', 2);
  const keyEnv = values['api-key-env'] ?? d.keyEnv;
  const apiKey = io.env[keyEnv] || undefined;
  if (values['api-key-env'] !== undefined && !apiKey)
    throw new CliError(`the environment variable ${keyEnv} (named by --api-key-env) is not set or empty`);
  const profile = ProviderProfileSchema.parse({
    id: 'cli',
    name: 'command line',
    kind: provider,
    baseUrl: values['base-url'] ?? io.env.MEMTRACE_BASE_URL ?? d.baseUrl,
    model,
    timeoutMs: values.timeout,
    retries: values.retries,
    concurrency: values.concurrency,
  });
  const cacheDir = values['cache-dir'];
  return { profile, apiKey, cacheDir: cacheDir ? resolve(cacheDir) : undefined };
}

/** A robust ChatModel from the flags; cached when --cache-dir is given; metered when a meter is passed. */
export function chatModelFromFlags(
  values: ProviderValues,
  io: CliIO,
  opts: { meter?: UsageMeter; label?: string } = {},
): ChatModel {
  const { profile, apiKey, cacheDir } = profileFromFlags(values, io);
  return createChatModel(profile, {
    apiKey,
    browser: false,
    cache: cacheDir ? new FolderCacheStore(cacheDir) : undefined,
    meter: opts.meter,
    label: opts.label,
    robust: {
      onRetry: ({ attempt, delayMs, error }) =>
        io.stderr.write(`retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s: ${error.message}\n`),
    },
  });
}

/** A meter's totals as `--json` output (snake_case, like every JSON the CLI prints). */
export function usageJson(t: UsageTotals) {
  return {
    calls: t.calls,
    failed_calls: t.failed,
    cached_calls: t.cached,
    input_tokens: t.inputTokens,
    output_tokens: t.outputTokens,
    estimated: t.estimated,
  };
}

/** One line for stderr: every request that reached the endpoint, and the tokens counted. */
export function usageLine(t: UsageTotals): string {
  const extra = [t.failed ? `${t.failed} failed` : '', t.cached ? `${t.cached} answered from cache` : '']
    .filter(Boolean)
    .join(', ');
  return (
    `${t.calls} model request${t.calls === 1 ? '' : 's'}${extra ? ` (${extra})` : ''}, ` +
    `${t.inputTokens} input + ${t.outputTokens} output tokens${t.estimated ? ' (partly estimated)' : ''}`
  );
}
