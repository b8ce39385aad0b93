/**
 * Stored verdicts carry the attributor's version (issue 31 item 8, issue 33 item 1), in
 * IndexedDB (fake-indexeddb, the real Dexie): the version-4 upgrade gives every stored verdict
 * of an older database an unknown (null) version, so evaluation runs and reports made before
 * count as stale; the engine re-attributes a case whose stored verdict an older attributor made
 * (and says which), instead of showing it as current. The database records its record types'
 * versions. A report takes the label a person gave a case instead of the attributor's, and
 * agreement leaves an older attributor's answers out.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTRIBUTOR_VERSION } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  engineLabels,
  getSetting,
  type MemtraceDb,
  openDb,
  RECORD_VERSIONS,
  RECORD_VERSIONS_KEY,
  saveLabel,
  V1_STORES,
} from '../../src/db/index.ts';
import {
  type CaseRun,
  type EvaluatedCase,
  type EvaluationRun,
  isStaleRun,
  isStaleVerdict,
  latestCaseRun,
  listEvaluationRuns,
  staleCases,
} from '../../src/db/runs.ts';
import { EngineService } from '../../workers/engine.ts';

const bytes = readFileSync(
  new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url),
);
const opened = openTrace(bytes.toString('utf8'), { file: 'f1.json' });
if (!opened.ok) throw new Error('test file does not open');
/** The file's failed questions, read here from the file (not from the app's storage). */
const failed = listCases(opened.graph).filter((c) => c.failed);

let n = 0;
const dbs: MemtraceDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});
const name = () => `verdicts-${process.pid}-${n++}`;
function fresh(): MemtraceDb {
  const db = openDb(name());
  dbs.push(db);
  return db;
}

/** A verdict as an older build stored it: no attributor version. */
const oldVerdict = (queryId: string, reason: string) =>
  ({
    method: 'evidence',
    trace_id: 'g',
    query_id: queryId,
    question: 'q?',
    predicted_type: 'RetrievalError',
    predicted_op: 'op-1',
    reason,
    path: [],
    grounds: null,
  }) as unknown as EvaluatedCase;

describe('the version-4 upgrade', () => {
  it('gives the verdicts an older database stored an unknown version: they and their runs count as stale', async () => {
    const dbName = name();
    const v3 = new Dexie(dbName);
    v3.version(1).stores(V1_STORES);
    v3.version(2).stores({ labels: '++id, graphId, [graphId+queryId]' });
    v3.version(3).stores({ annotations: null });
    const runs = v3.table('runs');
    await runs.add({
      traceId: 'g',
      queryId: 'q1',
      kind: 'attribution',
      method: 'evidence',
      status: 'done',
      createdAt: 1,
      result: oldVerdict('q1', 'one'),
    });
    await runs.add({
      traceId: '*evaluation',
      queryId: '',
      kind: 'evaluation',
      method: 'evidence',
      status: 'done',
      createdAt: 2,
      parameters: { traceIds: ['g'], engine: 'evidence' },
      finishedAt: 3,
      result: { summary: {}, cases: [oldVerdict('q1', 'one'), oldVerdict('q2', 'two')], missing: [] },
      error: null,
    });
    await runs.add({ traceId: '*report', queryId: '', kind: 'report', method: 'evidence', status: 'done' });
    await runs.add({
      traceId: '*report',
      queryId: '',
      kind: 'report',
      method: 'memtrace-file',
      status: 'done',
    });
    v3.close();

    const db = openDb(dbName);
    dbs.push(db);
    const rows = await db.runs.toArray();
    expect(rows).toHaveLength(4);
    expect(await getSetting(db, RECORD_VERSIONS_KEY)).toEqual(RECORD_VERSIONS);
    const caseRun = (await latestCaseRun(db, 'g', 'q1')) as CaseRun;
    expect(caseRun.result.attributor_version).toBeNull();
    expect(caseRun.result.reason).toBe('one'); // the verdict itself is kept
    expect(isStaleVerdict(caseRun.result)).toBe(true);
    const [evaluation] = await listEvaluationRuns(db);
    expect(evaluation.result!.cases.map((c) => c.attributor_version)).toEqual([null, null]);
    expect(staleCases(evaluation as EvaluationRun)).toBe(2);
    // Agreement counts no older attributor's answers as the engine's.
    expect(await engineLabels(db)).toEqual([]);
    const reports = rows.filter((r) => r.kind === 'report');
    expect(reports.map((r) => r.attributorVersion)).toEqual([null, null]);
    // An imported file's verdicts are not the attributor's: never stale.
    expect(
      reports.map((r) => isStaleRun({ method: r.method, attributorVersion: r.attributorVersion as null })),
    ).toEqual([true, false]);
  });

  it('a new database records the current record versions', async () => {
    const db = fresh();
    await db.open();
    expect(await getSetting(db, RECORD_VERSIONS_KEY)).toEqual(RECORD_VERSIONS);
  });
});

describe("the engine's verdict of a case", () => {
  async function imported() {
    const db = fresh();
    const engine = new EngineService(db);
    const [r] = await engine.importFiles([{ blob: new Blob([bytes]), name: 'f1.json', path: 'f1.json' }], {});
    return { db, engine, traceId: r.traceId! };
  }

  it('is re-attributed, not shown, when an older attributor stored it; a current one is reused', async () => {
    expect(failed.length).toBeGreaterThan(0);
    const { db, engine, traceId } = await imported();
    const q = failed[0].queryId;
    const first = await engine.caseVerdict(traceId, q);
    expect(first.replaced).toBeNull();
    expect(first.verdict.attributor_version).toBe(ATTRIBUTOR_VERSION);
    expect(first.verdict.query_id).toBe(q);
    const count = () => db.runs.where('[traceId+queryId]').equals([traceId, q]).count();
    expect(await count()).toBe(1); // the engine stored it

    const again = await engine.caseVerdict(traceId, q);
    expect(again.replaced).toBeNull();
    expect(await count()).toBe(1); // reused: nothing attributed or stored again

    // A newer row an older attributor made, then one stored before versions (the upgrade's null):
    // neither made-up verdict may be shown.
    for (const [version, said] of [
      ['evidence-flow@1', 'evidence-flow@1'],
      [null, 'unversioned'],
    ] as const) {
      const older = { ...first.verdict, reason: `made by ${said}`, attributor_version: version };
      await db.runs.add({
        ...((await latestCaseRun(db, traceId, q)) as CaseRun),
        id: undefined,
        result: older,
      });
      const redone = await engine.caseVerdict(traceId, q);
      expect(redone.replaced).toBe(said);
      expect(redone.verdict.reason).not.toBe(`made by ${said}`);
      expect(redone.verdict.attributor_version).toBe(ATTRIBUTOR_VERSION);
      expect((await latestCaseRun(db, traceId, q))?.result.attributor_version).toBe(ATTRIBUTOR_VERSION);
    }
    expect((await engineLabels(db)).map((l) => [l.queryId, l.reason])).toEqual([[q, first.verdict.reason]]);
  }, 60_000);

  it("makes a report that takes a person's correction as the case's verdict, stamped with the attributor's version", async () => {
    const { db, engine, traceId } = await imported();
    const c = failed[0];
    const stored = await db.cases.get([traceId, c.queryId]);
    expect(stored).toBeDefined();
    await saveLabel(db, {
      traceId,
      queryId: c.queryId,
      errorType: 'ExtractionError',
      opId: 'op-by-person',
      reason: 'corrected by a person',
      decision: 'corrected',
    });
    const row = await engine.buildReport({ traceIds: [traceId], source: { kind: 'evidence' } }, () => {});
    expect(row?.attributorVersion).toBe(ATTRIBUTOR_VERSION);
    expect(isStaleRun(row!)).toBe(false);
    const shown = row!.result.case_list.find((x) => x.query_id === c.queryId)!;
    expect(shown).toMatchObject({ error_type: 'ExtractionError', method: 'label:person' });
    expect(row!.result.methods['label:person']).toBe(1);
  }, 120_000);
});
