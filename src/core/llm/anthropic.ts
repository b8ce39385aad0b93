/** Anthropic Messages API over raw fetch, streaming via its SSE events. */

import { appendAll } from '../arrays.ts';
import { LlmError } from './errors.ts';
import {
  type HttpContext,
  httpContext,
  joinUrl,
  notEventStream,
  postJson,
  readJson,
  readText,
  streamError,
} from './http.ts';
import { malformed } from './openai-reply.ts';
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

/** The `anthropic-version` header every request sends. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Settings of an Anthropic provider. */
export interface AnthropicOptions {
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended (a trailing `/v1` is accepted too). */
  baseUrl?: string;
  model: string;
  apiKey?: string;
  /** Max output tokens when a request sets none (the API requires one). */
  defaultMaxTokens?: number;
  /**
   * Send `anthropic-dangerous-direct-browser-access: true`, which Anthropic requires for
   * calls made from a web page. Default: on when running in a page (a `document` exists).
   */
  browser?: boolean;
  contextWindow?: number;
  fetch?: FetchLike;
  now?: () => number;
  /** An answer may be at most this many bytes (default 32 MiB). */
  maxResponseBytes?: number;
  /** A stream that sends nothing for this long fails (default 60 s; 0 = no limit). */
  idleTimeoutMs?: number;
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface AMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

interface AResponse {
  model?: string;
  content?: Block[];
  stop_reason?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** Anthropic's `stop_reason` as a `FinishReason`. */
function anthropicFinish(r: string | null | undefined): FinishReason {
  if (r === 'end_turn' || r === 'stop_sequence') return 'stop';
  if (r === 'max_tokens') return 'length';
  if (r === 'tool_use') return 'tool_calls';
  if (r === 'refusal') return 'content_filter';
  return 'unknown';
}

function parseArgs(s: string): unknown {
  try {
    return s ? JSON.parse(s) : {};
  } catch {
    return { _raw: s };
  }
}

/** System messages go to the top-level `system`; same-role turns are merged; tool results are user blocks. */
function toAnthropic(messages: readonly ChatMessage[]): { system?: string; messages: AMessage[] } {
  const system: string[] = [];
  const out: AMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) appendAll(last.content, blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') push('user', [{ type: 'text', text: m.content }]);
    else if (m.role === 'tool')
      push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
    else {
      const blocks: Block[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: parseArgs(c.arguments) });
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '' }]);
    }
  }
  return { system: system.length ? system.join('\n\n') : undefined, messages: out };
}

/**
 * The Anthropic Messages API as a `ChatModel`: native tools, JSON asked for in the system prompt,
 * streaming over SSE. One attempt per call; wrap with `robust()` for retries.
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic' as const;
  readonly model: string;
  readonly capabilities;
  private readonly http: HttpContext;
  private readonly opts: AnthropicOptions;

  constructor(opts: AnthropicOptions) {
    if (!opts.model) throw new LlmError('bad-request', 'Anthropic provider: a model name is required.');
    this.opts = opts;
    this.model = opts.model;
    this.capabilities = {
      nativeTools: true,
      jsonMode: false,
      streaming: true,
      contextWindow: opts.contextWindow,
    };
    const base = (opts.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
    this.http = httpContext(
      'Anthropic',
      joinUrl(base, /\/v1$/.test(base) ? 'messages' : 'v1/messages'),
      opts,
    );
  }

  body(req: ChatRequest): Record<string, unknown> {
    const { system, messages } = toAnthropic(req.messages);
    let sys = system;
    if (req.responseFormat?.type === 'json') {
      // No native JSON mode: say it in the system prompt (the JSON protocol also says it in the user turn).
      const schema = req.responseFormat.schema
        ? `\nIt must match this JSON Schema:\n${JSON.stringify(req.responseFormat.schema)}`
        : '';
      sys = `${sys ? `${sys}\n\n` : ''}Answer with a single JSON object and nothing else.${schema}`;
    }
    const b: Record<string, unknown> = {
      model: this.model,
      max_tokens: req.maxTokens ?? this.opts.defaultMaxTokens ?? 4096,
      messages,
    };
    if (sys) b.system = sys;
    if (req.temperature !== undefined) b.temperature = req.temperature;
    if (req.tools?.length) {
      b.tools = req.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters,
      }));
      const c = req.toolChoice;
      if (c)
        b.tool_choice =
          c === 'auto'
            ? { type: 'auto' }
            : c === 'required'
              ? { type: 'any' }
              : { type: 'tool', name: c.name };
    }
    if (req.stream) b.stream = true;
    return b;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (this.opts.apiKey) h['x-api-key'] = this.opts.apiKey;
    if (this.opts.browser ?? 'document' in globalThis)
      h['anthropic-dangerous-direct-browser-access'] = 'true';
    return h;
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    const res = await postJson(this.http, this.headers(), this.body(req), req.signal);
    const where = `Anthropic at ${this.http.url}`;
    if (req.stream) {
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream')) return this.readStream(req, res);
      throw notEventStream(this.http, where, type, await readText(this.http, res, req.signal));
    }
    const j = await readJson<AResponse>(this.http, res, req.signal);
    if (!Array.isArray(j?.content))
      throw new LlmError('bad-response', `${where} returned no content.`, {
        retryable: true,
      });
    let text = '';
    const toolCalls: ToolCall[] = [];
    for (const [i, b] of j.content.entries()) {
      if (b?.type === 'text') {
        if (typeof b.text !== 'string') throw malformed(where, `content[${i}].text`, b.text, 'a string');
        text += b.text;
      } else if (b?.type === 'tool_use') {
        if (typeof b.name !== 'string' || !b.name)
          throw malformed(where, `content[${i}].name`, b.name, 'the name of a tool');
        toolCalls.push({
          id: String(b.id ?? `toolu_${i}`),
          name: b.name,
          arguments: JSON.stringify(b.input ?? {}),
        });
      }
    }
    return chatResponse(req, {
      text,
      toolCalls,
      reported: { input: j.usage?.input_tokens, output: j.usage?.output_tokens },
      model: j.model ?? this.model,
      finishReason: anthropicFinish(j.stop_reason),
    });
  }

  private async readStream(req: ChatRequest, res: Response): Promise<ChatResponse> {
    let text = '';
    let model = this.model;
    let stop: string | null | undefined;
    let stopped = false;
    let input: number | undefined;
    let output: number | undefined;
    const blocks = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      for await (const ev of readSse(this.http, res, req.signal)) {
        // biome-ignore lint/suspicious/noExplicitAny: SSE payloads are checked field by field
        let d: any;
        try {
          d = JSON.parse(ev.data);
        } catch {
          throw new LlmError('bad-response', `Unreadable stream event: ${ev.data.slice(0, 200)}`, {
            retryable: true,
          });
        }
        const type = d?.type ?? ev.event;
        if (type === 'message_start') {
          model = d.message?.model ?? model;
          input = d.message?.usage?.input_tokens ?? input;
          output = d.message?.usage?.output_tokens ?? output;
        } else if (type === 'content_block_start' && d.content_block?.type === 'tool_use') {
          blocks.set(d.index, { id: d.content_block.id, name: d.content_block.name, arguments: '' });
        } else if (type === 'content_block_delta') {
          if (d.delta?.type === 'text_delta' && d.delta.text !== undefined) {
            if (typeof d.delta.text !== 'string')
              throw malformed(
                `Anthropic at ${this.http.url}`,
                'content_block_delta.delta.text',
                d.delta.text,
                'a string',
              );
            text += d.delta.text;
            req.onToken?.(d.delta.text);
          } else if (d.delta?.type === 'input_json_delta') {
            const b = blocks.get(d.index);
            if (b) b.arguments += d.delta.partial_json ?? '';
          }
        } else if (type === 'message_delta') {
          stop = d.delta?.stop_reason ?? stop;
          output = d.usage?.output_tokens ?? output;
          if (typeof d.usage?.input_tokens === 'number') input = d.usage.input_tokens;
        } else if (type === 'error') {
          const kind = d.error?.type === 'overloaded_error' ? 'server' : 'bad-response';
          throw new LlmError(kind, `Anthropic stream error: ${d.error?.message ?? 'unknown'}`, {
            retryable: true,
            secrets: this.http.secrets,
          });
        } else if (type === 'message_stop') {
          stopped = true;
          break;
        }
      }
    } catch (e) {
      throw streamError(e, req.signal);
    }
    if (!stopped && stop === undefined)
      throw new LlmError(
        'bad-response',
        `Anthropic at ${this.http.url}: the stream ended before the answer was complete (no stop reason, no message_stop) after ${text.length} characters.`,
        { retryable: true },
      );
    const toolCalls = [...blocks.values()].map((b) => ({ ...b, arguments: b.arguments || '{}' }));
    return chatResponse(req, {
      text,
      toolCalls,
      reported: { input, output },
      model,
      finishReason: anthropicFinish(stop),
    });
  }
}
