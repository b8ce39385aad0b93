/**
 * Cancellation is one mechanism: the page passes an `AbortSignal` with the call that starts
 * a long operation, the signal crosses the comlink boundary (workers/abort-transfer.ts), and
 * aborting it stops the operation in the engine. Here the engine service is served over a
 * real MessageChannel exactly as the worker serves it, and each long operation — import,
 * evaluation, agent run, report — is started from the "page" end, aborted from there, and
 * seen to stop without storing anything (a cancelled agent run keeps only its own row; a
 * cancelled report stores no report, only the one-case verdicts it made, for the next report).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as Comlink from 'comlink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelInfo, modelPort } from '../../src/app/attribution/model-port.ts';
import { type ChatRequest, ScriptedChatModel, type ScriptReply } from '../../src/core/llm/index.ts';
import { addAgentRun, getAgentRun } from '../../src/db/agent-runs.ts';
import { listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import type {
  AgentRunEvent,
  EngineApi,
  EvalProgress,
  ImportProgress,
  ReportProgress,
} from '../../workers/api.ts';
import { EngineService } from '../../workers/engine.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const FAULTS = 'conv-26-fault-1.json';
const RAG = 'conv-26-rag-0.json';
const QUERY = 'query:conv-26-qa-0@1'; // a question of the RAG trace
const read = (name: string) => new Blob([readFileSync(join(SMARTCOMMENT_DIR, name))]);

let db: MemtraceDb;
let engine: Comlink.Remote<EngineApi>;
let faults: string;
let rag: string;

/** The engine as the page sees it: a comlink proxy over a MessageChannel, the worker's way. */
function served(service: EngineService): Comlink.Remote<EngineApi> {
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(service, port1);
  return Comlink.wrap<EngineApi>(port2);
}

beforeAll(async () => {
  db = openDb(`cancellation-${process.pid}`);
  engine = served(new EngineService(db));
  const stored = await engine.importFiles(
    [
      { blob: read(FAULTS), name: FAULTS, path: FAULTS },
      { blob: read(RAG), name: RAG, path: RAG },
    ],
    {},
  );
  expect(stored.map((r) => r.status)).toEqual(['stored', 'stored']);
  [faults, rag] = stored.map((r) => r.traceId as string);
});
afterAll(() => db.delete());

/** What a cancelled operation must leave alone: traces, cases, labels and stored runs. */
async function storedState() {
  return {
    traces: (await listTraces(db)).map((t) => t.id).sort(),
    cases: await db.cases.count(),
    labels: await db.labels.count(),
    runs: await db.runs.count(),
  };
}

describe('aborting the signal passed from the page stops the operation in the engine', () => {
  it('import: the files not yet stored are reported cancelled and nothing of them is stored', async () => {
    const before = await storedState();
    const abort = new AbortController();
    const files = ['conv-26-fault-2.json', 'conv-26-fault-3.json'];
    const results = await engine.importFiles(
      files.map((name) => ({ blob: read(name), name, path: name })),
      {},
      Comlink.proxy((p: ImportProgress) => {
        if (p.fileIndex === 0 && p.phase === 'parsing') abort.abort();
      }),
      abort.signal,
    );
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    expect(await storedState()).toEqual(before);
  });

  it('evaluation: stops before all cases are done and says it was cancelled', async () => {
    const before = await storedState();
    const abort = new AbortController();
    let total = 0;
    const r = await engine.evaluate(
      [faults],
      Comlink.proxy((p: EvalProgress) => {
        total = p.total;
        if (p.done >= 1) abort.abort();
      }),
      undefined,
      abort.signal,
    );
    expect(total).toBeGreaterThan(4); // enough cases for the abort to arrive before the end
    expect(r.status).toBe('cancelled');
    expect(r.cases.length).toBeGreaterThanOrEqual(1);
    expect(r.cases.length).toBeLessThan(total);
    expect(await storedState()).toEqual(before);
    // An evaluation whose signal is aborted before it starts does no case at all.
    const pre = new AbortController();
    pre.abort();
    const none = await engine.evaluate(
      [faults],
      Comlink.proxy(() => {}),
      undefined,
      pre.signal,
    );
    expect(none).toMatchObject({ status: 'cancelled', cases: [] });
  });

  it('report: resolves null and stores no report row (the verdicts it made are kept as one-case verdicts)', async () => {
    const before = await storedState();
    const verdicts = async () => (await db.runs.toArray()).filter((r) => r.kind === 'attribution').length;
    const verdictsBefore = await verdicts();
    const abort = new AbortController();
    let total = 0;
    let attributed = 0;
    const row = await engine.buildReport(
      { traceIds: [faults], source: { kind: 'evidence' } },
      Comlink.proxy((p: ReportProgress) => {
        total = p.total;
        attributed = p.attributed;
        if (p.done >= 1) abort.abort();
      }),
      abort.signal,
    );
    expect(total).toBeGreaterThan(4);
    expect(row).toBeNull();
    // Stopped part-way: far fewer than all cases were attributed, and only those verdicts were stored.
    expect(attributed).toBeLessThan(total);
    expect(await verdicts()).toBe(verdictsBefore + attributed);
    expect(await storedState()).toEqual({ ...before, runs: before.runs + attributed });
    expect((await db.runs.toArray()).filter((r) => r.kind === 'report')).toEqual([]);
  });

  it('agent run: the held model call in the page is aborted, the row is cancelled without a result, no label is stored', async () => {
    const id = await addAgentRun(db, {
      traceId: rag,
      queryId: QUERY,
      method: 'obs',
      parameters: { prior: false, maxSteps: 20 },
      model: { profileId: 'p1', profileName: 'scripted', provider: 'scripted', model: 'scripted' },
    });
    const before = await storedState();
    // The first model call answers with a grep; the second is held until its signal aborts.
    let reached!: () => void;
    const held = new Promise<void>((r) => {
      reached = r;
    });
    const model = new ScriptedChatModel(
      [
        () => ({
          text: JSON.stringify({ action: 'grep', args: { pattern: 'support group' } }),
          usage: { inputTokens: 100, outputTokens: 5, estimated: false },
        }),
        (req: ChatRequest) =>
          new Promise<ScriptReply>((_, reject) => {
            reached();
            req.signal?.addEventListener('abort', () => reject(new Error('aborted in the page')));
          }),
      ],
      { loop: false },
    );
    const port = modelPort(model);
    const abort = new AbortController();
    const running = engine.runAgent(
      id,
      modelInfo(model),
      Comlink.proxy(port),
      Comlink.proxy((_e: AgentRunEvent) => {}),
      abort.signal,
    );
    await held;
    expect(port.pending).toBe(1);
    abort.abort();
    const row = await running;
    expect(row.status).toBe('cancelled');
    expect(row.result).toBeNull();
    expect((await getAgentRun(db, id))?.status).toBe('cancelled');
    // the page-side call ended: the signal crossed worker → page as well
    await expect.poll(() => port.pending).toBe(0);
    expect(await storedState()).toEqual(before);
  });
});
