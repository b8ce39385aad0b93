import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../src/core/bench/metrics.ts';
import { listCaseRows, type MemtraceDb, openDb } from '../../src/db/index.ts';
import {
  addEvaluationRun,
  finishEvaluationRun,
  latestCaseRun,
  listAnnotations,
  listEvaluationRuns,
  saveCaseRun,
  saveLabel,
} from '../../src/db/runs.ts';
import { AnalysisService } from '../../workers/analysis-service.ts';
import { ImportService } from '../../workers/import-service.ts';

const file = new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url);
let db: MemtraceDb;
let svc: AnalysisService;
let traceId: string;

beforeAll(async () => {
  db = openDb(`evaluation-${process.pid}`);
  const [r] = await new ImportService(db).importFiles(
    [{ blob: new Blob([readFileSync(file)]), name: 'f1.json', path: 'f1.json' }],
    {},
  );
  traceId = r.traceId!;
  svc = new AnalysisService(db);
});
afterAll(() => db.delete());

describe('AnalysisService.evaluate and the runs repository', () => {
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

  it('cancelEvaluation() stops after the current case and keeps the cases done', async () => {
    const r = await svc.evaluate([traceId], (p) => {
      if (p.done === 2) svc.cancelEvaluation();
    });
    expect(r.status).toBe('cancelled');
    expect(r.cases.length).toBe(2);
    // the next run is not affected by the earlier cancel
    expect((await svc.evaluate([traceId], () => {})).status).toBe('done');
  });

  it('saveLabel stores a MemTraceBench annotation that becomes the case label and counts in the next evaluation', async () => {
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
    });
    expect(a.bench).toMatchObject({
      query_id: row.queryId,
      query: row.question,
      golden_answers: row.goldenAnswers,
      final_error_type: newType,
      final_op_id: 'op-x',
      label_source: 'workbench',
    });
    expect(await listAnnotations(db, traceId, row.queryId)).toHaveLength(1);
    const after = await db.cases.get([traceId, row.queryId]);
    expect(after).toMatchObject({ errorType: newType, labelOpId: 'op-x', labelSource: 'workbench' });
    const r = await svc.evaluate([traceId], () => {});
    const c = r.cases.find((x) => x.query_id === row.queryId)!;
    expect(c.label_type).toBe(newType);
    expect(c.label_op).toBe('op-x');
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
