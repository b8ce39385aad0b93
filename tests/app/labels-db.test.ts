/**
 * Label records in IndexedDB (fake-indexeddb, the real Dexie): the v1 → v3 upgrade keeps
 * every annotation row, a replaced trace keeps its labels attached by query id (and names
 * those it could not), a person's label never overwrites another, delete / undo, exports
 * and imports, and the labelled counts every view shows.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { fileLabels, readLabelFile } from '../../src/core/labels/index.ts';
import {
  caseLabels,
  deleteLabel,
  exportLabels,
  listLabels,
  planImport,
  restoreLabel,
  saveAdjudication,
  saveLabel,
  storeImported,
} from '../../src/db/labels.ts';
import { labelledCounts } from '../../src/db/repo.ts';
import { type MemtraceDb, openDb, V1_STORES } from '../../src/db/schema.ts';
import { ImportService } from '../../workers/import-service.ts';

const DATA = new URL('../../../shared/data/smartcomment/', import.meta.url);
const bytes = readFileSync(new URL('conv-26-fault-1.json', DATA));
const doc = JSON.parse(bytes.toString('utf8'));
const blob = (b: BlobPart) => new Blob([b], { type: 'application/json' });

let n = 0;
const opened: MemtraceDb[] = [];
function fresh(): MemtraceDb {
  const db = openDb(`labels-${process.pid}-${n++}`);
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

async function importReal(db: MemtraceDb, b: BlobPart = bytes, replace = false) {
  const [r] = await new ImportService(db).importFiles([{ blob: blob(b), name: 'f1.json', path: 'f1.json' }], {
    replace,
  });
  return r;
}

describe('import stores the file labels as records', () => {
  it("every data.annotations entry becomes a file-origin record; case rows keep the file's first label", async () => {
    const db = fresh();
    const r = await importReal(db);
    const stored = await listLabels(db, [r.traceId!]);
    expect(stored.map(({ id, deletedAt, ...l }) => l)).toEqual(fileLabels(doc));
    const row = await db.cases.get([r.traceId!, doc.data.annotations[0].query_id]);
    expect(row).toMatchObject({
      errorType: doc.data.annotations[0].final_error_type,
      labelOpId: doc.data.annotations[0].final_op_id,
      labelSource: doc.data.annotations[0].label_source,
    });
  });
});

describe('labelled counts: one reading for every view', () => {
  it("count the file's labelled cases, then each case labelled by a person or an import, until deleted", async () => {
    const db = fresh();
    // The file with its first annotation only: its other failed questions are unlabelled.
    const one = { ...doc, data: { ...doc.data, annotations: doc.data.annotations.slice(0, 1) } };
    const { traceId } = await importReal(db, JSON.stringify(one));
    const annotated = new Set([one.data.annotations[0].query_id as string]);
    const opened = openTrace(JSON.stringify(one), { file: 'f1.json' });
    if (!opened.ok) throw new Error('test file does not open');
    const unlabelled = listCases(opened.graph)
      .filter((c) => !annotated.has(c.queryId))
      .map((c) => c.queryId);
    expect(unlabelled.length).toBeGreaterThanOrEqual(2);
    const counted = async () => (await labelledCounts(db)).get(traceId!) ?? 0;
    expect(await counted()).toBe(annotated.size);
    const mine = await saveLabel(db, {
      traceId: traceId!,
      queryId: unlabelled[0],
      errorType: 'UpdateError',
      opId: 'op-a',
      reason: 'mine',
    });
    expect(await counted()).toBe(annotated.size + 1);
    // A second label of a case already labelled counts the case once.
    await saveLabel(db, {
      traceId: traceId!,
      queryId: [...annotated][0],
      errorType: 'UpdateError',
      opId: 'op-b',
      reason: '',
    });
    expect(await counted()).toBe(annotated.size + 1);
    const imported = {
      ...mine,
      id: undefined,
      queryId: unlabelled[1],
      annotator: 'bob',
      origin: 'imported' as const,
    };
    await storeImported(db, [imported], 'bob.json');
    expect(await counted()).toBe(annotated.size + 2);
    await deleteLabel(db, mine.id!);
    expect(await counted()).toBe(annotated.size + 1);
  });
});

describe("a person's labels", () => {
  it('never change the case row or another label; delete and undo work on them, not on the file labels', async () => {
    const db = fresh();
    const { traceId } = await importReal(db);
    const q = doc.data.annotations[0].query_id as string;
    const before = await db.cases.get([traceId!, q]);
    const a = await saveLabel(db, {
      traceId: traceId!,
      queryId: q,
      errorType: 'UpdateError',
      opId: 'op-a',
      reason: 'one',
      annotator: 'ann',
    });
    const b = await saveLabel(db, {
      traceId: traceId!,
      queryId: q,
      errorType: 'DeletionError',
      opId: 'op-b',
      reason: 'two',
      annotator: 'bob',
    });
    expect(await db.cases.get([traceId!, q])).toEqual(before);
    const labels = await caseLabels(db, traceId!, q);
    expect(labels.map((l) => [l.origin, l.annotator, l.errorType])).toEqual([
      ['file', '', doc.data.annotations[0].final_error_type],
      ['workbench', 'ann', 'UpdateError'],
      ['workbench', 'bob', 'DeletionError'],
    ]);
    await deleteLabel(db, a.id!);
    expect((await caseLabels(db, traceId!, q)).map((l) => l.id)).toEqual([labels[0].id, b.id]);
    expect((await caseLabels(db, traceId!, q, { deleted: true })).length).toBe(3);
    await restoreLabel(db, a.id!);
    expect((await caseLabels(db, traceId!, q)).map((l) => l.id)).toEqual([labels[0].id, a.id, b.id]);
    await expect(deleteLabel(db, labels[0].id!)).rejects.toThrow(/file's own labels/);
    await expect(
      saveLabel(db, {
        traceId: traceId!,
        queryId: 'query:nope@1',
        errorType: 'UpdateError',
        opId: 'o',
        reason: '',
      }),
    ).rejects.toThrow(/no stored case/);
  });

  it('export carries only the labels made here, in the annotations-file shape, and reads back', async () => {
    const db = fresh();
    const { traceId } = await importReal(db);
    const q = doc.data.annotations[1].query_id as string;
    await saveLabel(db, {
      traceId: traceId!,
      queryId: q,
      errorType: 'RetrievalError',
      opId: 'op-r',
      reason: 'not retrieved',
      annotator: 'ann',
    });
    await saveAdjudication(db, {
      graphId: traceId!,
      queryId: q,
      errorType: 'RetrievalError',
      opId: 'op-r',
      reason: 'final',
      annotator: 'lead',
    });
    const file = await exportLabels(db);
    expect(
      file.annotations.map((a) => [a.graph_id, a.query_id, a.final_error_type, a.annotator, a.label_source]),
    ).toEqual([
      [traceId, q, 'RetrievalError', 'ann', 'person'],
      [traceId, q, 'RetrievalError', 'lead', 'adjudicated'],
    ]);
    expect(file.annotations[0].query).toBe(doc.data.annotations[1].query);
    expect((await exportLabels(db, { annotator: 'ann' })).annotations).toHaveLength(1);
    const back = readLabelFile(JSON.stringify(file), 'ann.json');
    expect(back.ok).toBe(true);
    if (back.ok) expect(back.labels.map((l) => l.annotator)).toEqual(['ann', 'lead']);
  });

  it('importing shows duplicates and conflicts and stores only what is kept', async () => {
    const db = fresh();
    const { traceId } = await importReal(db);
    const q = doc.data.annotations[2].query_id as string;
    await saveLabel(db, {
      traceId: traceId!,
      queryId: q,
      errorType: 'UpdateError',
      opId: 'op-u',
      reason: '',
      annotator: 'ann',
    });
    const incoming = [
      {
        graphId: traceId!,
        queryId: q,
        errorType: 'UpdateError',
        opId: 'op-u',
        reason: 'again',
        source: 'person',
        annotator: 'ann',
        createdAt: '',
        origin: 'imported' as const,
      },
      {
        graphId: traceId!,
        queryId: q,
        errorType: 'ExtractionError',
        opId: 'op-e',
        reason: '',
        source: 'person',
        annotator: 'ann',
        createdAt: '',
        origin: 'imported' as const,
      },
      {
        graphId: traceId!,
        queryId: q,
        errorType: 'ExtractionError',
        opId: 'op-e',
        reason: '',
        source: 'person',
        annotator: 'bob',
        createdAt: '',
        origin: 'imported' as const,
      },
    ];
    const plan = await planImport(db, incoming);
    expect(plan.map((p) => p.kind)).toEqual(['duplicate', 'conflict', 'new']);
    expect(
      await storeImported(
        db,
        plan.filter((p) => p.kind === 'new').map((p) => p.label),
        'bob.json',
      ),
    ).toBe(1);
    const rows = await caseLabels(db, traceId!, q);
    expect(rows.map((r) => [r.origin, r.annotator])).toEqual([
      ['file', ''],
      ['workbench', 'ann'],
      ['imported', 'bob'],
    ]);
    expect(rows[2].importedFrom).toBe('bob.json');
  });
});

describe('replacing a stored trace', () => {
  it('keeps labels attached by query id and reports those whose question the new file lacks', async () => {
    const db = fresh();
    const { traceId } = await importReal(db);
    const [keep, drop] = [
      doc.data.annotations[0].query_id as string,
      doc.data.annotations[3].query_id as string,
    ];
    await saveLabel(db, {
      traceId: traceId!,
      queryId: keep,
      errorType: 'UpdateError',
      opId: 'op-1',
      reason: '',
      annotator: 'ann',
    });
    const gone = await saveLabel(db, {
      traceId: traceId!,
      queryId: drop,
      errorType: 'UpdateError',
      opId: 'op-2',
      reason: '',
      annotator: 'ann',
    });
    // The new version of the file: `drop` was judged correct and is no longer annotated.
    const next = structuredClone(doc);
    next.data.annotations = next.data.annotations.filter((a: { query_id: string }) => a.query_id !== drop);
    const judge = next.data.operations.find(
      (o: { op_name: string; op_id: string }) =>
        o.op_name === 'llm-judge' &&
        next.data.edges.some(
          (e: { op_id: string; source_full_node_id: string }) =>
            e.op_id === o.op_id && e.source_full_node_id === drop,
        ),
    );
    const scoreId = next.data.edges.find(
      (e: { op_id: string; target_full_node_id: string }) =>
        e.op_id === judge.op_id && e.target_full_node_id.startsWith('judge_score:'),
    ).target_full_node_id;
    next.data.nodes.find((v: { full_node_id: string }) => v.full_node_id === scoreId).value = '1.0';
    const r = await importReal(db, JSON.stringify(next), true);
    expect(r.status).toBe('replaced');
    expect(r.labels).toEqual({
      kept: 1,
      detached: [{ id: gone.id, queryId: drop, annotator: 'ann', errorType: 'UpdateError' }],
    });
    const all = await listLabels(db, [traceId!]);
    expect(all.filter((l) => l.origin === 'file')).toHaveLength(next.data.annotations.length);
    // nothing of the person's is lost: the detached label is still stored (and exported)
    expect(all.filter((l) => l.origin === 'workbench').map((l) => l.queryId)).toEqual([keep, drop]);
    expect(await db.cases.get([traceId!, drop])).toBeUndefined();
  });
});

describe('the v1 → v3 upgrade', () => {
  it('moves every annotation row into labels, restores overwritten file labels from the stored file, and drops annotations', async () => {
    // Today's rows, as the current importer writes them, in a database at schema version 1.
    const scratch = fresh();
    const { traceId } = await importReal(scratch);
    const meta = (await scratch.traces.get(traceId!))!;
    const cases = await scratch.cases.toArray();
    const name = `labels-v1-${process.pid}-${n++}`;
    const v1 = new Dexie(name);
    v1.version(1).stores(V1_STORES);
    const [q0, q1] = [cases[0].queryId, cases[1].queryId];
    // A v1 correction wrote the person's label over q0's file label.
    const overwritten = cases.map((c) =>
      c.queryId === q0
        ? { ...c, errorType: 'UpdateError', labelOpId: 'op-p', labelSource: 'workbench', labelReason: 'mine' }
        : c,
    );
    await v1.table('traces').put(meta);
    await v1.table('blobs').put({ traceId, blob: blob(bytes), type: 'application/json' });
    await v1.table('cases').bulkPut(overwritten);
    const bench = (q: string, source: string) => ({
      query_id: q,
      final_error_type: 'UpdateError',
      label_source: source,
      decision: 'corrected',
      method: 'evidence',
      golden_answers: ['x'],
    });
    await v1.table('annotations').bulkAdd([
      {
        traceId,
        queryId: q0,
        errorType: 'UpdateError',
        opId: 'op-p',
        note: 'mine',
        createdAt: 1_700_000_000_000,
        bench: bench(q0, 'workbench'),
      },
      {
        traceId,
        queryId: q1,
        errorType: 'ResponseError',
        opId: 'op-a',
        note: '',
        createdAt: 1_700_000_100_000,
        bench: { ...bench(q1, 'workbench-agent'), reason: 'agent said' },
      },
    ]);
    v1.close();

    const db = openDb(name);
    opened.push(db);
    await db.open();
    expect(db.verno).toBe(4);
    expect(db.tables.map((t) => t.name)).not.toContain('annotations');
    const moved = (await db.labels.toArray()).filter((l) => l.origin === 'workbench');
    expect(moved).toEqual([
      expect.objectContaining({
        graphId: traceId,
        queryId: q0,
        errorType: 'UpdateError',
        opId: 'op-p',
        reason: 'mine',
        source: 'person',
        decision: 'corrected',
        method: 'evidence',
        createdAt: new Date(1_700_000_000_000).toISOString(),
        context: { golden_answers: ['x'] },
      }),
      expect.objectContaining({
        graphId: traceId,
        queryId: q1,
        errorType: 'ResponseError',
        opId: 'op-a',
        reason: 'agent said',
        source: 'agent',
      }),
    ]);
    expect((await db.traces.get(traceId!))?.fileLabelsPending).toBe(true);
    expect((await db.cases.get([traceId!, q0]))?.errorType).toBeNull();

    expect(await new ImportService(db).restoreFileLabels()).toBe(1);
    expect(await db.cases.toArray()).toEqual(cases);
    const after = await db.labels.toArray();
    expect(after.filter((l) => l.origin === 'file').map(({ id, deletedAt, ...l }) => l)).toEqual(
      fileLabels(doc),
    );
    expect(after.filter((l) => l.origin === 'workbench')).toEqual(moved);
    const t = (await db.traces.get(traceId!))!;
    expect([t.fileLabelsPending, t.labelledCount]).toEqual([false, meta.labelledCount]);
    expect(await new ImportService(db).restoreFileLabels()).toBe(0);
  });
});
