/**
 * The WebLLM provider: a ChatModel over an MLC engine (in the app, one running in
 * workers/webllm.worker.ts, reached through src/app/llm/webllm-client.ts). Type-only
 * imports from `@mlc-ai/web-llm`: nothing of it is loaded here.
 */
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  MLCEngineInterface,
} from '@mlc-ai/web-llm';
import { LlmError } from './errors.ts';
import { abortError } from './http.ts';
import { toOpenAIMessages } from './openai.ts';
import { ChunkAccumulator } from './openai-reply.ts';
import { estimateRequestTokens } from './tokens.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './types.ts';

/** The part of `MLCEngineInterface` this provider uses (the real engine satisfies it; see below). */
export interface WebLLMEngine {
  chat: {
    completions: {
      create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>;
    };
  };
  interruptGenerate(): void;
}

// Compile-time proof that WebLLM's real engine interface fits `WebLLMEngine`.
type Fits<T extends WebLLMEngine> = T;
/**
 * Compile-time check only: stops compiling if WebLLM's `MLCEngineInterface` no longer fits `WebLLMEngine`.
 */
export type RealEngineFits = Fits<MLCEngineInterface>;

/**
 * Settings of a WebLLM provider: the loaded engine, its model id and context window, and whether to use
 * native tools.
 */
export interface WebLLMOptions {
  engine: WebLLMEngine;
  /** The prebuilt model id loaded into the engine, e.g. `Qwen3-4B-q4f16_1-MLC`. */
  model: string;
  /** The `context_window_size` the model was loaded with. */
  contextWindow: number;
  /** Native tools: only the Hermes models, and WebLLM refuses them with a system message or JSON mode. */
  nativeTools?: boolean;
}

/**
 * An in-browser WebLLM engine as a `ChatModel`: streams every request, JSON mode native, native tools only
 * for Hermes models without a system message.
 */
export class WebLLMChatModel implements ChatModel {
  readonly provider = 'webllm' as const;
  readonly model: string;
  readonly capabilities;
  private readonly engine: WebLLMEngine;

  constructor(opts: WebLLMOptions) {
    this.engine = opts.engine;
    this.model = opts.model;
    this.capabilities = {
      nativeTools: opts.nativeTools ?? false,
      jsonMode: true,
      streaming: true,
      contextWindow: opts.contextWindow,
    };
  }

  request(req: ChatRequest): ChatCompletionRequestStreaming {
    const hasSystem = req.messages.some((m) => m.role === 'system');
    const useTools =
      !!req.tools?.length &&
      this.capabilities.nativeTools &&
      !hasSystem &&
      req.responseFormat?.type !== 'json';
    const r: ChatCompletionRequestStreaming = {
      // WebLLM takes OpenAI's chat message format.
      messages: toOpenAIMessages(req.messages) as ChatCompletionMessageParam[],
      stream: true,
      stream_options: { include_usage: true },
    };
    if (req.temperature !== undefined) r.temperature = req.temperature;
    if (req.maxTokens !== undefined) r.max_tokens = req.maxTokens;
    if (req.responseFormat?.type === 'json')
      r.response_format = req.responseFormat.schema
        ? { type: 'json_object', schema: JSON.stringify(req.responseFormat.schema) }
        : { type: 'json_object' };
    if (useTools) {
      r.tools = req.tools!.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      const c = req.toolChoice;
      if (c && typeof c === 'object') r.tool_choice = { type: 'function', function: { name: c.name } };
    }
    return r;
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    const window = this.capabilities.contextWindow;
    const need = estimateRequestTokens(req) + (req.maxTokens ?? 0);
    if (need > window)
      throw new LlmError(
        'context-overflow',
        `The request (about ${need} tokens) does not fit the ${window}-token context window of "${this.model}". Send less context or choose a model with a larger window.`,
      );
    if (req.signal?.aborted) throw abortError(req.signal);
    const signal = req.signal;
    const onAbort = () => this.engine.interruptGenerate();
    signal?.addEventListener('abort', onAbort, { once: true });
    // WebLLM streams OpenAI-shaped chunks: one accumulator for both paths (openai-reply.ts).
    const acc = new ChunkAccumulator(`WebLLM (${this.model})`);
    try {
      const stream = await this.engine.chat.completions.create(this.request(req));
      for await (const chunk of stream) {
        acc.add(chunk, req.onToken);
        if (signal?.aborted) break;
      }
    } catch (e) {
      if (signal?.aborted) throw abortError(signal);
      if (e instanceof LlmError) throw e;
      throw webllmError(e, this.model);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) throw abortError(signal);
    return acc.response(req, this.model);
  }
}

/** WebLLM's own errors, made actionable. */
function webllmError(e: unknown, model: string): LlmError {
  const name = (e as { name?: string })?.name ?? '';
  const msg = e instanceof Error ? e.message : String(e);
  if (name === 'ShaderF16SupportError' || /shader-f16/i.test(msg))
    return new LlmError(
      'unavailable',
      `"${model}" needs the WebGPU "shader-f16" feature, which this GPU lacks: choose the q4f32 variant.`,
    );
  if (name === 'WebGPUNotAvailableError' || /WebGPU/i.test(msg))
    return new LlmError(
      'unavailable',
      `WebGPU is not available, so "${model}" cannot run in this browser: ${msg}`,
    );
  if (/context window|context length|exceed.*context|prompt tokens exceed/i.test(msg))
    return new LlmError(
      'context-overflow',
      `The request does not fit the context window of "${model}": ${msg}`,
    );
  if (/device (was )?lost|out of memory|OOM/i.test(msg))
    return new LlmError(
      'unavailable',
      `The GPU ran out of memory or was lost running "${model}": ${msg}. Try a smaller model.`,
    );
  return new LlmError('bad-response', `WebLLM (${model}) failed: ${msg}`);
}
