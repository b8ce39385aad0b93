/**
 * The systems service (workers/systems-service.ts) in Node: a reference system run
 * offline on a LoCoMo conversation of ../shared/data (read at test time, never copied
 * into the repository) is stored through the import path and loads cleanly.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { getOriginal, listCaseRows, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { detectDataset } from '../../src/systems/loaders/index.ts';
import type { SystemRunProgress } from '../../workers/api.ts';
import { ImportService } from '../../workers/import-service.ts';
import { SystemsService } from '../../workers/systems-service.ts';

const LOCOMO = new URL('../../../shared/data/locomo/', import.meta.url);
const dev = () => readFileSync(new URL('locomo-dev.json', LOCOMO));
const v2 = () => readFileSync(new URL('v2/26.json', LOCOMO));
const source = (bytes: Buffer, name: string) => ({
  blob: new Blob([new Uint8Array(bytes)], { type: 'application/json' }),
  name,
});

let db: MemtraceDb;
let n = 0;
function fresh() {
  db = openDb(`systems-${process.pid}-${n++}`);
  return new SystemsService(new ImportService(db));
}
afterEach(async () => {
  await db.delete();
});

describe('systems service', () => {
  it('detects LoCoMo in both layouts and lists the conversations', async () => {
    const svc = fresh();
    const info = await svc.inspect(source(dev(), 'locomo-dev.json'));
    expect(info.dataset).toBe('locomo');
    expect(info.detected).toBe(true);
    expect(info.layout).toMatch(/canonical/);
    expect(info.conversations.map((c) => c.id)).toContain('conv-26');
    expect(info.conversations.length).toBe(7);
    const one = await svc.inspect(source(v2(), '26.json'));
    expect(one.layout).toMatch(/v2/);
    expect(one.conversations.map((c) => c.id)).toEqual(['conv-26']);
    expect(one.conversations[0].sessions).toBeGreaterThan(2);
    expect(detectDataset({ dialogues: [] })?.dataset).toBe('realmem');
    expect(detectDataset([{ question_id: 'q', haystack_sessions: [] }])?.dataset).toBe('longmemeval');
    expect(detectDataset({ nothing: 1 })).toBeNull();
    await expect(svc.inspect(source(Buffer.from('{"nothing": 1}'), 'x.json'))).rejects.toThrow(
      /does not look like/,
    );
    await expect(svc.inspect(source(Buffer.from('{oops'), 'x.json'))).rejects.toThrow(/not JSON/);
  });

  for (const system of ['mem0', 'rag', 'long-context', 'evermemos'] as const)
    it(`runs ${system} offline on 2 sessions of conv-30 and stores a graph that loads with no issues`, async () => {
      const svc = fresh();
      const events: SystemRunProgress[] = [];
      const r = await svc.run(
        { source: source(dev(), 'locomo-dev.json'), conversationId: 'conv-30', system, maxSessions: 2 },
        (p) => events.push(p),
      );
      expect(r.status, r.message).toBe('done');
      expect(r.mode).toBe('offline');
      expect(r.sessions).toBe(2);
      expect(r.questions).toBeGreaterThan(0);
      expect(r.failed).toBeGreaterThan(0);
      expect(r.correct + r.failed).toBe(r.questions);
      expect(r.warningCount).toBe(0);
      // Progress: phases in order, sessions and questions counted up to the totals.
      const phases = [...new Set(events.map((e) => e.phase))];
      expect(phases).toEqual(['reading', 'running', 'exporting', 'storing', 'done']);
      const last = events.at(-1) as SystemRunProgress;
      expect(last.sessionsDone).toBe(2);
      expect(last.sessionsTotal).toBe(2);
      expect(last.questionsAnswered).toBe(r.questions);
      expect(last.correct).toBe(r.correct);

      // Stored like an imported file: meta, cases, and the original bytes = the exported JSON.
      const [meta] = await listTraces(db);
      expect(meta.id).toBe(r.traceId);
      expect(meta.file).toBe(r.file);
      expect(meta.system).toBe(system === 'long-context' ? 'long_context' : system);
      const cases = await listCaseRows(db, { traceId: meta.id });
      // The case list holds the failed questions (the paper's rule), each judged 0.
      expect(cases.length).toBe(r.failed);
      expect(cases.every((c) => c.failed && c.judgeScore === 0)).toBe(true);
      expect(meta.caseCount).toBe(r.failed);
      const original = await getOriginal(db, meta.id);
      expect(original).toBeTruthy();
      const text = await (original as Blob).text();
      expect(text.length).toBe(r.bytes);
      const opened = openTrace(text, { file: r.file as string });
      expect(opened.ok).toBe(true);
      expect(opened.issues).toEqual([]);
      const doc = JSON.parse(text);
      expect(doc.graph_id).toBe(r.traceId);
      expect(doc.metadata.mode).toBe('offline');
      expect(doc.metadata.conversation).toBe('conv-30');
      expect(doc.data.operations.length).toBe(r.operations);
    });

  it('aborting the signal stops the run between steps and stores nothing', async () => {
    const svc = fresh();
    const events: SystemRunProgress[] = [];
    const abort = new AbortController();
    const r = await svc.run(
      { source: source(dev(), 'locomo-dev.json'), conversationId: 'conv-26', system: 'mem0', maxSessions: 4 },
      (p) => {
        events.push(p);
        if (p.phase === 'running' && p.sessionsDone === 1) abort.abort();
      },
      undefined,
      undefined,
      abort.signal,
    );
    expect(r.status).toBe('cancelled');
    expect(r.traceId).toBeUndefined();
    const last = events.at(-1) as SystemRunProgress;
    expect(last.sessionsDone).toBe(1);
    expect(last.questionsAnswered).toBe(0);
    expect(events.some((e) => e.phase === 'storing')).toBe(false);
    expect(await listTraces(db)).toEqual([]);
    // The service is free again afterwards.
    const again = await svc.run(
      { source: source(v2(), '26.json'), conversationId: 'conv-26', system: 'rag', maxSessions: 1 },
      () => {},
    );
    expect(again.status, again.message).toBe('done');
    expect((await listTraces(db)).length).toBe(1);
  });

  it('reports bad requests in words', async () => {
    const svc = fresh();
    const r = await svc.run(
      { source: source(dev(), 'locomo-dev.json'), conversationId: 'conv-999', system: 'mem0' },
      () => {},
    );
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/No conversation "conv-999"/);
    const bad = await svc.run(
      { source: source(dev(), 'locomo-dev.json'), conversationId: 'conv-26', system: 'mem0', maxSessions: 0 },
      () => {},
    );
    expect(bad.message).toMatch(/positive whole number/);
  });
});
