import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sha256Hex } from '../../src/core/hash/index.ts';
import { FolderCacheStore } from '../../src/core/llm/cache-folder.node.ts';
import {
  actionSchema,
  cached,
  canonicalJson,
  completeAction,
  createChatModel,
  estimateTokens,
  exportSettings,
  extractJson,
  importSettings,
  type LlmError,
  MemoryCacheStore,
  metered,
  type ProviderProfile,
  ProviderProfileSchema,
  ReplayChatModel,
  redact,
  requestKey,
  ScriptedChatModel,
  UsageMeter,
} from '../../src/core/llm/index.ts';
import { startMockLlmServer } from './mock-llm-server.ts';

const KEY = 'sk-proj-SECRET-9f8e7d6c5b4a3210';

describe('hashing and cache keys', () => {
  it('sha256Hex(text) equals node:crypto on ASCII, Unicode and block-boundary lengths', () => {
    for (const t of ['', 'abc', 'ä漢字🙂', 'x'.repeat(55), 'x'.repeat(56), 'y'.repeat(64), 'z'.repeat(1000)])
      expect(sha256Hex(t)).toBe(createHash('sha256').update(t, 'utf8').digest('hex'));
  });
  it('canonicalJson sorts keys and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [1, { z: 1, y: 2 }] } })).toBe(
      '{"a":{"c":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
  it('requestKey ignores transient fields (signal, stream, onToken) and never sees the key', () => {
    const m = { provider: 'openai' as const, model: 'm' };
    const base = { messages: [{ role: 'user' as const, content: 'q' }], temperature: 0 };
    const a = requestKey(m, base);
    const b = requestKey(m, {
      ...base,
      stream: true,
      onToken: () => {},
      signal: new AbortController().signal,
    });
    expect(a.key).toBe(b.key);
    expect(requestKey(m, { ...base, temperature: 1 }).key).not.toBe(a.key);
    expect(requestKey({ ...m, model: 'n' }, base).key).not.toBe(a.key);
  });
});

describe('response cache', () => {
  it('serves a repeated request from the store, marked cached; a meter counts it as free', async () => {
    const script = new ScriptedChatModel(['first answer', 'second answer']);
    const meter = new UsageMeter();
    const m = metered(cached(script, new MemoryCacheStore()), meter);
    const req = { messages: [{ role: 'user' as const, content: 'same' }] };
    const a = await m.complete(req);
    const b = await m.complete(req);
    expect(b.text).toBe(a.text);
    expect(b.cached).toBe(true);
    expect(script.requests).toHaveLength(1);
    // One request reached the model; the cache hit is counted as such and costs nothing.
    expect(meter.totals()).toMatchObject({ calls: 1, cached: 1, inputTokens: a.usage.inputTokens });
  });

  it('a folder store persists entries across instances; replay answers offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-cache-'));
    const script = new ScriptedChatModel(['recorded']);
    const req = { messages: [{ role: 'user' as const, content: 'demo question' }] };
    await cached(script, new FolderCacheStore(dir), { endpoint: 'http://x' }).complete(req);
    const store = new FolderCacheStore(dir);
    expect(await store.size()).toBe(1);
    const replay = new ReplayChatModel(store, 'scripted', 'scripted', 'http://x');
    expect((await replay.complete(req)).text).toBe('recorded');
    await expect(replay.complete({ messages: [{ role: 'user', content: 'other' }] })).rejects.toMatchObject({
      kind: 'not-found',
    });
  });
});

describe('scripted provider', () => {
  it('replies in order, streams words, and fails clearly when the script runs out', async () => {
    const m = new ScriptedChatModel([
      'one two',
      { text: 'three', usage: { inputTokens: 1, outputTokens: 1, estimated: false } },
    ]);
    const tokens: string[] = [];
    expect((await m.complete({ messages: [], stream: true, onToken: (t) => tokens.push(t) })).text).toBe(
      'one two',
    );
    expect(tokens).toEqual(['one ', 'two']);
    expect((await m.complete({ messages: [] })).usage.estimated).toBe(false);
    await expect(m.complete({ messages: [] })).rejects.toThrow(/no reply number 3/);
  });
});

describe('JSON action protocol', () => {
  const actions = {
    read_op: { description: 'read one op', args: z.object({ op_id: z.string() }) },
    answer: { description: 'give the verdict', args: z.object({ stage: z.enum(['write', 'retrieve']) }) },
  };
  it('text protocol: validates {action, args} and repairs an unknown action', async () => {
    const m = new ScriptedChatModel([
      '<think>hmm</think>{"action": "grep", "args": {}}',
      'Sure! {"action": "read_op", "args": {"op_id": "op7"}}',
    ]);
    const r = await completeAction(m, { messages: [{ role: 'user', content: 'investigate' }] }, actions);
    expect(r.value).toEqual({ action: 'read_op', args: { op_id: 'op7' } });
    expect(r.calls).toBe(2);
    expect(m.requests[0].messages[0].content).toMatch(/"read_op": read one op/);
    expect(m.requests[1].messages.at(-1)!.content).toMatch(/could not be used/);
  });
  it('native tools: a tool call becomes the action; bad arguments go back as a tool result', async () => {
    const m = new ScriptedChatModel(
      [
        { text: '', toolCalls: [{ id: 'c1', name: 'answer', arguments: '{"stage": "nowhere"}' }] },
        { text: '', toolCalls: [{ id: 'c2', name: 'answer', arguments: '{"stage": "retrieve"}' }] },
      ],
      { nativeTools: true },
    );
    const r = await completeAction(m, { messages: [{ role: 'user', content: 'go' }] }, actions);
    expect(r.value).toEqual({ action: 'answer', args: { stage: 'retrieve' } });
    expect(m.requests[0].tools!.map((t) => t.name)).toEqual(['read_op', 'answer']);
    const repair = m.requests[1].messages.at(-1)!;
    expect(repair).toMatchObject({ role: 'tool', toolCallId: 'c1' });
  });
  it('extractJson reads fenced, prefixed and thinking replies; actionSchema rejects wrong args', () => {
    expect(extractJson('```json\n{"a":1}\n```')).toEqual({ a: 1 });
    expect(extractJson('Here: [1,2] done')).toEqual([1, 2]);
    expect(() => extractJson('no json')).toThrow(SyntaxError);
    expect(actionSchema(actions).safeParse({ action: 'answer', args: { stage: 1 } }).success).toBe(false);
  });
});

describe('keys never leak', () => {
  const profile: ProviderProfile = ProviderProfileSchema.parse({
    id: 'p1',
    name: 'OpenAI',
    kind: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    rememberKey: true,
  });

  it('redact() removes known secrets and key-shaped strings', () => {
    const s = redact(`key ${KEY}, Bearer abcdefghijklmnop, x-api-key: zyxwvutsrq, api_key=hunter2hunter2`, [
      KEY,
    ]);
    expect(s).not.toContain(KEY);
    expect(s).not.toMatch(/abcdefghijklmnop|zyxwvutsrq|hunter2/);
  });

  it('exporting settings never contains the key, even if one was slipped into a profile', () => {
    const sneaky = { ...profile, apiKey: KEY, notes: `my key is ${KEY}` } as ProviderProfile;
    const text = exportSettings([sneaky], [KEY]);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('SECRET');
    expect(importSettings(text).profiles[0]).toMatchObject({ id: 'p1', model: 'gpt-4o-mini' });
  });

  it('a run (meter export) against a server that echoes the key never contains it; nor do errors or logs', async () => {
    const server = await startMockLlmServer();
    try {
      const meter = new UsageMeter();
      const logs: string[] = [];
      const m = createChatModel(
        { ...profile, baseUrl: server.openaiBase, retries: 1 },
        {
          apiKey: KEY,
          meter,
          robust: { baseDelayMs: 1, onRetry: (i) => logs.push(i.error.message) },
        },
      );
      await m.complete({ messages: [{ role: 'user', content: 'hi' }] });
      server.plan(
        { status: 500, body: { error: { message: `internal: auth header was Bearer ${KEY}` } } },
        { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } },
      );
      const e = (await m
        .complete({ messages: [{ role: 'user', content: 'again' }] })
        .catch((x) => x)) as LlmError;
      expect(e.kind).toBe('auth');
      expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`); // the key was really sent
      const run = JSON.stringify(meter.toJSON());
      // Every request the server received: the first answer, the 500 and the retried 401.
      expect(server.requests).toHaveLength(3);
      expect(meter.totals()).toMatchObject({ calls: 3, failed: 1, inputTokens: 11 });
      for (const text of [run, e.message, String(e), e.stack ?? '', ...logs]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain('SECRET');
      }
      expect(logs).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('token estimates', () => {
  it('are in the right range for English and count non-Latin scripts higher', () => {
    const en = 'The quick brown fox jumps over the lazy dog and keeps running far away.';
    expect(estimateTokens(en)).toBeGreaterThanOrEqual(14);
    expect(estimateTokens(en)).toBeLessThanOrEqual(20);
    expect(estimateTokens('记忆系统中的错误归因')).toBeGreaterThanOrEqual(8);
    expect(estimateTokens('')).toBe(0);
  });
});
