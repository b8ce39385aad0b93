/**
 * A scripted double of an OpenAI-compatible chat server on 127.0.0.1 (no model can run here):
 * `POST /v1/chat/completions` answers with the text `reply(messages)` returns, in the
 * Chat Completions response shape the real `openai` client parses. Nothing else is served.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat message as the client sent it. */
export interface SentMessage {
  role: string;
  content: string;
}

/** A running scripted server: its base URL (`…/v1`) and how to stop it. */
export interface ScriptedServer {
  baseURL: string;
  /** Every request's messages, in arrival order. */
  requests: SentMessage[][];
  close(): Promise<void>;
}

/** Starts the double; `reply` decides each completion's text from the request's messages. */
export function startScriptedOpenAI(reply: (messages: SentMessage[]) => string): Promise<ScriptedServer> {
  const requests: SentMessage[][] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        model: string;
        messages: SentMessage[];
      };
      requests.push(body.messages);
      const text = reply(body.messages);
      const id = `chatcmpl-scripted-${++n}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 1_700_000_000 + n,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  return new Promise((ok) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      ok({
        baseURL: `http://127.0.0.1:${port}/v1`,
        requests,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
