/**
 * Agent runs in the analysis service (as in the worker) over a stored real file: the
 * model is reached through the page-side port (`modelPort`, called directly here instead
 * of through comlink), checkpoints land in the `runs` row, a run abandoned mid-way (page
 * closed) resumes from its row to the same result and tokens, a stale runner cannot
 * overwrite a resumed run, cancel marks the row cancelled, and labels from agent runs
 * carry `label_source: 'agent'` (records of their own).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelInfo, modelPort } from '../../src/app/attribution/model-port.ts';
import { applyEvent } from '../../src/app/attribution/progress.ts';
import { type ChatRequest, ScriptedChatModel, type ScriptReply } from '../../src/core/llm/index.ts';
import {
  addAgentRun,
  EMPTY_PROGRESS,
  getAgentRun,
  listAgentRuns,
  reopenAgentRun,
} from '../../src/db/agent-runs.ts';
import { caseLabels, saveLabel } from '../../src/db/labels.ts';
import { type MemtraceDb, openDb } from '../../src/db/schema.ts';
import type { AgentRunEvent } from '../../workers/api.ts';
import { EngineService } from '../../workers/engine.ts';
import { ImportService } from '../../workers/import-service.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const QUERY = 'query:conv-26-qa-0@1';
const ANSWER_OP = 'op-4abf891a8592422bba81e87231f76035'; // rag.answer, the labelled op of this case

let db: MemtraceDb;
let traceId: string;

beforeAll(async () => {
  db = openDb(`agent-runs-${process.pid}`);
  const file = join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json');
  const [r] = await new ImportService(db).importFiles(
    [{ blob: new Blob([readFileSync(file)]), name: 'rag.json', path: 'rag.json' }],
    {},
  );
  traceId = r.traceId!;
});
afterAll(() => db.delete());

/** The scripted policy: the n-th reply (n = assistant turns so far) is grep, view_op, final_answer. */
function policy(req: ChatRequest): ScriptReply {
  const n = req.messages.filter((m) => m.role === 'assistant').length;
  const actions = [
    { action: 'grep', args: { pattern: 'support group' } },
    { action: 'view_op', args: { op_id: ANSWER_OP } },
    {
      action: 'final_answer',
      args: { error_type: 'ResponseError', op_id: ANSWER_OP, reason: 'The context had the date.' },
    },
  ];
  return {
    text: JSON.stringify(actions[Math.min(n, 2)]),
    usage: { inputTokens: 100 + 10 * n, outputTokens: 5 + n, estimated: false },
  };
}
const EXPECTED_TOKENS = { input: 100 + 110 + 120, output: 5 + 6 + 7 };

/** A scripted model that follows `policy` but holds the call of step `holdAt` until aborted. */
function holdingModel(holdAt: number) {
  let held: (() => void) | null = null;
  const reached = new Promise<void>((r) => {
    held = r;
  });
  const model = new ScriptedChatModel(
    [
      (req) => {
        const n = req.messages.filter((m) => m.role === 'assistant').length;
        if (n !== holdAt) return policy(req);
        held?.();
        return new Promise<ScriptReply>((_, reject) => {
          if (req.signal?.aborted) reject(new Error('aborted'));
          req.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        });
      },
    ],
    { loop: true },
  );
  return { model, reached };
}

async function newRun(method: 'obs' | 'memtrace' = 'obs') {
  return addAgentRun(db, {
    traceId,
    queryId: QUERY,
    method,
    parameters: { prior: false, maxSteps: 20 },
    model: { profileId: 'p1', profileName: 'scripted', provider: 'scripted', model: 'scripted' },
  });
}

async function until(ok: () => Promise<boolean>, ms = 10_000) {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('agent runs in the analysis service', () => {
  it('runs OBS through the model port, checkpointing every step in the row', async () => {
    const svc = new EngineService(db);
    const id = await newRun();
    const model = new ScriptedChatModel([policy], { loop: true });
    const events: AgentRunEvent[] = [];
    const row = await svc.runAgent(id, modelInfo(model), modelPort(model), (e) => events.push(e));
    expect(row.status).toBe('done');
    expect(row.result).toMatchObject({
      method: 'obs',
      predicted_type: 'ResponseError',
      predicted_op: ANSWER_OP,
      input_tokens: EXPECTED_TOKENS.input,
      output_tokens: EXPECTED_TOKENS.output,
      label_type: 'ResponseError',
      label_op: ANSWER_OP,
    });
    expect(row.checkpoint?.step).toBe(3);
    expect(row.checkpoint?.result?.op_id).toBe(ANSWER_OP);
    expect(row.progress).toMatchObject({ step: 3, input_tokens: 330, output_tokens: 18, llm_calls: 3 });
    expect(row.progress.notes.map((n) => n.note.split(' ')[0])).toEqual(['grep', 'view_op', 'final']);
    expect(row.progress.read_ops).toContain(ANSWER_OP);
    expect(events.filter((e) => e.type === 'step').map((e) => (e as { step: number }).step)).toEqual([
      1, 2, 3,
    ]);
    expect(events.filter((e) => e.type === 'tokens').at(-1)).toEqual({
      type: 'tokens',
      input_tokens: 330,
      output_tokens: 18,
    });
    // one `saved` per checkpoint written: the initial one, then after each step (the last holds the answer)
    expect(
      events
        .filter((e) => e.type === 'saved')
        .map((e) => (e as { progress: { step: number } }).progress.step),
    ).toEqual([0, 1, 2, 3]);
    // the folded live view ends where the stored progress is
    const live = events.reduce(applyEvent, { ...EMPTY_PROGRESS });
    expect(live).toMatchObject({ step: 3, input_tokens: 330, output_tokens: 18 });
  });

  it('a run abandoned mid-way (page closed) resumes from its row to the same result and tokens', async () => {
    const id = await newRun();
    const first = holdingModel(1);
    const stale = new EngineService(db); // the closed page's worker
    const staleAbort = new AbortController();
    const abandoned = stale.runAgent(
      id,
      modelInfo(first.model),
      modelPort(first.model),
      () => {},
      staleAbort.signal,
    );
    await first.reached;
    await until(async () => (await getAgentRun(db, id))?.progress.step === 1);
    const mid = (await getAgentRun(db, id))!;
    expect(mid).toMatchObject({ status: 'running', segment: 1 });
    expect(mid.progress).toMatchObject({ input_tokens: 100, output_tokens: 5 });
    expect(mid.checkpoint?.messages.length).toBeGreaterThan(2);

    // after the reload: a new segment, a new worker, a new model
    expect(await reopenAgentRun(db, id)).toBe(2);
    const model = new ScriptedChatModel([policy], { loop: true });
    const row = await new EngineService(db).runAgent(id, modelInfo(model), modelPort(model), () => {});
    expect(model.requests).toHaveLength(2); // only the steps after the checkpoint
    expect(row.status).toBe('done');
    expect(row.result).toMatchObject({
      predicted_op: ANSWER_OP,
      input_tokens: EXPECTED_TOKENS.input,
      output_tokens: EXPECTED_TOKENS.output,
    });
    expect(row.progress.notes.map((n) => n.step)).toEqual([1, 2, 3]);

    // the stale runner ends (cancelled) but may no longer write to the resumed run
    staleAbort.abort();
    const staleRow = await abandoned;
    expect(staleRow.status).toBe('done');
    expect((await getAgentRun(db, id))?.result?.predicted_op).toBe(ANSWER_OP);
  });

  it('aborting the signal stops the run and marks it cancelled; a cancelled run is not reopened', async () => {
    const svc = new EngineService(db);
    const id = await newRun('memtrace');
    const { model, reached } = holdingModel(1);
    const port = modelPort(model);
    const events: AgentRunEvent[] = [];
    const abort = new AbortController();
    const running = svc.runAgent(id, modelInfo(model), port, (e) => events.push(e), abort.signal);
    await reached;
    expect(port.pending).toBe(1);
    abort.abort();
    const row = await running;
    expect(row.status).toBe('cancelled');
    expect(row.result).toBeNull();
    expect(port.pending).toBe(0); // the page-side call was aborted too
    // MemTrace reported its frontier and the variable it explores
    expect(events.some((e) => e.type === 'frontier')).toBe(true);
    expect(events.some((e) => e.type === 'explore')).toBe(true);
    expect(row.progress.frontier.length + row.progress.explored.length).toBeGreaterThan(0);
    await expect(reopenAgentRun(db, id)).rejects.toThrow(/cancelled/);
    const listed = await listAgentRuns(db, traceId, QUERY);
    expect(listed[0].id).toBe(id);
  });

  it('a model failure marks the run failed with the message; it can be reopened', async () => {
    const svc = new EngineService(db);
    const id = await newRun();
    const model = new ScriptedChatModel([
      () => {
        throw new Error('server said no');
      },
    ]);
    const row = await svc.runAgent(id, modelInfo(model), modelPort(model), () => {});
    expect(row.status).toBe('failed');
    expect(row.error).toContain('server said no');
    expect(await reopenAgentRun(db, id)).toBe(2);
  });

  it('an accepted agent result is its own label record (source agent) with MemTraceBench context; the file label stays', async () => {
    const before = await db.cases.get([traceId, QUERY]);
    const a = await saveLabel(db, {
      traceId,
      queryId: QUERY,
      errorType: 'ResponseError',
      opId: ANSWER_OP,
      reason: 'The context had the date.',
      decision: 'accepted',
      method: 'obs',
      source: 'agent',
      annotator: 'ann',
    });
    expect(a).toMatchObject({
      graphId: traceId,
      queryId: QUERY,
      errorType: 'ResponseError',
      opId: ANSWER_OP,
      source: 'agent',
      annotator: 'ann',
      origin: 'workbench',
      method: 'obs',
      decision: 'accepted',
    });
    expect(a.context?.golden_answers?.length).toBeGreaterThan(0);
    expect((await caseLabels(db, traceId, QUERY)).filter((l) => l.origin === 'workbench')).toEqual([a]);
    expect(await db.cases.get([traceId, QUERY])).toEqual(before);
  });
});
