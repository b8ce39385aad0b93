import type { ChatCompletionChunk, InitProgressReport } from '@mlc-ai/web-llm';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteEngine } from '../../src/app/llm/webllm-client.ts';
import { WebLLMChatModel } from '../../src/core/llm/index.ts';
import { type HostEngine, type WebLLMWorkerApi, webllmHost } from '../../workers/webllm-host.ts';

const QWEN = 'Qwen3-4B-q4f16_1-MLC';

function chunk(content: string | null, usage?: ChatCompletionChunk['usage']): ChatCompletionChunk {
  return {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 0,
    model: QWEN,
    choices: content === null ? [] : [{ index: 0, delta: { content }, finish_reason: null, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * ScriptedMLCEngine: a test double of MLC's engine (WebGPU cannot run here) with the
 * interface the worker host drives; it streams the chunks it is given, records what it was
 * asked, and can fail mid-stream or hang until interrupted.
 */
class ScriptedMLCEngine implements HostEngine {
  loaded: { modelId: string; contextWindow?: number } | null = null;
  interrupted = 0;
  returned = 0;
  private progress: (r: InitProgressReport) => void = () => {};
  constructor(private script: { chunks: ChatCompletionChunk[]; failAfter?: number; hang?: boolean }) {}
  setInitProgressCallback(cb: (r: InitProgressReport) => void) {
    this.progress = cb;
  }
  async reload(modelId: string, opts?: { context_window_size?: number }) {
    for (const progress of [0.5, 1]) this.progress({ progress, timeElapsed: 0, text: `loading ${progress}` });
    this.loaded = { modelId, contextWindow: opts?.context_window_size };
  }
  async unload() {
    this.loaded = null;
  }
  interruptGenerate() {
    this.interrupted++;
  }
  chat = {
    completions: {
      create: async () => {
        const self = this;
        return {
          [Symbol.asyncIterator]: () => {
            let i = 0;
            return {
              async next(): Promise<IteratorResult<ChatCompletionChunk>> {
                if (self.script.failAfter === i)
                  throw Object.assign(new Error('GPU device lost'), { name: 'DeviceLost' });
                if (self.script.hang && i === 1)
                  while (!self.interrupted) await new Promise((r) => setTimeout(r, 5));
                const value = self.script.chunks[i++];
                return value ? { done: false, value } : { done: true, value: undefined };
              },
              async return() {
                self.returned++;
                return { done: true as const, value: undefined };
              },
            };
          },
        };
      },
    },
  };
}

const ports: MessagePort[] = [];
afterEach(() => {
  for (const p of ports.splice(0)) p.close();
});

/** The host on one end of a real MessageChannel, the page's client on the other (as across a worker). */
function connect(engine: ScriptedMLCEngine, cached = new Set<string>()) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  Comlink.expose(
    webllmHost(engine, { has: async (id) => cached.has(id), delete: async (id) => void cached.delete(id) }),
    port1,
  );
  return Comlink.wrap<WebLLMWorkerApi>(port2);
}

describe('WebLLM across the worker boundary (workers/webllm-host.ts ↔ src/app/llm/webllm-client.ts)', () => {
  it('loads with progress, then a chat model streams text and usage from the worker', async () => {
    const engine = new ScriptedMLCEngine({
      chunks: [
        chunk('Hello '),
        chunk('from '),
        chunk('the worker'),
        chunk(null, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, extra: {} as never }),
      ],
    });
    const api = connect(engine);
    const seen: number[] = [];
    await api.load(
      QWEN,
      4096,
      Comlink.proxy((r: InitProgressReport) => void seen.push(r.progress)),
    );
    expect(seen).toEqual([0.5, 1]);
    expect(engine.loaded).toEqual({ modelId: QWEN, contextWindow: 4096 });
    const model = new WebLLMChatModel({ engine: remoteEngine(api), model: QWEN, contextWindow: 4096 });
    const tokens: string[] = [];
    const r = await model.complete({
      messages: [{ role: 'user', content: 'hi' }],
      onToken: (t) => tokens.push(t),
    });
    expect(r.text).toBe('Hello from the worker');
    expect(tokens.join('')).toBe('Hello from the worker');
    expect(r.usage).toEqual({ inputTokens: 12, outputTokens: 3, estimated: false });
  });

  it("an engine error mid-stream reaches the caller with the engine's message", async () => {
    const engine = new ScriptedMLCEngine({ chunks: [chunk('partial '), chunk('text')], failAfter: 1 });
    const model = new WebLLMChatModel({
      engine: remoteEngine(connect(engine)),
      model: QWEN,
      contextWindow: 4096,
    });
    await expect(model.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      /GPU device lost/,
    );
  });

  it('abort interrupts the engine in the worker and closes the stream', async () => {
    const engine = new ScriptedMLCEngine({ chunks: [chunk('a '), chunk('b '), chunk('c')], hang: true });
    const model = new WebLLMChatModel({
      engine: remoteEngine(connect(engine)),
      model: QWEN,
      contextWindow: 4096,
    });
    const ctl = new AbortController();
    const p = model.complete({
      messages: [{ role: 'user', content: 'go' }],
      signal: ctl.signal,
      onToken: () => ctl.abort(),
    });
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
    await expect.poll(() => engine.interrupted).toBe(1);
    await expect.poll(() => engine.returned).toBe(1);
  });

  it('answers and clears the model cache in the worker', async () => {
    const cached = new Set([QWEN]);
    const api = connect(new ScriptedMLCEngine({ chunks: [] }), cached);
    expect(await api.isCached(QWEN)).toBe(true);
    await api.deleteCached(QWEN);
    expect(await api.isCached(QWEN)).toBe(false);
  });
});
