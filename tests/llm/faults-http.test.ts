/**
 * Misbehaving endpoints, over real HTTP (tests/helpers/fault-llm-server.ts): malformed replies,
 * cut streams, non-SSE bodies, hung and flooding servers, a `__proto__` tool-call index. Each
 * is a clear LlmError (never a TypeError or a partial "success"), bounded in time by the
 * client's limits, which the tests set small.
 */
import { describe, expect, it } from 'vitest';
import {
  AnthropicChatModel,
  type ChatRequest,
  type Clock,
  OpenAICompatibleChatModel,
  robust,
} from '../../src/core/llm/index.ts';
import { runCli } from '../helpers/cli.ts';
import {
  cutStream,
  drip,
  expectLlmFailure,
  flood,
  hang,
  malformedMessage,
  rawBody,
  toolCallStream,
} from '../helpers/fault-llm-server.ts';
import { useMockLlmServer } from './mock-llm-server.ts';

const server = useMockLlmServer();

const openai = (o: { idleTimeoutMs?: number; maxResponseBytes?: number } = {}) =>
  new OpenAICompatibleChatModel({ baseUrl: server.openaiBase, model: 'm', ...o });
const ask: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const stream: ChatRequest = { ...ask, stream: true };
const noWait: Clock = { now: () => Date.now(), sleep: () => Promise.resolve() };

describe('malformed replies say so, with what was expected', () => {
  it('content that is a number or an object', async () => {
    server.plan(malformedMessage({ role: 'assistant', content: 42 }));
    const a = await expectLlmFailure(openai().complete(ask));
    expect(a.kind).toBe('bad-response');
    expect(a.message).toMatch(
      /sent a malformed reply: choices\[0\]\.message\.content is number 42; expected a string\.$/,
    );
    server.plan(malformedMessage({ role: 'assistant', content: { text: 'hi' } }));
    expect((await expectLlmFailure(openai().complete(ask))).message).toMatch(
      /content is an object; expected a string/,
    );
  });

  it('a tool call without its function', async () => {
    server.plan(malformedMessage({ role: 'assistant', content: null, tool_calls: [{}] }));
    expect((await expectLlmFailure(openai().complete(ask))).message).toMatch(
      /choices\[0\]\.message\.tool_calls\[0\]\.function is missing; expected an object with the name and arguments/,
    );
  });

  it('memtrace chat: one line naming the problem, exit 1, no stack trace', async () => {
    server.plan(malformedMessage({ role: 'assistant', content: 42 }));
    const r = await runCli([
      'chat',
      '--provider',
      'openai',
      '--base-url',
      server.openaiBase,
      '--model',
      'm',
      'hi',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^memtrace chat: bad-response: .*content is number 42; expected a string/);
  });
});

describe('streams that are not what was asked for fail', () => {
  it('a stream cut mid-way is an error, not a partial answer (OpenAI-compatible and the CLI)', async () => {
    server.plan(cutStream('half an ans'));
    const tokens: string[] = [];
    const e = await expectLlmFailure(openai().complete({ ...stream, onToken: (t) => tokens.push(t) }));
    expect(e.message).toMatch(/the stream ended before the answer was complete .* after 11 characters/);
    expect(tokens.join('')).toBe('half an ans'); // what was shown, and then the failure
    server.plan(cutStream());
    const r = await runCli([
      'chat',
      '--provider',
      'openai',
      '--base-url',
      server.openaiBase,
      '--model',
      'm',
      '--stream',
      'hi',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stream ended before the answer was complete/);
  });

  it('a stream cut mid-way is an error on Anthropic too', async () => {
    server.plan({
      handle: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half"}}\n\n',
        );
        res.end();
      },
    });
    const m = new AnthropicChatModel({ baseUrl: server.url, model: 'c' });
    expect((await expectLlmFailure(m.complete(stream))).message).toMatch(
      /stream ended before the answer was complete/,
    );
  });

  it.each([
    [
      'an HTML page',
      rawBody('<html><body>Bad gateway</body></html>', 'text/html'),
      /text\/html, not server-sent events: "<html>/,
    ],
    [
      'invalid JSON',
      rawBody('{"choices": [', 'application/json'),
      /application\/json, not server-sent events: "\{\\"choices\\": \["/,
    ],
    ['an empty 200', rawBody('', 'text/plain'), /text\/plain, not server-sent events: \(an empty body\)/],
  ])('a streaming request answered with %s', async (_what, fault, message) => {
    server.plan(fault);
    const e = await expectLlmFailure(openai().complete(stream));
    expect(e.kind).toBe('bad-response');
    expect(e.message).toMatch(message);
  });

  it('a streaming request answered with a whole completion is read as one', async () => {
    server.plan(malformedMessage({ role: 'assistant', content: 'all at once' }));
    const tokens: string[] = [];
    const r = await openai().complete({ ...stream, onToken: (t) => tokens.push(t) });
    expect(r.text).toBe('all at once');
    expect(tokens).toEqual(['all at once']);
  });
});

describe('hung and flooding servers are bounded', () => {
  it('a server that never answers: two attempts (one retry after a timeout), then a timeout error', async () => {
    server.always(hang());
    const m = robust(openai(), { timeoutMs: 150, retries: 4, clock: noWait });
    const e = await expectLlmFailure(m.complete(ask));
    expect(e.kind).toBe('timeout');
    expect(server.requests).toHaveLength(2);
    expect(e.spent?.calls).toBe(2);
  });

  it('the call’s deadline ends it even when each attempt could wait longer', async () => {
    server.always(hang());
    const m = robust(openai(), { timeoutMs: 60_000, deadlineMs: 200, clock: noWait });
    const e = await expectLlmFailure(m.complete(ask));
    expect(e.message).toMatch(/within the call's deadline of 0\.2 s/);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that goes silent after its first chunk fails on the idle timeout', async () => {
    server.plan({ hangAfterFirstChunk: true });
    const e = await expectLlmFailure(openai({ idleTimeoutMs: 150 }).complete(stream));
    expect(e.kind).toBe('timeout');
    expect(e.message).toMatch(/sent nothing for 0\.15 s in the middle of the answer/);
  });

  it('a stream that only sends keep-alive comments is ended by the deadline', async () => {
    server.plan(drip({ everyMs: 20, stream: true }));
    const m = robust(openai({ idleTimeoutMs: 1000 }), { deadlineMs: 300, retries: 0 });
    expect((await expectLlmFailure(m.complete(stream))).kind).toBe('timeout');
  });

  it.each([
    ['a completion', false],
    ['a stream', true],
  ])('%s larger than the limit is cut off, unread', async (_what, asStream) => {
    server.plan(flood(64 * 1024 * 1024, asStream));
    const e = await expectLlmFailure(
      openai({ maxResponseBytes: 1024 * 1024 }).complete(asStream ? stream : ask),
    );
    expect(e.kind).toBe('bad-response');
    expect(e.message).toMatch(/sent more than 1 MiB for one answer; the rest was not read/);
    await expect.poll(() => server.requests[0].closedEarly).toBe(true);
  });
});

describe('untrusted tool-call indexes', () => {
  it('an index of "__proto__" is refused and pollutes nothing', async () => {
    server.plan(toolCallStream([{ index: '__proto__', id: 'x', function: { name: 'n', arguments: '{}' } }]));
    const e = await expectLlmFailure(openai().complete(stream));
    expect(e.message).toMatch(
      /tool_calls\[\]\.index is the string "__proto__"; expected a non-negative whole number/,
    );
    expect(([] as unknown as { id?: unknown }).id).toBeUndefined();
    expect(({} as { name?: unknown }).name).toBeUndefined();
  });

  it('well-formed deltas spread over chunks make one call', async () => {
    server.plan(
      toolCallStream([
        { index: 0, id: 'call_a', function: { name: 'grep', arguments: '{"pat' } },
        { index: 0, function: { arguments: 'tern": "x"}' } },
      ]),
    );
    const r = await openai().complete(stream);
    expect(r.toolCalls).toEqual([{ id: 'call_a', name: 'grep', arguments: '{"pattern": "x"}' }]);
  });
});
