/** Usage from provider counts, or estimated from the text when the provider sent none. */
import { estimateRequestTokens, estimateTokens } from './tokens.ts';
import type { ChatRequest, ChatResponse, FinishReason, ToolCall, Usage } from './types.ts';

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
