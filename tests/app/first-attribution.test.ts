/**
 * The engine readies a trace's first attribution ahead (`prepareAttribution`): the trace's
 * judge is fitted then, once, and every case of the trace reuses that fit — the work that made
 * the first verdict of a session slow is not done again per case. Verdicts are the same as
 * without the preparation.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listCaseRows, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { EngineService } from '../../workers/engine.ts';
import type { EvaluatedCase } from '../../workers/evaluation.ts';
import { ImportService } from '../../workers/import-service.ts';

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

describe('the first attribution of a trace, prepared', () => {
  const prepared: EvaluatedCase[] = [];

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
