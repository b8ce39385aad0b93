import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useMockLlmServer } from './mock-llm-server.ts';

const KEY = 'sk-cli-SECRET-abcdef0123456789';
const server = useMockLlmServer();

const run = (argv: string[], env: Record<string, string> = { MY_KEY: KEY }) => runCli(argv, env);

const openai = () => [
  '--provider',
  'openai',
  '--base-url',
  server.openaiBase,
  '--model',
  'qwen3:8b',
  '--api-key-env',
  'MY_KEY',
];

describe('memtrace chat', () => {
  it('prints the reply on stdout and token usage on stderr (OpenAI-compatible)', async () => {
    const r = await run(['chat', ...openai(), 'Say hi']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('echo: Say hi\n');
    expect(r.stderr).toMatch(/11 input \+ 7 output tokens/);
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('talks to Anthropic with --provider anthropic, streaming', async () => {
    const r = await run([
      'chat',
      '--provider',
      'anthropic',
      '--base-url',
      server.url,
      '--model',
      'claude-x',
      '--api-key-env',
      'MY_KEY',
      '--stream',
      'stream me',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('echo: stream me\n');
    expect(server.requests[0].headers['x-api-key']).toBe(KEY);
    expect(server.requests[0].body.stream).toBe(true);
  });

  it('--json prints the whole response in snake_case without the key', async () => {
    const r = await run(['chat', ...openai(), '--json', 'hello']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toEqual({
      provider: 'openai',
      model: 'qwen3:8b',
      text: 'echo: hello',
      tool_calls: [],
      finish_reason: 'stop',
      usage: { input_tokens: 11, output_tokens: 7, estimated: false },
      cached: false,
      calls: 1,
    });
    expect(r.stdout).not.toContain(KEY);
  });

  it('exits 1 with a clear, redacted message on a refused key', async () => {
    server.plan({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const r = await run(['chat', ...openai(), 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^memtrace chat: auth: .*refused the API key/);
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });

  it('exits 1 when the server cannot be reached, naming the URL', async () => {
    const r = await run(
      [
        'chat',
        '--provider',
        'openai',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--retries',
        '0',
        'hi',
      ],
      {},
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/network: Could not reach .*127\.0\.0\.1:9/);
  });

  it('retries a 429 and reports it on stderr', async () => {
    server.plan({ status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'busy' } } });
    const r = await run(['chat', ...openai(), 'retry me']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/retry 1 in 0\.0 s: .*rate limiting/);
    expect(r.stdout).toBe('echo: retry me\n');
  });

  it('--cache-dir makes a rerun free: the second call never reaches the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-llm-cache-'));
    const a = await run(['chat', ...openai(), '--cache-dir', dir, 'cache me']);
    const b = await run(['chat', ...openai(), '--cache-dir', dir, 'cache me']);
    expect(a.stdout).toBe(b.stdout);
    expect(b.stderr).toMatch(/from cache/);
    expect(server.requests).toHaveLength(1);
    const files = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
  });

  it('usage errors exit 2: no provider, unknown provider, unset key variable', async () => {
    expect((await run(['chat', 'hi'], {})).code).toBe(2);
    expect((await run(['chat', '--provider', 'gemini', '--model', 'm', 'hi'])).code).toBe(2);
    const unset = await run(
      ['chat', '--provider', 'openai', '--model', 'm', '--api-key-env', 'NOPE', 'hi'],
      {},
    );
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(/NOPE.*not set/);
  });

  /** An OpenAI completion whose message has `content: null`, with or without tool calls. */
  const nullContent = (toolCalls?: { name: string; arguments: string }[]) => ({
    status: 200,
    body: {
      id: 'chatcmpl-null',
      model: 'qwen3:8b',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            ...(toolCalls
              ? { tool_calls: toolCalls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: c })) }
              : {}),
          },
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    },
  });

  it('content null with tool calls: prints the tool calls, says there was no text, exit 0', async () => {
    server.plan(nullContent([{ name: 'get_weather', arguments: '{"city":"Paris"}' }]));
    const r = await run(['chat', ...openai(), 'weather?']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('tool call get_weather({"city":"Paris"}) id call_0\n');
    expect(r.stderr).toMatch(/no text: the reply is 1 tool call\(s\)/);
    server.plan(nullContent([{ name: 'get_weather', arguments: '{"city":"Paris"}' }]));
    const j = await run(['chat', ...openai(), '--json', 'weather?']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      text: '',
      tool_calls: [{ id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
  });

  it('content null and no tool call: no reply at all is exit 1 (text and --json)', async () => {
    server.plan(nullContent());
    const r = await run(['chat', ...openai(), 'hello?']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the model sent no reply \(no text, no tool call; finish: stop\)/);
    server.plan(nullContent());
    const j = await run(['chat', ...openai(), '--json', 'hello?']);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ text: '', tool_calls: [] });
  });

  it('works as a real process through bin/memtrace.mjs', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [resolve('bin/memtrace.mjs'), 'chat', ...openai(), 'from a process'],
      { env: { ...process.env, MY_KEY: KEY } },
    );
    expect(stdout).toBe('echo: from a process\n');
  });
});
