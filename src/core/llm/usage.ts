/** Usage from provider counts, or estimated from the text when the provider sent none. */
import { estimateRequestTokens, estimateTokens } from './tokens.ts';
import type { ChatRequest, ToolCall, Usage } from './types.ts';

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
