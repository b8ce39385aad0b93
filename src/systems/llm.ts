/**
 * The model interface the reference systems call. It is the subset of
 * `ChatModel` (src/core/llm) the systems need, declared structurally here so any
 * `ChatModel` can be passed as is — and so the systems do not depend on the provider code.
 */

export interface SystemMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface SystemLLM {
  readonly model: string;
  complete(request: {
    messages: SystemMessage[];
    temperature?: number;
    responseFormat?: { type: 'text' } | { type: 'json' };
  }): Promise<{
    text: string;
    usage?: { inputTokens: number; outputTokens: number };
    /** Requests the answer took at the endpoint, retries included (absent = 1; 0 = from a cache). */
    calls?: number;
    /** Answered from a response cache: no tokens spent. */
    cached?: boolean;
  }>;
}

/** Pulls the first JSON object out of a model reply (fenced or not); undefined when there is none. */
export function parseJsonReply(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1] : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(body.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
