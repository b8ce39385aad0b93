/**
 * Providers without a model, for tests and demos — named as such everywhere they show:
 * `ScriptedChatModel` answers from a script in order; `ReplayChatModel` answers from
 * recorded responses (a response cache filled by a real run), offline and reproducibly.
 */
import { type CacheStore, requestKey } from './cache.ts';
import { LlmError } from './errors.ts';
import type { ChatModel, ChatRequest, ChatResponse, ProviderKind } from './types.ts';
import { resolveUsage } from './usage.ts';

/** One scripted answer: a text, a partial response, or an error to throw. */
export type ScriptReply = string | (Partial<ChatResponse> & { text: string }) | LlmError;
/** A script entry: a fixed reply, or a function of the request and its index. */
export type ScriptStep =
  | ScriptReply
  | ((req: ChatRequest, index: number) => ScriptReply | Promise<ScriptReply>);

/**
 * A test double, not a model: answers each request with the next script step (round and round with
 * `loop`), and keeps the requests it received. Fails when the script runs out.
 */
export class ScriptedChatModel implements ChatModel {
  readonly provider = 'scripted' as const;
  readonly model: string;
  readonly capabilities;
  /** Requests received, in order (for tests of code that drives a model). */
  readonly requests: ChatRequest[] = [];
  private readonly steps: ScriptStep[];
  private readonly loop: boolean;

  constructor(
    steps: ScriptStep[],
    opts: { model?: string; loop?: boolean; nativeTools?: boolean; contextWindow?: number } = {},
  ) {
    this.steps = steps;
    this.model = opts.model ?? 'scripted';
    this.loop = opts.loop ?? false;
    this.capabilities = {
      nativeTools: opts.nativeTools ?? false,
      jsonMode: false,
      streaming: true,
      contextWindow: opts.contextWindow,
    };
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    if (req.signal?.aborted) throw new LlmError('aborted', 'The request was cancelled.');
    const i = this.requests.length;
    this.requests.push(req);
    if (!this.steps.length || (i >= this.steps.length && !this.loop))
      throw new LlmError(
        'bad-response',
        `The scripted model has no reply number ${i + 1} (script of ${this.steps.length}).`,
        {
          retryable: false,
        },
      );
    const step = this.steps[i % this.steps.length];
    const reply = typeof step === 'function' ? await step(req, i) : step;
    if (reply instanceof LlmError) throw reply;
    const r = typeof reply === 'string' ? { text: reply } : reply;
    if (req.stream && req.onToken) for (const piece of r.text.match(/\S+\s*|\s+/g) ?? []) req.onToken(piece);
    return {
      text: r.text,
      toolCalls: r.toolCalls,
      usage: r.usage ?? resolveUsage(undefined, req, r.text, r.toolCalls),
      model: r.model ?? this.model,
      finishReason: r.finishReason ?? (r.toolCalls?.length ? 'tool_calls' : 'stop'),
    };
  }
}

/** Answers from recorded responses, as the recorded provider/model would have. */
export class ReplayChatModel implements ChatModel {
  readonly capabilities;
  constructor(
    private readonly store: CacheStore,
    readonly provider: ProviderKind,
    readonly model: string,
    private readonly endpoint?: string,
    nativeTools = false,
  ) {
    this.capabilities = { nativeTools, jsonMode: true, streaming: true };
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    const { key, request } = requestKey(this, req, this.endpoint);
    const hit = await this.store.get(key);
    if (!hit || hit.request !== request)
      throw new LlmError(
        'not-found',
        `Replay: no recorded answer of ${this.provider} "${this.model}" for this request.`,
      );
    if (req.stream && hit.response.text) req.onToken?.(hit.response.text);
    return { ...hit.response, cached: true, calls: 0 };
  }
}
