/**
 * The engine readies a trace's first attribution ahead (`prepareAttribution`): the trace's
 * judge is fitted then, once, and every case of the trace reuses that fit — the work that made
 * the first verdict of a session slow is not done again per case. Verdicts are the same as
 * without the preparation. The fit is kept with the trace: a later session of the same build reads
 * it back instead of fitting again.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deleteTrace, listCaseRows, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { EngineService } from '../../workers/engine.ts';
import type { EvaluatedCase } from '../../workers/evaluation.ts';
import { ImportService } from '../../workers/import-service.ts';
import { buildStamp } from '../../workers/judge-fits.ts';

// Counts the judge fits (core's `fitAnswerRule`, which `traceJudgeFit` calls); each still computes the real rule.
const fits = vi.hoisted(() => vi.fn());
vi.mock('../../src/core/attribution/answer-rule.ts', async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const realFit = real.fitAnswerRule as (...args: unknown[]) => unknown;
  return {
    ...real,
    fitAnswerRule: (...args: unknown[]) => {
      fits();
      return realFit(...args);
    },
  };
});

const file = new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url);
let db: MemtraceDb;
let traceId: string;
let queryIds: string[];

beforeAll(async () => {
  db = openDb(`first-attribution-${process.pid}`);
  const [r] = await new ImportService(db).importFiles(
    [{ blob: new Blob([readFileSync(file)]), name: 'f1.json', path: 'f1.json' }],
    {},
  );
  traceId = r.traceId!;
  queryIds = (await listCaseRows(db, { traceId })).map((c) => c.queryId);
});
afterAll(() => db.delete());

/** A verdict without its timing. */
const verdict = ({ seconds, ...rest }: EvaluatedCase) => rest;

/** The verdicts of every case after the preparation (the reference the later tests compare with). */
const prepared: EvaluatedCase[] = [];

describe('the first attribution of a trace, prepared', () => {
  it("fits the trace's judge once when prepared, and no case of the trace fits it again", async () => {
    expect(queryIds.length).toBeGreaterThan(3);
    const svc = new EngineService(db);
    fits.mockClear();
    await svc.prepareAttribution([traceId, traceId, 'graph-gone']);
    expect(fits).toHaveBeenCalledTimes(1);
    for (const q of queryIds) prepared.push(await svc.attributeCase(traceId, q));
    await svc.prepareAttribution([traceId]);
    expect(fits).toHaveBeenCalledTimes(1);
  });

  it('gives the same verdicts as an engine that was not prepared (which fits once, at its first case)', async () => {
    const svc = new EngineService(db);
    fits.mockClear();
    const cold: EvaluatedCase[] = [];
    for (const q of queryIds) cold.push(await svc.attributeCase(traceId, q));
    expect(fits).toHaveBeenCalledTimes(1);
    expect(cold.map(verdict)).toEqual(prepared.map(verdict));
    expect(new Set(cold.map((c) => c.predicted_type)).size).toBeGreaterThan(1);
  });
});

describe("a trace's judge fit, kept with the trace", () => {
  const build = 'engine.worker-AbCd1234.js';

  it('is computed in the first session of a build and read back, not computed, in the next one', async () => {
    fits.mockClear();
    const first = new EngineService(db, { build });
    await first.prepareAttribution([traceId]);
    expect(fits).toHaveBeenCalledTimes(1);
    const stored = await db.indexes.where('traceId').equals(traceId).toArray();
    expect(stored.map((r) => r.kind)).toEqual(['judge-fit:words']);

    const next = new EngineService(db, { build }); // a new session: a new worker, graphs opened anew
    fits.mockClear();
    const verdicts: EvaluatedCase[] = [];
    for (const q of queryIds) verdicts.push(await next.attributeCase(traceId, q));
    expect(fits).not.toHaveBeenCalled();
    expect(verdicts.map(verdict)).toEqual(prepared.map(verdict));
  });

  it('is computed again by another build, and never stored without a build name', async () => {
    fits.mockClear();
    await new EngineService(db, { build: 'engine.worker-Other999.js' }).attributeCase(traceId, queryIds[0]);
    expect(fits).toHaveBeenCalledTimes(1);
    await db.indexes.clear();
    await new EngineService(db).prepareAttribution([traceId]);
    expect(fits).toHaveBeenCalledTimes(2);
    expect(await db.indexes.count()).toBe(0);
  });

  it('goes with its trace: deleting the trace deletes it', async () => {
    await new EngineService(db, { build }).prepareAttribution([traceId]);
    expect(await db.indexes.where('traceId').equals(traceId).count()).toBe(1);
    await deleteTrace(db, traceId);
    expect(await db.indexes.count()).toBe(0);
  });
});

describe('the build name fits are stored under', () => {
  it("is the bundle's hashed file name in a production build, and none from the dev server", () => {
    expect(buildStamp('http://127.0.0.1:4173/assets/engine.worker-BNGFNiwV.js')).toBe(
      'engine.worker-BNGFNiwV.js',
    );
    expect(buildStamp('http://localhost:5173/workers/engine.worker.ts?worker_file&type=module')).toBeNull();
    expect(buildStamp('file:///work/workers/engine.ts')).toBeNull();
  });
});
