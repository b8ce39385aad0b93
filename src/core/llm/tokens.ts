/**
 * A tokenizer heuristic for when a provider reports no usage: BPE tokenizers average
 * about 4 characters of English per token, words count at least one each, and
 * non-Latin scripts run close to one token per character. Estimates are marked as such.
 */
import type { ChatMessage, ChatRequest } from './types.ts';

/**
 * Estimated tokens of a text when the provider reports none: the larger of ASCII characters / 4
 * and 0.75 per word or symbol, plus 0.9 per non-ASCII character; at least 1 for a non-empty text.
 */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  const words = text.match(/[A-Za-z0-9]+|[^\sA-Za-z0-9]/g)?.length ?? 0;
  return Math.max(1, Math.round(Math.max(ascii / 4, words * 0.75) + other * 0.9));
}

/** Per-message overhead as in OpenAI's chat format (role and separators). */
const PER_MESSAGE = 4;
/** Reply-priming overhead of a conversation, as in OpenAI's chat format. */
const REPLY_PRIMING = 3;

/** Estimated tokens of one message: its content and tool calls plus the OpenAI-style per-message overhead. */
export function estimateOneMessageTokens(m: ChatMessage): number {
  let n = PER_MESSAGE + estimateTokens(m.content);
  if (m.role === 'assistant' && m.toolCalls)
    for (const c of m.toolCalls) n += estimateTokens(c.name) + estimateTokens(c.arguments);
  return n;
}

/**
 * Estimated input tokens of a conversation: each message (`perMessage`, by default
 * `estimateOneMessageTokens`; a caller may pass a cached one) plus OpenAI-style reply-priming overhead.
 */
export function estimateMessageTokens(
  messages: readonly ChatMessage[],
  perMessage: (m: ChatMessage) => number = estimateOneMessageTokens,
): number {
  let n = REPLY_PRIMING;
  for (const m of messages) n += perMessage(m);
  return n;
}

/** Estimated input tokens of a request: its messages plus the JSON of its tool specs. */
export function estimateRequestTokens(req: Pick<ChatRequest, 'messages' | 'tools'>): number {
  let n = estimateMessageTokens(req.messages);
  for (const t of req.tools ?? []) n += estimateTokens(JSON.stringify(t));
  return n;
}
