/**
 * Every request that reached the endpoint is counted — retries, repairs, failed parses,
 * cache hits as free, aborted calls — against a real HTTP server on 127.0.0.1 that counts
 * what it received (the expected numbers are the server's, never the code's own).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modelInfo, modelPort } from '../../src/app/attribution/model-port.ts';
import { engineFor } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  type Clock,
  completeJson,
  createChatModel,
  MemoryCacheStore,
  ProviderProfileSchema,
  UsageMeter,
} from '../../src/core/llm/index.ts';
import { MemorySink, Tracer } from '../../src/sdk/index.ts';
import { createSystem, loadLocomo, runSystem } from '../../src/systems/index.ts';
import { PortChatModel } from '../../workers/model-port.ts';
import { runCli } from '../helpers/cli.ts';
import { expectLlmFailure, hang, rawBody } from '../helpers/fault-llm-server.ts';
import { SHARED_DATA, SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';
import { useMockLlmServer } from './mock-llm-server.ts';

const server = useMockLlmServer();

/** Real time, waits capped at 2 ms. */
const fastClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, Math.min(ms, 2));
      signal?.addEventListener('abort', () => {
        clearTimeout(t);
        reject(signal.reason);
      });
    }),
};

function model(meter: UsageMeter, o: { retries?: number; cache?: MemoryCacheStore } = {}) {
  const profile = ProviderProfileSchema.parse({
    id: 't',
    name: 't',
    kind: 'openai',
    baseUrl: server.openaiBase,
    model: 'm',
    retries: o.retries ?? 2,
  });
  return createChatModel(profile, { meter, cache: o.cache, robust: { clock: fastClock } });
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const serverError = { status: 503, body: { error: { message: 'busy' } } };

describe('LLM accounting over real HTTP', () => {
  it('an answer after two retried 503s took three requests: the answer and the meter say 3', async () => {
    server.plan(serverError, serverError);
    const meter = new UsageMeter();
    const r = await model(meter).complete(ask);
    expect(server.requests).toHaveLength(3);
    expect(r.calls).toBe(3);
    expect(meter.totals()).toMatchObject({ calls: 3, failed: 0, inputTokens: 11, outputTokens: 7 });
  });

  it('a call that fails after its retries notes every request it made', async () => {
    server.always(serverError);
    const meter = new UsageMeter();
    const e = await expectLlmFailure(model(meter, { retries: 2 }).complete(ask));
    expect(server.requests).toHaveLength(3);
    expect(e.spent?.calls).toBe(3);
    expect(meter.totals()).toMatchObject({ calls: 3, failed: 1 });
  });

  it('structured output: unusable replies and their repairs are counted, with their tokens', async () => {
    server.always({ reply: 'no JSON here' });
    const meter = new UsageMeter();
    const e = await expectLlmFailure(
      completeJson(model(meter), ask, z.object({ a: z.number() }), { mode: 'json' }),
    );
    expect(e.kind).toBe('invalid-output');
    expect(server.requests).toHaveLength(3); // the answer and two repairs
    expect(e.spent).toEqual({ calls: 3, inputTokens: 33, outputTokens: 21, estimated: false });
    expect(meter.totals()).toMatchObject({ calls: 3, inputTokens: 33, outputTokens: 21 });
  });

  it('a cache hit makes no request and costs nothing', async () => {
    const meter = new UsageMeter();
    const cache = new MemoryCacheStore();
    await model(meter, { cache }).complete(ask);
    const again = await model(meter, { cache }).complete(ask);
    expect(server.requests).toHaveLength(1);
    expect(again).toMatchObject({ cached: true, calls: 0 });
    expect(meter.totals()).toMatchObject({ calls: 1, cached: 1, inputTokens: 11, outputTokens: 7 });
  });

  it('an aborted call that reached the server is counted', async () => {
    server.plan(hang());
    const meter = new UsageMeter();
    const ctl = new AbortController();
    const call = model(meter).complete({ ...ask, signal: ctl.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    ctl.abort();
    const e = await expectLlmFailure(call);
    expect(e.kind).toBe('aborted');
    expect(e.spent?.calls).toBe(1);
    expect(meter.totals()).toMatchObject({ calls: 1, failed: 1 });
  });
});

const FILE = join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json');
const QUERY = 'query:conv-26-qa-0@1';
const provider = () => ['--provider', 'openai', '--base-url', server.openaiBase, '--model', 'm'];

describe('counts the commands print are the server’s', () => {
  it('attribute --method obs: replies that are never a valid action still cost what the server served', async () => {
    server.always({ reply: 'I refuse to answer in JSON.' });
    const r = await runCli(['attribute', FILE, '--case', QUERY, '--method', 'obs', ...provider(), '--json']);
    const [a] = JSON.parse(r.stdout);
    const n = server.requests.length;
    expect(n).toBeGreaterThan(0);
    expect(a.cost).toMatchObject({ llm_calls: n, input_tokens: 11 * n, output_tokens: 7 * n });
    expect(r.stderr).toContain(`${n} model requests, ${11 * n} input + ${7 * n} output tokens`);
  });

  it('attribute: a provider that keeps failing is recorded on the case with what it cost; exit 1', async () => {
    server.always(serverError);
    const r = await runCli([
      'attribute',
      FILE,
      '--case',
      QUERY,
      '--method',
      'obs',
      ...provider(),
      '--retries',
      '1',
      '--json',
    ]);
    expect(r.code).toBe(1);
    const [a] = JSON.parse(r.stdout);
    expect(a.error).toMatchObject({ kind: 'server' });
    expect(a.error_type).toBeNull();
    expect(a.cost.llm_calls).toBe(server.requests.length);
    expect(server.requests.length).toBe(2);
    expect(r.stderr).toContain('1 of 1 case(s) failed');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('attribute over a whole file: a failing first case does not discard the others', async () => {
    const answerOp = 'op-4abf891a8592422bba81e87231f76035'; // an op of the file: a valid final answer
    server.plan(serverError, serverError); // the first case's two attempts (--retries 1) fail
    server.always({
      reply: '',
      toolCall: {
        name: 'final_answer',
        arguments: JSON.stringify({ error_type: 'ResponseError', op_id: answerOp, reason: 'scripted' }),
      },
    });
    const r = await runCli(['attribute', FILE, '--method', 'obs', ...provider(), '--retries', '1', '--json']);
    const out: { error: unknown; op_id: string | null }[] = JSON.parse(r.stdout);
    expect(out.length).toBeGreaterThan(1);
    expect(out[0].error).toMatchObject({ kind: 'server' });
    for (const a of out.slice(1)) expect(a).toMatchObject({ error: null, op_id: answerOp });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`1 of ${out.length} case(s) failed`);
    expect(r.stderr).toContain(`${server.requests.length} model requests`);
  });

  it('run: the systems’ calls and the judge’s, retries included, are all counted', async () => {
    const conv = loadLocomo(JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8')))[0];
    server.plan(serverError); // one retried request on the way
    const meter = new UsageMeter();
    const result = await runSystem(createSystem('rag'), conv, {
      tracer: new Tracer({ sink: new MemorySink() }),
      llm: model(meter),
      maxSessions: 1,
      questionIds: conv.questions.slice(0, 2).map((q) => q.id),
    });
    expect(result.answers).toHaveLength(2);
    expect(result.llmCalls).toBe(server.requests.length);
    expect(meter.totals().calls).toBe(server.requests.length);
    // Two answers and two LLM judge calls at least, plus the retried request.
    expect(server.requests.length).toBeGreaterThanOrEqual(5);
  });

  it('the app: a worker’s agent run through the page’s port counts what the page’s meter and the server count', async () => {
    server.plan(rawBody('<html>not json</html>')); // a bad reply, retried
    server.always({ reply: 'still no action' });
    const meter = new UsageMeter();
    const page = model(meter);
    const worker = new PortChatModel(modelInfo(page), modelPort(page));
    const g = openTrace(readFileSync(FILE, 'utf8'), { file: FILE });
    if (!g.ok) throw new Error('fixture did not load');
    const c = listCases(g.graph).find((x) => x.queryId === QUERY)!;
    // No valid action ever: the run fails (a failed case), noting every request it cost.
    const e = await engineFor('obs')({ graph: g.graph, case: c, system: 'rag' }, { model: worker }).then(
      () => null,
      (x: unknown) => x as { kind: string; spent: { calls: number } },
    );
    expect(e?.kind).toBe('no-valid-action');
    expect(server.requests.length).toBeGreaterThan(1);
    expect(e?.spent.calls).toBe(server.requests.length);
    expect(meter.totals().calls).toBe(server.requests.length);
  });
});
