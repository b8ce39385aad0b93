/**
 * The engine is the database's one writer: the systems worker's side of its port
 * (workers/engine-link.ts) wired, over a real MessageChannel, to the engine
 * (`EngineService.connectSystems`) on fake-indexeddb, as the page connects the two workers.
 * A reference-system run's trace is stored by the engine, which keeps its graph open; the
 * optimisation loop's runs are kept by the engine, each round's state in its `runs` row.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { modelInfo, modelPort } from '../../src/app/attribution/model-port.ts';
import { OpenAICompatibleChatModel } from '../../src/core/llm/index.ts';
import { listCaseRows, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { IndexedDbCacheStore } from '../../src/db/llm-cache.ts';
import { EngineService } from '../../workers/engine.ts';
import { EngineLink } from '../../workers/engine-link.ts';
import { type OptimizeRun, OptimizeService } from '../../workers/optimize-service.ts';
import { SystemsService } from '../../workers/systems-service.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';

const dev = () => readFileSync(new URL('../../../shared/data/locomo/locomo-dev.json', import.meta.url));
const source = () => ({
  blob: new Blob([new Uint8Array(dev())], { type: 'application/json' }),
  name: 'locomo-dev.json',
});

let db: MemtraceDb | undefined;
let ports: MessagePort[] = [];
let server: ScriptedLlmServer | undefined;
afterEach(async () => {
  for (const p of ports) p.close();
  ports = [];
  await server?.close();
  server = undefined;
  await db?.delete();
  db = undefined;
});

/** The engine on a fresh database, and the systems worker's link to it over a channel of their own. */
function connected(): { engine: EngineService; link: EngineLink; db: MemtraceDb } {
  const fresh = openDb(`one-writer-${process.pid}-${Math.random()}`);
  db = fresh;
  const engine = new EngineService(fresh);
  const { port1, port2 } = new MessageChannel();
  ports = [port1, port2];
  engine.connectSystems(port2);
  const link = new EngineLink();
  link.connect(port1);
  return { engine, link, db: fresh };
}

describe('the engine writes what the systems worker produces', () => {
  it('stores a run’s trace through the engine, which keeps its graph open', async () => {
    const { engine, link, db } = connected();
    const r = await new SystemsService(link.importer).run({
      source: source(),
      conversationId: 'conv-30',
      system: 'mem0',
      maxSessions: 2,
    });
    expect(r.status, r.message).toBe('done');
    const [meta] = await listTraces(db);
    expect(meta.id).toBe(r.traceId);
    expect(meta.file).toBe(r.file);
    const cases = await listCaseRows(db, { traceId: meta.id });
    expect(cases.length).toBe(r.failed);
    expect(r.failed).toBeGreaterThan(0);
    // With its stored bytes gone, only a graph the engine kept open still answers.
    await db.blobs.delete(meta.id);
    const overview = await engine.caseOverview(meta.id, cases[0].queryId);
    expect(overview).toBeTruthy();
  }, 120_000);

  it('says so in words when a run is asked before the page connected the engine', async () => {
    const r = await new SystemsService(new EngineLink().importer).run({
      source: source(),
      conversationId: 'conv-30',
      system: 'rag',
      maxSessions: 1,
    });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/not connected to the engine/);
  });

  it('keeps the optimisation loop’s run and its round in a runs row the engine writes', async () => {
    const { link, db } = connected();
    server = await startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A` }));
    const model = new OpenAICompatibleChatModel({
      baseUrl: server.base,
      model: 'prompt-sensitive-test-double',
    });
    const row = await new OptimizeService(link.runs).optimize(
      {
        source: source(),
        system: 'mem0',
        train: ['conv-26'],
        heldOut: ['conv-30'],
        rounds: 1,
        maxSessions: 2,
        trainQuestions: 8,
        heldOutQuestions: 8,
      },
      modelInfo(model),
      modelPort(model),
      () => {},
    );
    const stored = (await db.runs.get(row.id as number)) as OptimizeRun;
    expect(stored).toMatchObject({ traceId: '*optimize', kind: 'optimize', status: row.state?.status });
    expect(stored.request).toMatchObject({ file: 'locomo-dev.json', dataset: 'locomo', rounds: 1 });
    expect(stored.state?.rounds).toHaveLength(1);
    expect(row.state?.status).toBe('done');
    // Resuming a run asks the engine for it; another run's id is refused in words.
    await expect(
      new OptimizeService(link.runs).optimize(
        { source: source(), system: 'mem0', train: [], heldOut: [], rounds: 1 },
        modelInfo(model),
        modelPort(model),
        () => {},
        (row.id as number) + 100,
      ),
    ).rejects.toThrow(/no optimisation run/);
  }, 240_000);
});

describe('the engine keeps the page’s LLM response cache', () => {
  it('stores, counts and clears responses in the cache’s own database', async () => {
    const { engine } = connected();
    const entry = {
      request: '{"v":1,"model":"m"}',
      response: {
        text: 'Paris',
        usage: { inputTokens: 3, outputTokens: 1, estimated: false },
        model: 'm',
        finishReason: 'stop' as const,
      },
      createdAt: 1,
    };
    await engine.llmCacheSet('k1', entry);
    // Read back through a connection of its own: the row is in `memtrace-llm-cache`.
    const own = new IndexedDbCacheStore();
    expect(await own.get('k1')).toEqual(entry);
    expect(await engine.llmCacheGet('k1')).toEqual(entry);
    expect(await engine.llmCacheSize()).toBe(1);
    await engine.llmCacheClear();
    expect(await own.get('k1')).toBeUndefined();
    own.close();
  });
});
