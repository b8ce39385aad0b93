/**
 * OpenAI-compatible chat completions over raw fetch: OpenAI, OpenRouter, vLLM, Ollama,
 * llama.cpp server, LM Studio. One attempt per call; wrap with `robust()` for retries.
 */
import { LlmError } from './errors.ts';
import { type HttpContext, joinUrl, postJson, readJson, streamError } from './http.ts';
import { readSse } from './sse.ts';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  FetchLike,
  FinishReason,
  ToolCall,
} from './types.ts';
import { chatResponse } from './usage.ts';

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
}

type OAMessage = {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
};

interface OAResponse {
  model?: string;
  choices?: { message?: OAMessage; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

interface OAChunk {
  model?: string;
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

export function toOpenAIMessages(messages: readonly ChatMessage[]): OAMessage[] {
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

export function openAIFinish(r: string | null | undefined): FinishReason {
  if (r === 'stop' || r === 'length' || r === 'tool_calls' || r === 'content_filter') return r;
  if (r === 'function_call') return 'tool_calls';
  if (r === 'eos' || r === 'end_turn') return 'stop';
  return 'unknown';
}

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
    const f = opts.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
    this.http = {
      provider: 'OpenAI-compatible server',
      url: joinUrl(opts.baseUrl, 'chat/completions'),
      model: opts.model,
      secrets: opts.apiKey ? [opts.apiKey] : [],
      fetch: f,
      now: opts.now ?? Date.now,
    };
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
    if (req.stream) return this.readStream(req, res);
    const j = await readJson<OAResponse>(this.http, res, req.signal);
    if (j.error)
      throw new LlmError('server', `${this.http.provider}: ${j.error.message}`, {
        secrets: this.http.secrets,
      });
    const choice = j.choices?.[0];
    if (!choice?.message)
      throw new LlmError('bad-response', `${this.http.provider} at ${this.http.url} returned no choices.`, {
        retryable: true,
      });
    const text = choice.message.content ?? '';
    const toolCalls: ToolCall[] | undefined = choice.message.tool_calls?.map((c, i) => ({
      id: c.id || `call_${i}`,
      name: c.function.name,
      arguments: c.function.arguments ?? '',
    }));
    return chatResponse(req, {
      text,
      toolCalls,
      reported: { input: j.usage?.prompt_tokens, output: j.usage?.completion_tokens },
      model: j.model ?? this.model,
      finishReason: openAIFinish(choice.finish_reason),
    });
  }

  private async readStream(req: ChatRequest, res: Response): Promise<ChatResponse> {
    if (!res.body)
      throw new LlmError('bad-response', 'The streaming response had no body.', { retryable: true });
    let text = '';
    let model = this.model;
    let finish: string | null | undefined;
    let usage: OAChunk['usage'];
    const calls: { id: string; name: string; arguments: string }[] = [];
    try {
      for await (const ev of readSse(res.body)) {
        if (ev.data === '[DONE]') break;
        let chunk: OAChunk;
        try {
          chunk = JSON.parse(ev.data) as OAChunk;
        } catch {
          throw new LlmError('bad-response', `Unreadable stream chunk: ${ev.data.slice(0, 200)}`, {
            retryable: true,
          });
        }
        if (chunk.error)
          throw new LlmError('server', `${this.http.provider}: ${chunk.error.message ?? 'error in stream'}`, {
            secrets: this.http.secrets,
          });
        if (chunk.model) model = chunk.model;
        if (chunk.usage) usage = chunk.usage;
        const ch = chunk.choices?.[0];
        if (!ch) continue;
        const d = ch.delta?.content;
        if (d) {
          text += d;
          req.onToken?.(d);
        }
        for (const tc of ch.delta?.tool_calls ?? []) {
          const i = tc.index ?? calls.length;
          calls[i] ??= { id: '', name: '', arguments: '' };
          if (tc.id) calls[i].id = tc.id;
          if (tc.function?.name) calls[i].name += tc.function.name;
          if (tc.function?.arguments) calls[i].arguments += tc.function.arguments;
        }
        if (ch.finish_reason) finish = ch.finish_reason;
      }
    } catch (e) {
      throw streamError(e, req.signal);
    }
    const toolCalls = calls.filter(Boolean).map((c, i) => ({ ...c, id: c.id || `call_${i}` }));
    return chatResponse(req, {
      text,
      toolCalls,
      reported: { input: usage?.prompt_tokens, output: usage?.completion_tokens },
      model,
      finishReason: openAIFinish(finish),
    });
  }
}
