/**
 * A real HTTP server on 127.0.0.1 (random port) speaking the OpenAI
 * `/v1/chat/completions` and Anthropic `/v1/messages` endpoints, for tests over real
 * sockets. By default it answers "echo: <last user text>" with usage; `plan()` queues
 * special behaviours (status codes, headers, raw text, delays, hangs) for the next calls.
 * Paths under `/nocors/` answer without CORS headers (to show a browser's CORS failure).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startLlmTestServer, writeCompletion, writeNoRoute } from '../helpers/llm-test-server.ts';

export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { reply: string; toolCall?: { name: string; arguments: string } }
  | { delayMs: number }
  | { hangAfterFirstChunk: true }
  /** Writes the response itself (fault injection: tests/helpers/fault-llm-server.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in tests
  | { handle: (res: ServerResponse, body: any) => void | Promise<void> };

interface Recorded {
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in tests
  body: any;
  closedEarly: boolean;
}

export interface MockLlmServer {
  url: string;
  /** `${url}/v1` — the OpenAI-compatible base URL. */
  openaiBase: string;
  requests: Recorded[];
  /** Queues behaviours for the next calls, in order. */
  plan(...b: Behaviour[]): void;
  /** The behaviour of every call once the queue is empty (default: the echo reply). */
  always(b: Behaviour | undefined): void;
  close(): Promise<void>;
}

const USAGE = { input: 11, output: 7 };

function lastUser(body: { messages?: { role: string; content: unknown }[] }): string {
  const m = [...(body.messages ?? [])].reverse().find((x) => x.role === 'user');
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content))
    return m.content.map((b: { text?: string; content?: string }) => b.text ?? b.content ?? '').join('');
  return '';
}

export async function startMockLlmServer(): Promise<MockLlmServer> {
  const queue: Behaviour[] = [];
  let fallback: Behaviour | undefined;
  const requests: Recorded[] = [];

  const server = await startLlmTestServer(
    (req, res, raw) => {
      const path = (req.url ?? '').replace(/^\/nocors/, '');
      // biome-ignore lint/suspicious/noExplicitAny: parsed request JSON
      let body: any = {};
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        body = { unparsable: raw };
      }
      const rec: Recorded = { path, headers: req.headers, body, closedEarly: false };
      requests.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.closedEarly = true;
      });
      const anthropic = path.startsWith('/v1/messages');
      if (!anthropic && !path.startsWith('/v1/chat/completions')) {
        writeNoRoute(res, path);
        return;
      }
      void respond(anthropic, body, res);
    },
    (url) => !url.startsWith('/nocors/'),
  );

  async function respond(anthropic: boolean, body: Recorded['body'], res: ServerResponse) {
    let b = queue.shift() ?? fallback;
    if (b && 'handle' in b) {
      await b.handle(res, body);
      return;
    }
    if (b && 'delayMs' in b) {
      await new Promise((r) => setTimeout(r, b && 'delayMs' in b ? b.delayMs : 0));
      if (res.destroyed) return;
      b = undefined;
    }
    if (b && 'status' in b) {
      res.writeHead(b.status, { 'content-type': 'application/json', ...b.headers });
      res.end(
        typeof b.body === 'string'
          ? b.body
          : JSON.stringify(b.body ?? { error: { message: `status ${b.status}` } }),
      );
      return;
    }
    const hang = !!b && 'hangAfterFirstChunk' in b;
    const text = b && 'reply' in b ? b.reply : `echo: ${lastUser(body)}`;
    const toolCall = b && 'reply' in b ? b.toolCall : undefined;
    const model = body.model ?? 'mock';
    if (!body.stream) {
      if (anthropic) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const content: unknown[] = text ? [{ type: 'text', text }] : [];
        if (toolCall)
          content.push({
            type: 'tool_use',
            id: 'toolu_1',
            name: toolCall.name,
            input: JSON.parse(toolCall.arguments),
          });
        res.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model,
            content,
            stop_reason: toolCall ? 'tool_use' : 'end_turn',
            usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
          }),
        );
      } else
        writeCompletion(res, {
          id: 'chatcmpl-1',
          model,
          text,
          toolCalls: toolCall ? [{ id: 'call_1', ...toolCall }] : undefined,
          usage: USAGE,
        });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces = text.match(/\S+\s*|\s+/g) ?? [];
    const send = (event: string | null, data: unknown) =>
      res.write(
        `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
      );
    if (anthropic) {
      send('message_start', {
        type: 'message_start',
        message: { id: 'msg_1', model, content: [], usage: { input_tokens: USAGE.input, output_tokens: 1 } },
      });
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      });
      for (const [i, p] of pieces.entries()) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: p },
        });
        if (hang && i === 0) return; // keep the connection open
        await new Promise((r) => setTimeout(r, 2));
      }
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: USAGE.output },
      });
      send('message_stop', { type: 'message_stop' });
    } else {
      for (const [i, p] of pieces.entries()) {
        send(null, { id: 'c', model, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
        if (hang && i === 0) return;
        await new Promise((r) => setTimeout(r, 2));
      }
      send(null, { id: 'c', model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if (body.stream_options?.include_usage)
        send(null, {
          id: 'c',
          model,
          choices: [],
          usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output },
        });
      send(null, '[DONE]');
    }
    res.end();
  }

  return {
    url: server.url,
    openaiBase: `${server.url}/v1`,
    requests,
    plan: (...b) => queue.push(...b),
    always: (b) => {
      fallback = b;
    },
    close: server.close,
  };
}

/**
 * One server for a test file: started before its tests, closed after them; its recorded
 * requests and default behaviour are reset before each test. Use the returned object as
 * the server (it forwards to the one started).
 */
/** The CLI's provider flags for an OpenAI-compatible test server (the key read from `keyEnv`). */
export function openaiFlags(base: string, model = 'm', keyEnv = 'K'): string[] {
  return ['--provider', 'openai', '--base-url', base, '--model', model, '--api-key-env', keyEnv];
}

export function useMockLlmServer(): MockLlmServer {
  let server: MockLlmServer | undefined;
  beforeAll(async () => {
    server = await startMockLlmServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    server!.requests.length = 0;
    server!.always(undefined);
  });
  return new Proxy({} as MockLlmServer, { get: (_, key) => server![key as keyof MockLlmServer] });
}
