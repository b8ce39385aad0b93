/**
 * A test double of an LLM endpoint: a real HTTP server on 127.0.0.1 (random port)
 * speaking the OpenAI-compatible `POST /v1/chat/completions` API (non-streaming, with
 * usage and CORS), whose every reply is computed by a script function from the request —
 * so a test can stand in for a model that reacts to what it is asked (a prompt-sensitive
 * system model, a report writer). No model is involved. Usage is what the script says,
 * else ⌈characters / 4⌉ of the request's messages and of the reply, and is recorded per
 * request so tests can check token counts independently.
 */
import type { IncomingMessage } from 'node:http';
import { type ReplyToolCall, startLlmTestServer, writeCompletion, writeNoRoute } from './llm-test-server.ts';

interface ScriptedMessage {
  role: string;
  content: string;
}

export interface ScriptedRequest {
  model: string;
  messages: ScriptedMessage[];
  /** The whole request body as sent. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in tests
  body: any;
  headers: IncomingMessage['headers'];
  /** 0-based position among all requests this server received. */
  index: number;
}

/** The reply's text (or an error's, with `status`); with `toolCalls`, a tool-call reply. A promise that never settles holds the request until its client goes away. */
type ScriptedReply =
  | string
  | { text: string; toolCalls?: ReplyToolCall[]; usage?: { input: number; output: number }; status?: number };

interface ServedCall {
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
  let index = 0;
  const server = await startLlmTestServer(async (req, res, raw) => {
    if (!req.url?.endsWith('/chat/completions')) {
      writeNoRoute(res, req.url ?? '');
      return;
    }
    const body = JSON.parse(raw || '{}');
    const messages: ScriptedMessage[] = (body.messages ?? []).map(
      (m: { role: string; content: unknown }) => ({
        role: m.role,
        content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
      }),
    );
    const request: ScriptedRequest = {
      model: body.model,
      messages,
      body,
      headers: req.headers,
      index: index++,
    };
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
    writeCompletion(res, {
      id: `chatcmpl-${request.index}`,
      model: body.model,
      text: r.text,
      toolCalls: r.toolCalls,
      usage,
    });
  });
  return {
    base: `${server.url}/v1`,
    calls,
    setScript: (s) => {
      current = s;
    },
    close: server.close,
  };
}
