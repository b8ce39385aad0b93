/**
 * A test double of an LLM endpoint: a real HTTP server on 127.0.0.1 (random port)
 * speaking the OpenAI-compatible `POST /v1/chat/completions` API (non-streaming, with
 * usage and CORS), whose every reply is computed by a script function from the request —
 * so a test can stand in for a model that reacts to what it is asked (a prompt-sensitive
 * system model, a report writer). No model is involved. Usage is what the script says,
 * else ⌈characters / 4⌉ of the request's messages and of the reply, and is recorded per
 * request so tests can check token counts independently.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedMessage {
  role: string;
  content: string;
}

export interface ScriptedRequest {
  model: string;
  messages: ScriptedMessage[];
  /** The whole request body as sent. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in tests
  body: any;
  /** 0-based position among all requests this server received. */
  index: number;
}

export type ScriptedReply =
  | string
  | { text: string; usage?: { input: number; output: number }; status?: number };

export interface ServedCall {
  request: ScriptedRequest;
  text: string;
  usage: { input: number; output: number };
  status: number;
}

export interface ScriptedLlmServer {
  /** OpenAI-compatible base URL (`…/v1`). */
  base: string;
  calls: ServedCall[];
  /** Replace the script (e.g. between phases of a test). */
  setScript(script: (r: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>): void;
  close(): Promise<void>;
}

const chars = (messages: ScriptedMessage[]) => messages.reduce((n, m) => n + m.content.length, 0);

export async function startScriptedLlmServer(
  script: (r: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>,
): Promise<ScriptedLlmServer> {
  let current = script;
  const calls: ServedCall[] = [];
  const open = new Set<ServerResponse>();
  let index = 0;
  const server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*');
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
    req.on('end', async () => {
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}');
        return;
      }
      const body = JSON.parse(raw || '{}');
      const messages: ScriptedMessage[] = (body.messages ?? []).map(
        (m: { role: string; content: unknown }) => ({
          role: m.role,
          content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
        }),
      );
      const request: ScriptedRequest = { model: body.model, messages, body, index: index++ };
      let reply: ScriptedReply;
      try {
        reply = await current(request);
      } catch (e) {
        reply = { text: String(e), status: 500 };
      }
      const r = typeof reply === 'string' ? { text: reply } : reply;
      const usage = r.usage ?? {
        input: Math.ceil(chars(messages) / 4),
        output: Math.ceil(r.text.length / 4),
      };
      const status = r.status ?? 200;
      calls.push({ request, text: r.text, usage, status });
      if (status !== 200) {
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: r.text } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${request.index}`,
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    calls,
    setScript: (s) => {
      current = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
