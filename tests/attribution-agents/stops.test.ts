/**
 * An agent that never reaches an accepted final answer is a failed case, not a verdict of
 * "no decisive error": the run rejects with `AgentStoppedError` (kind and reason, what it
 * spent), `memtrace attribute` / `bench` record `error: {kind, message}` on the case and
 * exit 1. The model is scripted (ScriptedChatModel in-process, the local OpenAI-compatible
 * test server over HTTP).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentStoppedError,
  attributeMemTrace,
  attributeObs,
  MAX_BAD_REPLIES,
} from '../../src/core/attribution/index.ts';
import { ScriptedChatModel, withSpent } from '../../src/core/llm/index.ts';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';
import { openaiFlags, useMockLlmServer } from '../llm/mock-llm-server.ts';
import { action, mem0Fixture } from './fixtures.ts';

const server = useMockLlmServer();

async function stopped(p: Promise<unknown>): Promise<AgentStoppedError & { spent?: { calls: number } }> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AgentStoppedError);
  return e as AgentStoppedError;
}

describe('an agent run without a verdict', () => {
  it('invalid actions on every try: no-valid-action, with every request it cost', async () => {
    const f = mem0Fixture();
    const model = new ScriptedChatModel(['I think it is the retrieval.'], { loop: true });
    const e = await stopped(attributeObs({ graph: f.g, case: f.c, system: 'mem0' }, { model }));
    expect(e.kind).toBe('no-valid-action');
    expect(e.message).toMatch(new RegExp(`gave no valid action ${MAX_BAD_REPLIES} times in a row`));
    expect(e.spent?.calls).toBe(model.requests.length);
    expect(model.requests.length).toBeGreaterThanOrEqual(MAX_BAD_REPLIES);
  });

  it('the iteration budget runs out: budget-exhausted (MemTrace and OBS)', async () => {
    const f = mem0Fixture();
    const explore = new ScriptedChatModel([action('explore', { mode: 'preview' })], { loop: true });
    const a = await stopped(
      attributeMemTrace(
        { graph: f.g, case: f.c, system: 'mem0' },
        { model: explore, agent: { maxSteps: 4 } },
      ),
    );
    expect(a.kind).toBe('budget-exhausted');
    expect(a.message).toMatch(/no acceptable final answer within 4 iterations/);
    // Four iterations (the last one allows only a final answer, so its reply is repaired too).
    expect(explore.requests.length).toBeGreaterThanOrEqual(4);
    const overview = new ScriptedChatModel([action('overview')], { loop: true });
    const o = await stopped(
      attributeObs({ graph: f.g, case: f.c, system: 'mem0' }, { model: overview, agent: { maxSteps: 3 } }),
    );
    expect(o.kind).toBe('budget-exhausted');
  });

  it('final answers refused every time (an op that does not exist): budget-exhausted, refusals counted', async () => {
    const f = mem0Fixture();
    const model = new ScriptedChatModel(
      [action('final_answer', { error_type: 'RetrievalError', op_id: 'op-nowhere', reason: 'guess' })],
      { loop: true },
    );
    const e = await stopped(
      attributeObs({ graph: f.g, case: f.c, system: 'mem0' }, { model, agent: { maxSteps: 5 } }),
    );
    expect(e.kind).toBe('budget-exhausted');
    expect(e.message).toMatch(/\(5 final answer\(s\) refused\)/);
  });

  it('withSpent keeps the kind (the CLI reads it)', () => {
    const e = withSpent(new AgentStoppedError('budget-exhausted', 'x'), {
      calls: 2,
      inputTokens: 1,
      outputTokens: 1,
      estimated: false,
    });
    expect(e.kind).toBe('budget-exhausted');
  });
});

const FILE = join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json');
const QUERY = 'query:conv-26-qa-0@1';
const provider = () => openaiFlags(server.openaiBase);

describe('memtrace attribute / bench with a model that never gives a valid action (HTTP)', () => {
  it('attribute: the case has error {kind, message}, no type, the requests counted; exit 1', async () => {
    server.always({ reply: 'Let me think about the retrieval step first.' });
    const r = await runCli(
      ['attribute', FILE, '--case', QUERY, '--method', 'obs', ...provider(), '--retries', '0', '--json'],
      { K: 'sk-test' },
    );
    expect(r.code).toBe(1);
    const [a] = JSON.parse(r.stdout);
    expect(a).toMatchObject({
      query_id: QUERY,
      error_type: null,
      op_id: null,
      error: { kind: 'no-valid-action' },
    });
    expect(a.error.message).toMatch(/gave no valid action 3 times in a row/);
    expect(a.cost.llm_calls).toBe(server.requests.length);
    expect(r.stderr).toMatch(/1 of 1 case\(s\) failed/);
  });

  it('bench: every such case is a failed case; exit 1', async () => {
    server.always({ reply: 'no idea' });
    const out = await runCli(
      ['bench', FILE, '--method', 'memtrace', ...provider(), '--retries', '0', '--json'],
      {
        K: 'sk-test',
      },
    );
    expect(out.code).toBe(1);
    const s = JSON.parse(out.stdout);
    expect(s.failed_cases).toBe(s.total_cases);
    expect(s.total_cases).toBeGreaterThan(0);
    expect(out.stderr).toMatch(/failed: no-valid-action: the model gave no valid action/);
  }, 120_000);
});
