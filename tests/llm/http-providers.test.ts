import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AnthropicChatModel,
  type ChatModel,
  type Clock,
  completeJson,
  metered,
  OpenAICompatibleChatModel,
  robust,
  UsageMeter,
} from '../../src/core/llm/index.ts';
import { expectLlmFailure } from '../helpers/fault-llm-server.ts';
import { useMockLlmServer } from './mock-llm-server.ts';

const KEY = 'sk-test-SECRET-0123456789abcdef';
const server = useMockLlmServer();

/** Real time, but waits are capped at 5 ms; every requested wait is recorded. */
function fastClock(): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.now(),
    sleep: (ms) => {
      waits.push(ms);
      return new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
  };
}

const providers: [string, () => ChatModel][] = [
  [
    'OpenAI-compatible',
    () => new OpenAICompatibleChatModel({ baseUrl: server.openaiBase, model: 'gpt-test', apiKey: KEY }),
  ],
  ['Anthropic', () => new AnthropicChatModel({ baseUrl: server.url, model: 'claude-test', apiKey: KEY })],
];

const failure = expectLlmFailure;

describe.each(providers)('%s provider over real HTTP', (name, make) => {
  it('completes: text, usage reported by the server, model, finish reason', async () => {
    const r = await make().complete({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(r.text).toBe('echo: hello');
    expect(r.usage).toEqual({ inputTokens: 11, outputTokens: 7, estimated: false });
    expect(r.finishReason).toBe('stop');
    const req = server.requests[0];
    if (name === 'Anthropic') {
      expect(req.path).toBe('/v1/messages');
      expect(req.headers['x-api-key']).toBe(KEY);
      expect(req.headers['anthropic-version']).toBe('2023-06-01');
      expect(req.body.system).toBe('be brief');
      expect(req.body.max_tokens).toBeGreaterThan(0);
    } else {
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  it('streams tokens as they arrive and reads usage from the stream', async () => {
    const tokens: string[] = [];
    const r = await make().complete({
      messages: [{ role: 'user', content: 'one two three four' }],
      stream: true,
      onToken: (t) => tokens.push(t),
    });
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe('echo: one two three four');
    expect(r.text).toBe('echo: one two three four');
    expect(r.usage).toEqual({ inputTokens: 11, outputTokens: 7, estimated: false });
    if (name !== 'Anthropic') expect(server.requests[0].body.stream_options).toEqual({ include_usage: true });
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    const clock = fastClock();
    server.plan({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } });
    const r = await robust(make(), { clock, baseDelayMs: 1 }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(r.text).toBe('echo: x');
    expect(clock.waits).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  it('retries 500s with exponential backoff and jitter, then succeeds', async () => {
    const clock = fastClock();
    server.plan({ status: 500 }, { status: 503 }, { status: 502 });
    const retried: number[] = [];
    const m = robust(make(), {
      clock,
      baseDelayMs: 100,
      maxDelayMs: 10_000,
      random: () => 0.5,
      onRetry: (i) => retried.push(i.attempt),
    });
    const r = await m.complete({ messages: [{ role: 'user', content: 'y' }] });
    expect(r.text).toBe('echo: y');
    expect(retried).toEqual([1, 2, 3]);
    // equal jitter: cap/2 + random·cap/2 with cap = 100·2^i
    expect(clock.waits).toEqual([75, 150, 300]);
  });

  it('gives up after the retry budget with the last server error', async () => {
    server.plan({ status: 500 }, { status: 500 }, { status: 500 });
    const e = await failure(
      robust(make(), { clock: fastClock(), retries: 2 }).complete({
        messages: [{ role: 'user', content: 'z' }],
      }),
    );
    expect(e.kind).toBe('server');
    expect(e.status).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it('times out a slow response (per attempt)', async () => {
    server.plan({ delayMs: 1500 });
    const e = await failure(
      robust(make(), { timeoutMs: 150, retries: 0 }).complete({ messages: [{ role: 'user', content: 's' }] }),
    );
    expect(e.kind).toBe('timeout');
    expect(e.message).toMatch(/within 0.15 s/);
    // The client gave up: the server saw its connection close before it answered.
    await expect.poll(() => server.requests[0]?.closedEarly).toBe(true);
  });

  it('a timed-out attempt is retried and the next one succeeds', async () => {
    server.plan({ delayMs: 1500 });
    const r = await robust(make(), { timeoutMs: 300, clock: fastClock() }).complete({
      messages: [{ role: 'user', content: 'again' }],
    });
    expect(r.text).toBe('echo: again');
  });

  it('repairs malformed JSON by showing the model its error', async () => {
    server.plan(
      { reply: '{"verdict": "memory", "confidence": 0.8' },
      { reply: '```json\n{"verdict": "memory", "confidence": 0.8}\n```' },
    );
    const schema = z.object({ verdict: z.enum(['memory', 'retrieval']), confidence: z.number() });
    const r = await completeJson(
      make(),
      { messages: [{ role: 'user', content: 'Which stage failed?' }] },
      schema,
      { mode: 'json' },
    );
    expect(r.value).toEqual({ verdict: 'memory', confidence: 0.8 });
    expect(r.calls).toBe(2);
    expect(r.usage.inputTokens).toBe(22);
    const second = server.requests[1].body.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(second)).toMatch(/could not be used/);
    expect(JSON.stringify(second)).toContain('{\\"verdict\\": \\"memory\\", \\"confidence\\": 0.8');
  });

  it('repairs a schema violation, and stops after the repair budget', async () => {
    server.plan({ reply: '{"verdict": "vibes"}' }, { reply: '{"verdict": "vibes"}' });
    const schema = z.object({ verdict: z.enum(['memory', 'retrieval']) });
    const e = await failure(
      completeJson(make(), { messages: [{ role: 'user', content: 'q' }] }, schema, {
        mode: 'json',
        maxRepairs: 1,
      }),
    );
    expect(e.kind).toBe('invalid-output');
    expect(e.message).toMatch(/verdict/);
    expect(JSON.stringify(server.requests[1].body)).toMatch(/Invalid option/);
  });

  it('uses native tool calls when asked and validates their arguments', async () => {
    server.plan({ reply: '', toolCall: { name: 'respond', arguments: '{"verdict":"retrieval"}' } });
    const schema = z.object({ verdict: z.enum(['memory', 'retrieval']) });
    const r = await completeJson(make(), { messages: [{ role: 'user', content: 'q' }] }, schema, {
      mode: 'tool',
    });
    expect(r.value).toEqual({ verdict: 'retrieval' });
    const body = server.requests[0].body;
    expect(JSON.stringify(body.tools)).toContain('retrieval');
  });

  it('401: a typed key error, not retried, with the key redacted', async () => {
    server.plan({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const e = await failure(
      robust(make(), { clock: fastClock() }).complete({ messages: [{ role: 'user', content: 'k' }] }),
    );
    expect(e.kind).toBe('auth');
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(/API key/);
    expect(e.message).not.toContain(KEY);
    expect(e.message).not.toContain('SECRET');
    expect(server.requests).toHaveLength(1);
  });

  it('404: says to check the base URL and the model', async () => {
    server.plan({ status: 404, body: { error: { message: 'model not found' } } });
    const e = await failure(make().complete({ messages: [{ role: 'user', content: 'k' }] }));
    expect(e.kind).toBe('not-found');
    expect(e.message).toMatch(/base URL/);
    expect(e.message).toMatch(/-test"/);
  });

  it('context overflow is recognised from the error body', async () => {
    server.plan({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
        },
      },
    });
    const e = await failure(
      robust(make(), { clock: fastClock() }).complete({ messages: [{ role: 'user', content: 'k' }] }),
    );
    expect(e.kind).toBe('context-overflow');
    expect(server.requests).toHaveLength(1);
  });

  it('abort mid-stream cancels the request and closes the connection', async () => {
    server.plan({ hangAfterFirstChunk: true });
    const ctl = new AbortController();
    const p = robust(make(), { timeoutMs: 5000 }).complete({
      messages: [{ role: 'user', content: 'never ending story' }],
      stream: true,
      signal: ctl.signal,
      onToken: () => ctl.abort(),
    });
    const e = await failure(p);
    expect(e.kind).toBe('aborted');
    await expect.poll(() => server.requests[0].closedEarly, { timeout: 2000 }).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('network failures', () => {
  it('a refused connection is a network error that explains CORS and is retried', async () => {
    const clock = fastClock();
    const m = robust(
      new OpenAICompatibleChatModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: KEY }),
      {
        clock,
        retries: 2,
      },
    );
    const e = await failure(m.complete({ messages: [{ role: 'user', content: 'x' }] }));
    expect(e.kind).toBe('network');
    expect(e.message).toMatch(/CORS/);
    expect(clock.waits).toHaveLength(2);
  });

  it('the concurrency limit holds calls in flight to N', async () => {
    let inFlight = 0;
    let peak = 0;
    const base = new OpenAICompatibleChatModel({ baseUrl: server.openaiBase, model: 'm' });
    const spy: ChatModel = {
      ...base,
      provider: base.provider,
      model: base.model,
      capabilities: base.capabilities,
      complete: async (r) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        try {
          return await base.complete(r);
        } finally {
          inFlight--;
        }
      },
    };
    server.plan({ delayMs: 40 }, { delayMs: 40 }, { delayMs: 40 }, { delayMs: 40 }, { delayMs: 40 });
    const m = robust(spy, { concurrency: 2 });
    const rs = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => m.complete({ messages: [{ role: 'user', content: `${i}` }] })),
    );
    expect(rs.map((r) => r.text)).toEqual(['echo: 1', 'echo: 2', 'echo: 3', 'echo: 4', 'echo: 5']);
    expect(peak).toBe(2);
  });

  it('a run meter sums tokens across calls', async () => {
    const meter = new UsageMeter();
    const m = metered(new OpenAICompatibleChatModel({ baseUrl: server.openaiBase, model: 'm' }), meter);
    await m.complete({ messages: [{ role: 'user', content: 'a' }] });
    await m.complete({ messages: [{ role: 'user', content: 'b' }], stream: true });
    expect(meter.totals()).toMatchObject({ calls: 2, inputTokens: 22, outputTokens: 14, estimated: false });
  });
});
