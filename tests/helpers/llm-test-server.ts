/**
 * What the local LLM endpoints of the tests share (tests/llm/mock-llm-server.ts,
 * tests/helpers/scripted-llm-server.ts, tests/e2e/scripted-agent-server.ts): a real HTTP
 * server on 127.0.0.1 (random port) that a page may call (CORS, preflights answered), hands
 * each request with its whole body to the server's handler, and on `close()` also ends the
 * responses still open (held or hanging ones). No model is involved.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface LlmTestServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  close(): Promise<void>;
}

export async function startLlmTestServer(
  handle: (req: IncomingMessage, res: ServerResponse, raw: string) => void | Promise<void>,
  /** Which request URLs get CORS headers (default: all; without them a page's call fails). */
  cors: (url: string) => boolean = () => true,
): Promise<LlmTestServer> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (cors(req.url ?? '')) {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*');
      res.setHeader('access-control-expose-headers', 'retry-after, retry-after-ms');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => void handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tool call as an OpenAI-compatible reply carries it. */
export interface ReplyToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
}

/** Writes a 200 OpenAI `chat.completion` (text, or tool calls with finish reason `tool_calls`) with its usage. */
export function writeCompletion(
  res: ServerResponse,
  reply: {
    id: string;
    model: string;
    text: string;
    toolCalls?: ReplyToolCall[];
    usage: { input: number; output: number };
  },
): void {
  const calls = reply.toolCalls?.length ? reply.toolCalls : undefined;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: reply.id,
      object: 'chat.completion',
      model: reply.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.text,
            tool_calls: calls?.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: c.arguments },
            })),
          },
          finish_reason: calls ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: reply.usage.input,
        completion_tokens: reply.usage.output,
        total_tokens: reply.usage.input + reply.usage.output,
      },
    }),
  );
}

/** Writes a 404 naming the route no endpoint serves. */
export function writeNoRoute(res: ServerResponse, path: string): void {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
}
