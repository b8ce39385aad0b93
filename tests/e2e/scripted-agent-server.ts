/**
 * A scripted test server: a real HTTP server on 127.0.0.1 (random port) speaking the
 * OpenAI-compatible `POST /v1/chat/completions` API (JSON replies with native tool calls
 * and usage), answering an attribution agent with a fixed policy. The policy is
 * stateless — the reply depends on how many assistant turns the request already holds —
 * so a resumed run gets the same answers as an uninterrupted one. `hold(turn)` makes the
 * next request at that turn wait until the client goes away (a reload, a cancel), so a
 * test can act mid-run. No model is involved.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolStep {
  name: string;
  args: Record<string, unknown>;
}

export interface Received {
  turn: number;
  authorization: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in tests
  body: any;
  /** Answered (false: held until the client went away). */
  answered: boolean;
}

export interface ScriptedAgentServer {
  /** OpenAI-compatible base URL (`…/v1`). */
  base: string;
  received: Received[];
  /** The next request at this turn is held until its client disconnects. */
  hold(turn: number): void;
  /** Resolves when a held request has arrived. */
  held(): Promise<void>;
  /** Usage reported for the reply at a turn. */
  usageAt(turn: number): { input: number; output: number };
  close(): Promise<void>;
}

export async function startScriptedAgentServer(policy: ToolStep[]): Promise<ScriptedAgentServer> {
  const received: Received[] = [];
  const holds = new Set<number>();
  let heldArrived: (() => void) | null = null;
  let heldPromise = new Promise<void>((r) => {
    heldArrived = r;
  });
  const open = new Set<ServerResponse>();
  const usageAt = (turn: number) => ({ input: 1000 + 100 * turn, output: 20 + turn });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    res.setHeader(
      'access-control-allow-headers',
      req.headers['access-control-request-headers'] ?? 'authorization, content-type',
    );
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw || '{}');
      const turn = (body.messages ?? []).filter((m: { role: string }) => m.role === 'assistant').length;
      const rec: Received = { turn, authorization: req.headers.authorization, body, answered: false };
      received.push(rec);
      open.add(res);
      res.on('close', () => open.delete(res));
      if (holds.has(turn)) {
        holds.delete(turn);
        heldArrived?.();
        return; // answered never: the client goes away
      }
      const step = policy[Math.min(turn, policy.length - 1)];
      const usage = usageAt(turn);
      rec.answered = true;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: 'chat.completion',
          model: body.model ?? 'scripted',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: '',
                tool_calls: [
                  {
                    id: `call_${turn}`,
                    type: 'function',
                    function: { name: step.name, arguments: JSON.stringify(step.args) },
                  },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    received,
    hold(turn) {
      holds.add(turn);
      heldPromise = new Promise<void>((r) => {
        heldArrived = r;
      });
    },
    held: () => heldPromise,
    usageAt,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
