/**
 * OpenAI-compatible chat completions over raw fetch: OpenAI, OpenRouter, vLLM, Ollama,
 * llama.cpp server, LM Studio. One attempt per call; wrap with `robust()` for retries.
 */
import { LlmError } from './errors.ts';
import {
  type HttpContext,
  httpContext,
  joinUrl,
  notEventStream,
  postJson,
  readJson,
  readText,
  snippet,
  streamError,
} from './http.ts';
import { ChunkAccumulator, openAIFinish, readCompletion } from './openai-reply.ts';
import { readSse } from './sse.ts';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, FetchLike } from './types.ts';
import { chatResponse } from './usage.ts';

export { openAIFinish } from './openai-reply.ts';

/** Settings of an OpenAI-compatible provider. */
export interface OpenAIOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), `https://openrouter.ai/api/v1`. */
  baseUrl: string;
  model: string;
  /** Optional: local servers usually need none. Sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** How `responseFormat: json` is sent: `json_object` (widest support), `json_schema`, or `none` (prompt only). */
  jsonMode?: 'json_object' | 'json_schema' | 'none';
  /** Ask for usage on streams (`stream_options.include_usage`); turn off for servers that reject it. */
  streamUsage?: boolean;
  /** Native tool calls (default true). */
  nativeTools?: boolean;
  contextWindow?: number;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`, `X-Title`). */
  headers?: Record<string, string>;
  fetch?: FetchLike;
  now?: () => number;
  /** An answer may be at most this many bytes (default 32 MiB). */
  maxResponseBytes?: number;
  /** A stream that sends nothing for this long fails (default 60 s; 0 = no limit). */
  idleTimeoutMs?: number;
}

/** A chat message in the OpenAI chat-completions shape (what `toOpenAIMessages` returns). */
export type OpenAIMessage = {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
};

/** Our chat messages in the OpenAI chat-completions shape (tool calls and tool results included). */
export function toOpenAIMessages(messages: readonly ChatMessage[]): OpenAIMessage[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    if (m.role === 'assistant' && m.toolCalls?.length)
      return {
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    return { role: m.role, content: m.content };
  });
}

/**
 * An OpenAI-compatible chat-completions server as a `ChatModel`: native tools or not, JSON mode as
 * configured, streaming over SSE.
 */
export class OpenAICompatibleChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly model: string;
  readonly capabilities;
  private readonly http: HttpContext;
  private readonly opts: OpenAIOptions;

  constructor(opts: OpenAIOptions) {
    if (!opts.baseUrl)
      throw new LlmError('bad-request', 'OpenAI-compatible provider: a base URL is required.');
    if (!opts.model)
      throw new LlmError('bad-request', 'OpenAI-compatible provider: a model name is required.');
    this.opts = opts;
    this.model = opts.model;
    this.capabilities = {
      nativeTools: opts.nativeTools ?? true,
      jsonMode: (opts.jsonMode ?? 'json_object') !== 'none',
      streaming: true,
      contextWindow: opts.contextWindow,
    };
    this.http = httpContext('OpenAI-compatible server', joinUrl(opts.baseUrl, 'chat/completions'), opts);
  }

  body(req: ChatRequest): Record<string, unknown> {
    const b: Record<string, unknown> = { model: this.model, messages: toOpenAIMessages(req.messages) };
    if (req.temperature !== undefined) b.temperature = req.temperature;
    if (req.maxTokens !== undefined) b.max_tokens = req.maxTokens;
    if (req.tools?.length && this.capabilities.nativeTools) {
      b.tools = req.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      const c = req.toolChoice;
      if (c) b.tool_choice = typeof c === 'string' ? c : { type: 'function', function: { name: c.name } };
    }
    const rf = req.responseFormat;
    const mode = this.opts.jsonMode ?? 'json_object';
    if (rf?.type === 'json' && mode !== 'none') {
      b.response_format =
        mode === 'json_schema' && rf.schema
          ? {
              type: 'json_schema',
              json_schema: { name: rf.name ?? 'response', schema: rf.schema, strict: false },
            }
          : { type: 'json_object' };
    }
    if (req.stream) {
      b.stream = true;
      if (this.opts.streamUsage ?? true) b.stream_options = { include_usage: true };
    }
    return b;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { ...this.opts.headers };
    if (this.opts.apiKey) h.authorization = `Bearer ${this.opts.apiKey}`;
    return h;
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    const res = await postJson(this.http, this.headers(), this.body(req), req.signal);
    const where = `${this.http.provider} at ${this.http.url}`;
    if (req.stream) {
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream')) return this.readStream(req, res, where);
      // Asked for a stream, got something else: a whole completion is fine, anything else is not.
      const body = await readText(this.http, res, req.signal);
      let j: unknown;
      try {
        j = JSON.parse(body);
      } catch {
        throw notEventStream(this.http, where, type, body);
      }
      return this.fromCompletion(req, where, j, true);
    }
    return this.fromCompletion(req, where, await readJson<unknown>(this.http, res, req.signal), false);
  }

  private fromCompletion(req: ChatRequest, where: string, j: unknown, stream: boolean): ChatResponse {
    const r = readCompletion(where, j);
    if (stream && r.text) req.onToken?.(r.text);
    return chatResponse(req, {
      text: r.text,
      toolCalls: r.toolCalls,
      reported: { input: r.usage?.prompt_tokens, output: r.usage?.completion_tokens },
      model: r.model ?? this.model,
      finishReason: openAIFinish(r.finish),
    });
  }

  private async readStream(req: ChatRequest, res: Response, where: string): Promise<ChatResponse> {
    const acc = new ChunkAccumulator(where);
    let done = false;
    try {
      for await (const ev of readSse(this.http, res, req.signal)) {
        if (ev.data === '[DONE]') {
          done = true;
          break;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(ev.data);
        } catch {
          throw new LlmError(
            'bad-response',
            `${where} sent an unreadable stream chunk: ${snippet(ev.data)}`,
            {
              retryable: true,
            },
          );
        }
        acc.add(chunk, req.onToken);
      }
    } catch (e) {
      throw streamError(e, req.signal);
    }
    // Ended without [DONE] and without a finish reason: the connection was cut mid-answer.
    if (!done && acc.finish === undefined)
      throw new LlmError(
        'bad-response',
        `${where}: the stream ended before the answer was complete (no finish reason, no [DONE]) after ${acc.text.length} characters.`,
        { retryable: true },
      );
    return acc.response(req, acc.model ?? this.model);
  }
}
