/**
 * Reading OpenAI-shaped replies — a whole `choices[0].message`, or a stream of
 * `choices[0].delta` chunks (OpenAI-compatible servers and WebLLM alike) — checking every
 * field used, so a malformed reply is reported as such (what came, what was expected)
 * instead of surfacing later as a TypeError. Tool-call deltas are keyed by a validated
 * integer index in a Map: no untrusted key ever touches an object's prototype.
 */
import { LlmError } from './errors.ts';
import type { ChatRequest, ChatResponse, FinishReason, ToolCall } from './types.ts';
import { chatResponse } from './usage.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function shown(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.slice(0, 40))}`;
  return `${typeof v} ${String(v).slice(0, 40)}`;
}

/** The error for a reply field that is not what the API promises. */
export function malformed(where: string, path: string, got: unknown, expected: string): LlmError {
  return new LlmError(
    'bad-response',
    `${where} sent a malformed reply: ${path} is ${got === undefined ? 'missing' : shown(got)}; expected ${expected}.`,
  );
}

function optionalString(where: string, path: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw malformed(where, path, v, 'a string');
  return v;
}

/**
 * An OpenAI-compatible `finish_reason` as a `FinishReason` (legacy `function_call` and a few servers'
 * `eos` / `end_turn` mapped too).
 */
export function openAIFinish(r: string | null | undefined): FinishReason {
  if (r === 'stop' || r === 'length' || r === 'tool_calls' || r === 'content_filter') return r;
  if (r === 'function_call') return 'tool_calls';
  if (r === 'eos' || r === 'end_turn') return 'stop';
  return 'unknown';
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

function usageOf(where: string, path: string, v: unknown): OpenAIUsage | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw malformed(where, path, v, 'an object');
  const num = (k: string) => {
    const x = v[k];
    if (x === undefined || x === null) return undefined;
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0)
      throw malformed(where, `${path}.${k}`, x, 'a token count');
    return x;
  };
  return { prompt_tokens: num('prompt_tokens'), completion_tokens: num('completion_tokens') };
}

/** A whole (non-streamed) chat completion: its text, tool calls, model, finish reason and usage. */
export function readCompletion(where: string, j: unknown) {
  if (!isObj(j)) throw malformed(where, 'the reply', j, 'a chat completion object');
  if (isObj(j.error)) throw new LlmError('server', `${where}: ${String(j.error.message ?? 'error')}`);
  const choices = j.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new LlmError('bad-response', `${where} returned no choices.`, { retryable: true });
  const choice = choices[0];
  if (!isObj(choice) || !isObj(choice.message))
    throw malformed(where, 'choices[0].message', isObj(choice) ? choice.message : choice, 'a message object');
  const m = choice.message;
  const text = optionalString(where, 'choices[0].message.content', m.content) ?? '';
  let toolCalls: ToolCall[] | undefined;
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls))
      throw malformed(where, 'choices[0].message.tool_calls', m.tool_calls, 'a list');
    toolCalls = m.tool_calls.map((c, i) => {
      const path = `choices[0].message.tool_calls[${i}]`;
      if (!isObj(c) || !isObj(c.function))
        throw malformed(
          where,
          `${path}.function`,
          isObj(c) ? c.function : c,
          'an object with the name and arguments',
        );
      const name = optionalString(where, `${path}.function.name`, c.function.name);
      if (!name) throw malformed(where, `${path}.function.name`, c.function.name, 'the name of a tool');
      return {
        id: optionalString(where, `${path}.id`, c.id) || `call_${i}`,
        name,
        arguments: optionalString(where, `${path}.function.arguments`, c.function.arguments) ?? '',
      };
    });
  }
  return {
    text,
    toolCalls,
    model: optionalString(where, 'model', j.model),
    finish: optionalString(where, 'choices[0].finish_reason', choice.finish_reason),
    usage: usageOf(where, 'usage', j.usage),
  };
}

/** Accumulates stream chunks into one reply; `complete` says whether the stream said it was finished. */
export class ChunkAccumulator {
  text = '';
  model: string | undefined;
  finish: string | undefined;
  usage: OpenAIUsage | undefined;
  private readonly calls = new Map<number, ToolCall>();

  constructor(private readonly where: string) {}

  /** Adds one parsed chunk; text deltas go to `onToken` as they arrive. */
  add(chunk: unknown, onToken?: (delta: string) => void): void {
    const where = this.where;
    if (!isObj(chunk)) throw malformed(where, 'a stream chunk', chunk, 'an object');
    if (isObj(chunk.error))
      throw new LlmError('server', `${where}: ${String(chunk.error.message ?? 'error in stream')}`);
    this.model = optionalString(where, 'model', chunk.model) ?? this.model;
    this.usage = usageOf(where, 'usage', chunk.usage) ?? this.usage;
    if (chunk.choices === undefined || chunk.choices === null) return;
    if (!Array.isArray(chunk.choices)) throw malformed(where, 'choices', chunk.choices, 'a list');
    const ch = chunk.choices[0];
    if (ch === undefined) return;
    if (!isObj(ch)) throw malformed(where, 'choices[0]', ch, 'an object');
    const delta = ch.delta;
    if (delta !== undefined && delta !== null) {
      if (!isObj(delta)) throw malformed(where, 'choices[0].delta', delta, 'an object');
      const d = optionalString(where, 'choices[0].delta.content', delta.content);
      if (d) {
        this.text += d;
        onToken?.(d);
      }
      if (delta.tool_calls !== undefined && delta.tool_calls !== null) {
        if (!Array.isArray(delta.tool_calls))
          throw malformed(where, 'choices[0].delta.tool_calls', delta.tool_calls, 'a list');
        for (const tc of delta.tool_calls) this.addToolCall(tc);
      }
    }
    this.finish = optionalString(where, 'choices[0].finish_reason', ch.finish_reason) ?? this.finish;
  }

  private addToolCall(tc: unknown) {
    const where = this.where;
    const path = 'choices[0].delta.tool_calls[]';
    if (!isObj(tc)) throw malformed(where, path, tc, 'an object');
    const index = tc.index ?? this.calls.size;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 1000)
      throw malformed(where, `${path}.index`, index, 'a non-negative whole number');
    const fn = tc.function;
    if (fn !== undefined && fn !== null && !isObj(fn))
      throw malformed(where, `${path}.function`, fn, 'an object');
    const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
    this.calls.set(index, call);
    call.id = optionalString(where, `${path}.id`, tc.id) || call.id;
    call.name += optionalString(where, `${path}.function.name`, fn?.name) ?? '';
    call.arguments += optionalString(where, `${path}.function.arguments`, fn?.arguments) ?? '';
  }

  /** The tool calls in index order (ids filled in where the server sent none). */
  toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, c], i) => {
        if (!c.name)
          throw malformed(this.where, `tool call ${i}: function.name`, undefined, 'the name of a tool');
        return { ...c, id: c.id || `call_${i}` };
      });
  }

  /** What the stream said, as the response to `req` from `model`. */
  response(req: ChatRequest, model: string): ChatResponse {
    return chatResponse(req, {
      text: this.text,
      toolCalls: this.toolCalls(),
      reported: { input: this.usage?.prompt_tokens, output: this.usage?.completion_tokens },
      model,
      finishReason: openAIFinish(this.finish),
    });
  }
}
