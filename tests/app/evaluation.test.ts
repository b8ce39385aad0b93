import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../src/core/bench/index.ts';
import { listCaseRows, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { caseLabels, saveLabel } from '../../src/db/labels.ts';
import {
  addEvaluationRun,
  finishEvaluationRun,
  latestCaseRun,
  listEvaluationRuns,
  saveCaseRun,
} from '../../src/db/runs.ts';
import { EngineService } from '../../workers/engine.ts';
import { ImportService } from '../../workers/import-service.ts';

const file = new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url);
let db: MemtraceDb;
let svc: EngineService;
let traceId: string;

beforeAll(async () => {
  db = openDb(`evaluation-${process.pid}`);
  const [r] = await new ImportService(db).importFiles(
    [{ blob: new Blob([readFileSync(file)]), name: 'f1.json', path: 'f1.json' }],
    {},
  );
  traceId = r.traceId!;
  svc = new EngineService(db);
});
afterAll(() => db.delete());

describe('EngineService.evaluate and the runs repository', () => {
  it('evaluate(traceIds) attributes every stored labelled case, reporting progress; unknown traces are listed as missing', async () => {
    const labelled = await listCaseRows(db, { traceId, labelled: 'labelled' });
    const seen: number[] = [];
    const r = await svc.evaluate([traceId, 'graph-gone'], (p) => seen.push(p.done));
    expect(r.status).toBe('done');
    expect(r.missing).toEqual(['graph-gone']);
    expect(r.cases.map((c) => c.query_id)).toEqual(labelled.map((c) => c.queryId));
    expect(seen.at(-1)).toBe(labelled.length);
    for (const [i, c] of r.cases.entries()) {
      expect(c.label_type).toBe(labelled[i].errorType);
      expect(c.label_op).toBe(labelled[i].labelOpId);
      expect(c.trace_id).toBe(traceId);
    }
    expect(summarize(r.cases).total_cases).toBe(labelled.length);
  });

  it('runEvaluation stores the run in the engine: running when it starts, then done with its cases and summary', async () => {
    const labelled = await listCaseRows(db, { traceId, labelled: 'labelled' });
    const parameters = { traceIds: [traceId], engine: 'evidence-flow', labelChoice: 'file' };
    let started: string | null = null;
    const row = await svc.runEvaluation(
      parameters,
      (r) => {
        started = r.status;
      },
      () => {},
    );
    expect(started).toBe('running');
    expect(row).toMatchObject({ status: 'done', parameters, error: null });
    expect(row.result!.cases.map((c) => c.query_id)).toEqual(labelled.map((c) => c.queryId));
    expect(row.result!.summary).toEqual(summarize(row.result!.cases));
    expect((await listEvaluationRuns(db))[0]).toEqual(row);
    await db.runs.delete(row.id!); // the tests below count the runs they store
  });

  it('aborting the signal stops after the current case and keeps the cases done', async () => {
    const abort = new AbortController();
    const r = await svc.evaluate(
      [traceId],
      (p) => {
        if (p.done === 2) abort.abort();
      },
      undefined,
      abort.signal,
    );
    expect(r.status).toBe('cancelled');
    expect(r.cases.length).toBe(2);
    // the next run is not affected by the earlier cancel
    expect((await svc.evaluate([traceId], () => {})).status).toBe('done');
  });

  it("saveLabel adds a person's label next to the file's: the file's label still scores by default, the person's when chosen", async () => {
    const [row] = await listCaseRows(db, { traceId, labelled: 'labelled' });
    const one = await svc.attributeCase(traceId, row.queryId);
    await saveCaseRun(db, one);
    expect((await latestCaseRun(db, traceId, row.queryId))?.result.predicted_op).toBe(one.predicted_op);
    const newType = row.errorType === 'UpdateError' ? 'DeletionError' : 'UpdateError';
    const a = await saveLabel(db, {
      traceId,
      queryId: row.queryId,
      errorType: newType,
      opId: 'op-x',
      reason: 'person says so',
      decision: 'corrected',
      method: 'evidence',
      annotator: 'ann',
    });
    expect(a).toMatchObject({ source: 'person', annotator: 'ann', errorType: newType, opId: 'op-x' });
    expect(a.context).toMatchObject({ query: row.question, golden_answers: row.goldenAnswers });
    const labels = await caseLabels(db, traceId, row.queryId);
    expect(labels.map((l) => [l.origin, l.errorType])).toEqual([
      ['file', row.errorType],
      ['workbench', newType],
    ]);
    // the stored case row keeps the file's label (the list shows the person's next to it)
    const { otherLabel: _listed, ...stored } = row;
    expect(await db.cases.get([traceId, row.queryId])).toEqual(stored);
    const [listed] = await listCaseRows(db, { traceId, labelled: 'labelled' });
    expect(listed.otherLabel).toEqual({
      errorType: newType,
      source: 'person',
      annotator: 'ann',
      opId: 'op-x',
    });
    const byFile = (await svc.evaluate([traceId], () => {})).cases.find((x) => x.query_id === row.queryId)!;
    expect([byFile.label_type, byFile.label_op]).toEqual([row.errorType, row.labelOpId]);
    const byAnn = await svc.evaluate([traceId], () => {}, 'annotator:ann');
    expect(byAnn.cases.map((c) => [c.query_id, c.label_type, c.label_op])).toEqual([
      [row.queryId, newType, 'op-x'],
    ]);
    const byPerson = await svc.evaluate([traceId], () => {}, 'source:person');
    expect(byPerson.cases).toHaveLength(1);
    expect((await svc.evaluate([traceId], () => {}, 'source:nobody')).cases).toEqual([]);
  });

  it('evaluation runs are stored and listed newest first', async () => {
    const a = await addEvaluationRun(db, { traceIds: [traceId], engine: 'evidence-flow' });
    const b = await addEvaluationRun(db, { traceIds: [traceId], engine: 'evidence-flow' });
    await finishEvaluationRun(db, b, { status: 'cancelled', result: null, error: null });
    const runs = await listEvaluationRuns(db);
    expect(runs.map((r) => r.id)).toEqual([b, a]);
    expect(runs[0].status).toBe('cancelled');
    expect(runs[1].status).toBe('running');
  });
});
