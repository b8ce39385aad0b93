/** Usage from provider counts (estimated from the text when the provider sent none), and what calls cost. */

import { LlmError } from './errors.ts';
import { estimateRequestTokens, estimateTokens } from './tokens.ts';
import type { ChatRequest, ChatResponse, FinishReason, Spent, ToolCall, Usage } from './types.ts';

/**
 * A call's usage: the provider's counts where it sent them, estimates (flagged `estimated`) for the
 * missing ones.
 */
export function resolveUsage(
  reported: { input?: number | null; output?: number | null } | undefined,
  req: Pick<ChatRequest, 'messages' | 'tools'>,
  text: string,
  toolCalls: readonly ToolCall[] | undefined,
): Usage {
  const hasIn = typeof reported?.input === 'number';
  const hasOut = typeof reported?.output === 'number';
  if (hasIn && hasOut)
    return { inputTokens: reported!.input!, outputTokens: reported!.output!, estimated: false };
  const outText = text + (toolCalls ?? []).map((c) => c.name + c.arguments).join('');
  return {
    inputTokens: hasIn ? reported!.input! : estimateRequestTokens(req),
    outputTokens: hasOut ? reported!.output! : estimateTokens(outText),
    estimated: true,
  };
}

/** A provider's answer as a `ChatResponse`: no empty tool-call list, usage resolved as above. */
export function chatResponse(
  req: Pick<ChatRequest, 'messages' | 'tools'>,
  r: {
    text: string;
    toolCalls: ToolCall[] | undefined;
    reported: { input?: number | null; output?: number | null };
    model: string;
    finishReason: FinishReason;
  },
): ChatResponse {
  return {
    text: r.text,
    toolCalls: r.toolCalls?.length ? r.toolCalls : undefined,
    usage: resolveUsage(r.reported, req, r.text, r.toolCalls),
    model: r.model,
    finishReason: r.finishReason,
  };
}

/** Nothing spent yet. */
export function noSpend(): Spent {
  return { calls: 0, inputTokens: 0, outputTokens: 0, estimated: false };
}

/** Adds `b` into `a` (mutating `a`) and returns `a`. */
export function addSpent(a: Spent, b: Spent): Spent {
  a.calls += b.calls;
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.estimated ||= b.estimated;
  return a;
}

/** What an answer cost: its `calls` (default 1) and its usage; nothing when it came from a cache. */
export function spentOfResponse(r: Pick<ChatResponse, 'usage' | 'calls' | 'cached'>): Spent {
  return r.cached ? { ...noSpend(), calls: r.calls ?? 0 } : { calls: r.calls ?? 1, ...r.usage };
}

/**
 * What a failed call cost: the error's note (`spent`); without one, an LlmError is one request
 * with no tokens known (a provider's failure), any other error nothing.
 */
export function spentOfError(e: unknown): Spent {
  const s = (e as { spent?: Spent } | null)?.spent;
  if (s && typeof s.calls === 'number') return { ...s };
  return { ...noSpend(), calls: e instanceof LlmError ? 1 : 0 };
}

/**
 * `e` noting that the failed work cost `s` in all: a copy of an LlmError (those may be shared,
 * e.g. an abort reason); another Error gets a `spent` property; anything else is returned as is.
 */
export function withSpent<E>(e: E, s: Spent): E {
  if (e instanceof LlmError) return e.costing(s) as E;
  if (e instanceof Error) Object.defineProperty(e, 'spent', { value: { ...s }, configurable: true });
  return e;
}
