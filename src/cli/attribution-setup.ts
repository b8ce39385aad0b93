/** Shared by `attribute` and `bench`: method flags, engine dependencies per graph, a bounded pool. */
import { AGENT_PRESETS, type AgentOptions, type AgentPreset } from '../core/attribution/agents/runtime.ts';
import { type EngineDeps, engineFor, NEEDS_MODEL } from '../core/attribution/engines.ts';
import type { Attribution, AttributionInput, AttributionMethod } from '../core/attribution/types.ts';
import type { TraceGraph } from '../core/graph/graph.ts';
import { type ChatModel, isLlmError, spentOfError, type UsageMeter } from '../core/llm/index.ts';
import { corpusFromGraph } from '../core/retrieval/corpus.ts';
import { RetrievalIndex } from '../core/retrieval/retrieval-index.ts';
import type { Options, Values } from './command.ts';
import { CliError, type CliIO } from './io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from './provider-flags.ts';

export const METHODS: AttributionMethod[] = ['evidence', 'memtrace', 'obs'];

export const ATTRIBUTION_FLAGS: Options = {
  method: {
    type: 'string',
    default: 'evidence',
    value: 'evidence|memtrace|obs',
    help: "evidence: the deterministic evidence-flow attributor (no model); memtrace, obs: the paper's LLM agents",
  },
  prior: { type: 'boolean', default: false, help: 'LLM agents start from the evidence-flow candidates' },
  preset: {
    type: 'string',
    value: 'paper|window-scaled',
    help: "LLM agents' budgets: the paper's values, or scaled to the model's window (default: paper)",
  },
  ...PROVIDER_FLAGS,
};

export const ATTRIBUTION_USAGE = `--method evidence|memtrace|obs [--prior] [--preset ${AGENT_PRESETS.join('|')}] [${PROVIDER_USAGE}]`;

/** The method, with the flags that only an LLM agent uses refused for the evidence method. */
export function methodOf(values: Values): AttributionMethod {
  const m = values.method as string;
  if (!(METHODS as string[]).includes(m))
    throw new CliError(`--method must be one of ${METHODS.join(', ')} (got "${m}")`, 2);
  if (!NEEDS_MODEL.has(m as AttributionMethod)) {
    // --concurrency is shared: it also sets how many cases run at once.
    const agentOnly = ['prior', 'preset', ...Object.keys(PROVIDER_FLAGS)].filter(
      (f) => f !== 'concurrency' && values[f] !== undefined && values[f] !== false,
    );
    if (agentOnly.length)
      throw new CliError(
        `${agentOnly.map((f) => `--${f}`).join(', ')} only apply to the LLM methods (memtrace, obs), not to --method ${m}`,
        2,
      );
  }
  return m as AttributionMethod;
}

/** The agents' budget preset from --preset (default: the paper's). */
export function agentOptionsOf(values: Values): AgentOptions {
  const p = values.preset;
  if (p === undefined) return {};
  if (!(AGENT_PRESETS as readonly string[]).includes(String(p)))
    throw new CliError(`--preset must be one of ${AGENT_PRESETS.join(', ')} (got "${p}")`, 2);
  return { preset: p as AgentPreset };
}

/** The chat model when the method needs one (created once per command run). */
export function modelFor(
  method: AttributionMethod,
  values: Values,
  io: CliIO,
  meter?: UsageMeter,
): ChatModel | undefined {
  if (!NEEDS_MODEL.has(method)) return undefined;
  return chatModelFromFlags(values, io, { meter, label: method });
}

/** Why a case has no attribution (the provider failed, the replies were unusable, …). */
export interface CaseFailure {
  kind: string;
  message: string;
}

/**
 * Runs one case; a failure becomes a result that says so (no type, no op) with what the case
 * cost up to it, so one failing case never discards the others.
 */
export async function attributeCase(
  method: AttributionMethod,
  input: AttributionInput,
  deps: EngineDeps,
): Promise<{ result: Attribution; error: CaseFailure | null }> {
  const started = Date.now();
  try {
    return { result: await engineFor(method)(input, deps), error: null };
  } catch (e) {
    const error = {
      kind: isLlmError(e) ? e.kind : 'error',
      message: e instanceof Error ? e.message : String(e),
    };
    const spent = spentOfError(e);
    const result: Attribution = {
      query_id: input.case.queryId,
      method,
      error_type: null,
      op_id: null,
      reason: `failed: ${error.message}`,
      path: [],
      candidates: [],
      cost: {
        input_tokens: spent.inputTokens,
        output_tokens: spent.outputTokens,
        seconds: (Date.now() - started) / 1000,
        llm_calls: spent.calls,
      },
    };
    return { result, error };
  }
}

/** Per-graph dependencies: the BM25 messages index used to locate evidence and start points. */
export async function depsFor(g: TraceGraph, base: Omit<EngineDeps, 'index'>): Promise<EngineDeps> {
  const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
  return { ...base, index };
}

/** Runs tasks with at most `limit` at once, keeping result order. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i], i);
    }
  });
  await Promise.all(lanes);
  return out;
}

export function concurrencyOf(values: Values): number {
  const v = values.concurrency;
  if (v === undefined) return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`--concurrency must be an integer ≥ 1 (got "${v}")`, 2);
  return n;
}
