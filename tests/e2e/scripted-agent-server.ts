/**
 * A scripted test server (tests/helpers/scripted-llm-server.ts: a real HTTP server on
 * 127.0.0.1 speaking the OpenAI-compatible `POST /v1/chat/completions` API) answering an
 * attribution agent with a fixed policy of native tool calls, with usage. The policy is
 * stateless — the reply depends on how many assistant turns the request already holds —
 * so a resumed run gets the same answers as an uninterrupted one. `hold(turn)` makes the
 * next request at that turn wait until the client goes away (a reload, a cancel), so a
 * test can act mid-run. No model is involved.
 */
import { startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';

interface ToolStep {
  name: string;
  args: Record<string, unknown>;
}

interface Received {
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
  const usageAt = (turn: number) => ({ input: 1000 + 100 * turn, output: 20 + turn });

  const llm = await startScriptedLlmServer((r) => {
    const turn = r.messages.filter((m) => m.role === 'assistant').length;
    const rec: Received = { turn, authorization: r.headers.authorization, body: r.body, answered: false };
    received.push(rec);
    if (holds.has(turn)) {
      holds.delete(turn);
      heldArrived?.();
      return new Promise<never>(() => {}); // answered never: the client goes away
    }
    const step = policy[Math.min(turn, policy.length - 1)];
    rec.answered = true;
    return {
      text: '',
      toolCalls: [{ id: `call_${turn}`, name: step.name, arguments: JSON.stringify(step.args) }],
      usage: usageAt(turn),
    };
  });
  return {
    base: llm.base,
    received,
    hold(turn) {
      holds.add(turn);
      heldPromise = new Promise<void>((r) => {
        heldArrived = r;
      });
    },
    held: () => heldPromise,
    usageAt,
    close: llm.close,
  };
}
