import type { ChatCompletionChunk, ChatCompletionRequestStreaming } from '@mlc-ai/web-llm';
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  completeJson,
  detectGpu,
  type LlmError,
  pickVariant,
  robust,
  WEBLLM_MODELS,
  WebLLMChatModel,
  type WebLLMEngine,
} from '../../src/core/llm/index.ts';

/**
 * FakeWebLLMEngine: a stand-in with the real engine's interface (`WebLLMEngine`, which
 * `MLCEngineInterface` is checked to satisfy at compile time), streaming OpenAI-shaped
 * chunks like `engine.chat.completions.create({stream: true})` does.
 */
class FakeWebLLMEngine implements WebLLMEngine {
  requests: ChatCompletionRequestStreaming[] = [];
  interrupted = 0;
  constructor(
    private replies: string[],
    private opts: { withUsage?: boolean; hang?: boolean; throwError?: Error } = {},
  ) {}
  interruptGenerate() {
    this.interrupted++;
  }
  chat = {
    completions: {
      create: async (
        request: ChatCompletionRequestStreaming,
      ): Promise<AsyncIterable<ChatCompletionChunk>> => {
        this.requests.push(request);
        if (this.opts.throwError) throw this.opts.throwError;
        const text = this.replies.shift() ?? '';
        const self = this;
        const chunk = (
          delta: ChatCompletionChunk.Choice['delta'],
          finish: ChatCompletionChunk.Choice['finish_reason'],
        ): ChatCompletionChunk => ({
          id: 'x',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'fake',
          choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
        });
        return {
          async *[Symbol.asyncIterator]() {
            for (const p of text.match(/\S+\s*/g) ?? []) {
              yield chunk({ content: p, role: 'assistant' }, null);
              if (self.opts.hang) {
                while (!self.interrupted) await new Promise((r) => setTimeout(r, 5));
                return;
              }
            }
            yield chunk({}, 'stop');
            if (self.opts.withUsage ?? true)
              yield {
                id: 'x',
                object: 'chat.completion.chunk',
                created: 0,
                model: 'fake',
                choices: [],
                usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35, extra: {} as never },
              } as ChatCompletionChunk;
          },
        };
      },
    },
  };
}

const QWEN = 'Qwen3-4B-q4f16_1-MLC';

describe('WebLLMChatModel over a fake engine', () => {
  it('streams, asks the engine for usage, and reports it', async () => {
    const engine = new FakeWebLLMEngine(['Hello from the GPU']);
    const m = new WebLLMChatModel({ engine, model: QWEN, contextWindow: 8192 });
    const tokens: string[] = [];
    const r = await m.complete({
      messages: [{ role: 'user', content: 'hi' }],
      onToken: (t) => tokens.push(t),
      stream: true,
    });
    expect(r.text).toBe('Hello from the GPU');
    expect(tokens.join('')).toBe('Hello from the GPU');
    expect(r.usage).toEqual({ inputTokens: 30, outputTokens: 5, estimated: false });
    expect(engine.requests[0].stream_options).toEqual({ include_usage: true });
  });

  it('estimates usage (marked) when the engine reports none', async () => {
    const engine = new FakeWebLLMEngine(['four words right here'], { withUsage: false });
    const r = await new WebLLMChatModel({ engine, model: QWEN, contextWindow: 4096 }).complete({
      messages: [{ role: 'user', content: 'count' }],
    });
    expect(r.usage.estimated).toBe(true);
    expect(r.usage.outputTokens).toBeGreaterThan(2);
  });

  it('JSON mode: response_format json_object with the schema as a string; repairs bad JSON', async () => {
    const engine = new FakeWebLLMEngine(['{"op": 3', '{"op": 3}']);
    const m = new WebLLMChatModel({ engine, model: QWEN, contextWindow: 8192 });
    const r = await completeJson(
      m,
      { messages: [{ role: 'user', content: 'which op?' }] },
      z.object({ op: z.number() }),
    );
    expect(r.value).toEqual({ op: 3 });
    expect(r.calls).toBe(2);
    const rf = engine.requests[0].response_format!;
    expect(rf.type).toBe('json_object');
    expect(JSON.parse(rf.schema!)).toMatchObject({ type: 'object', required: ['op'] });
    expect(engine.requests[0].tools).toBeUndefined(); // Qwen: no native tools
  });

  it('refuses a request larger than the context window before touching the engine', async () => {
    const engine = new FakeWebLLMEngine(['x']);
    const m = new WebLLMChatModel({ engine, model: QWEN, contextWindow: 256 });
    await expect(
      m.complete({ messages: [{ role: 'user', content: 'word '.repeat(1000) }] }),
    ).rejects.toMatchObject({
      kind: 'context-overflow',
    });
    expect(engine.requests).toHaveLength(0);
  });

  it('abort interrupts generation', async () => {
    const engine = new FakeWebLLMEngine(['a b c d'], { hang: true });
    const ctl = new AbortController();
    const p = new WebLLMChatModel({ engine, model: QWEN, contextWindow: 4096 }).complete({
      messages: [{ role: 'user', content: 'go' }],
      signal: ctl.signal,
      onToken: () => ctl.abort(),
    });
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
    expect(engine.interrupted).toBe(1);
  });

  it('a timeout (robust) interrupts generation too', async () => {
    const engine = new FakeWebLLMEngine(['a b c d'], { hang: true });
    const m = robust(new WebLLMChatModel({ engine, model: QWEN, contextWindow: 4096 }), {
      timeoutMs: 50,
      retries: 0,
    });
    await expect(m.complete({ messages: [{ role: 'user', content: 'go' }] })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(engine.interrupted).toBe(1);
  });

  it("maps WebLLM's shader-f16 error to a clear message", async () => {
    const err = Object.assign(new Error('This model requires WebGPU extension shader-f16'), {
      name: 'ShaderF16SupportError',
    });
    const m = new WebLLMChatModel({
      engine: new FakeWebLLMEngine([], { throwError: err }),
      model: QWEN,
      contextWindow: 4096,
    });
    const e = (await m.complete({ messages: [{ role: 'user', content: 'x' }] }).catch((x) => x)) as LlmError;
    expect(e.kind).toBe('unavailable');
    expect(e.message).toMatch(/q4f32/);
  });

  it('native tools only for Hermes, and not with a system message', async () => {
    const engine = new FakeWebLLMEngine(['ok', 'ok']);
    const m = new WebLLMChatModel({
      engine,
      model: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC',
      contextWindow: 4096,
      nativeTools: true,
    });
    const tools = [{ name: 't', parameters: { type: 'object' } }];
    await m.complete({ messages: [{ role: 'user', content: 'x' }], tools });
    await m.complete({
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'x' },
      ],
      tools,
    });
    expect(engine.requests[0].tools).toHaveLength(1);
    expect(engine.requests[1].tools).toBeUndefined();
  });
});

describe('curated WebLLM models', () => {
  const prebuilt = new Map(prebuiltAppConfig.model_list.map((r) => [r.model_id, r]));
  it('every curated id is a prebuilt model of the installed web-llm', () => {
    for (const m of WEBLLM_MODELS) {
      expect(prebuilt.has(m.f16Id), m.f16Id).toBe(true);
      expect(prebuilt.has(m.f32Id), m.f32Id).toBe(true);
      expect(m.f32Id).toMatch(/q4f32/);
    }
    expect(WEBLLM_MODELS.map((m) => m.key)).toEqual(
      expect.arrayContaining(['qwen3-4b', 'qwen3-8b', 'llama-3.1-8b']),
    );
  });

  it('falls back to q4f32 without shader-f16', async () => {
    const gpu = (f16: boolean) => ({
      requestAdapter: async () => ({
        features: new Set(f16 ? ['shader-f16'] : []),
        info: { vendor: 'swiftshader' },
      }),
    });
    const yes = await detectGpu(gpu(true));
    const no = await detectGpu(gpu(false));
    expect(yes).toMatchObject({ webgpu: true, shaderF16: true, message: undefined });
    expect(no.message).toMatch(/shader-f16.*q4f32/);
    const qwen = WEBLLM_MODELS.find((m) => m.key === 'qwen3-4b')!;
    expect(pickVariant(qwen, yes).modelId).toBe('Qwen3-4B-q4f16_1-MLC');
    expect(pickVariant(qwen, no)).toMatchObject({ modelId: 'Qwen3-4B-q4f32_1-MLC', fallback: true });
  });

  it('explains a missing WebGPU and a missing adapter', async () => {
    expect((await detectGpu(undefined)).message).toMatch(/no WebGPU/);
    expect((await detectGpu({ requestAdapter: async () => null })).message).toMatch(/no GPU adapter/);
  });
});
