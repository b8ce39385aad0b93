/**
 * The engine keeps what it imports: the graph built while importing is the one every later
 * question is answered from (the stored original is not read again), a newer request's
 * abort reaches the engine, and an `AbortSignal` crosses a comlink call.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { type MemtraceDb, openDb } from '../../src/db/index.ts';
import { isAbort } from '../../workers/api.ts';
import { EngineService } from '../../workers/engine.ts';

const file = new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url);
const bytes = readFileSync(file);
let db: MemtraceDb;
let n = 0;
afterEach(() => db.delete());

async function imported(): Promise<{ engine: EngineService; traceId: string }> {
  db = openDb(`engine-${process.pid}-${n++}`);
  const engine = new EngineService(db);
  const [r] = await engine.importFiles([{ blob: new Blob([bytes]), name: 'f1.json', path: 'f1.json' }], {});
  expect(r.status).toBe('stored');
  return { engine, traceId: r.traceId! };
}

describe('one engine per open trace', () => {
  it('answers from the graph it imported: the stored original is never read again', async () => {
    const { engine, traceId } = await imported();
    // Take the stored file away: an engine that parsed it again could not answer.
    await db.blobs.clear();
    const opened = openTrace(bytes.toString('utf8'), { file: 'f1.json' });
    if (!opened.ok) throw new Error('test file does not open');
    const c = listCases(opened.graph).find((x) => x.evidenceIds.length)!;
    const overview = await engine.caseOverview(traceId, c.queryId);
    expect(overview.evidence.map((v) => v.id)).toEqual(
      c.evidenceIds.filter((id) => opened.graph.varIndex.has(id)),
    );
    const found = await engine.search({
      q: c.question.split(' ').slice(0, 3).join(' '),
      traceIds: [traceId],
    });
    expect(found.traces).toBe(1);
    // Ranked retrieval indexes the same open graph (BM25: no embedder connected).
    const info = await engine.buildIndex(traceId, 'messages');
    expect(info.docs).toBeGreaterThan(0);
    expect(info.modelId).toBeNull();
    const hits = await engine.rankedSearch(traceId, c.question, { method: 'bm25', k: 3 });
    expect(hits).toHaveLength(3);
    // A forgotten trace is read from storage again — and here it is gone.
    engine.forget(traceId);
    await expect(engine.caseOverview(traceId, c.queryId)).rejects.toThrow(/not stored/);
  });

  it('an aborted request stops with an AbortError', async () => {
    const { engine, traceId } = await imported();
    const abort = new AbortController();
    abort.abort(new DOMException('newer request', 'AbortError'));
    const err = await engine.search({ q: 'support', traceIds: [traceId] }, abort.signal).catch((e) => e);
    expect(isAbort(err)).toBe(true);
  });

  it('an AbortSignal crosses a comlink call and aborts on the other side', async () => {
    db = openDb(`engine-${process.pid}-${n++}`);
    const { port1, port2 } = new MessageChannel();
    const seen: string[] = [];
    Comlink.expose(
      {
        wait(signal: AbortSignal) {
          return new Promise<string>((_, reject) => {
            signal.addEventListener('abort', () => {
              seen.push('aborted');
              reject(signal.reason);
            });
          });
        },
      },
      port1,
    );
    const remote = Comlink.wrap<{ wait(signal: AbortSignal): Promise<string> }>(port2);
    const abort = new AbortController();
    const pending = remote.wait(abort.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    abort.abort();
    expect(isAbort(await pending)).toBe(true);
    expect(seen).toEqual(['aborted']);
    port1.close();
    port2.close();
  });
});
