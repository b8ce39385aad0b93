import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  deleteTrace,
  getOriginal,
  listCaseRows,
  listTraces,
  type MemtraceDb,
  openDb,
} from '../../src/db/index.ts';
import { ImportService } from '../../workers/import-service.ts';

const DATA = new URL('../../../shared/data/smartcomment/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, DATA));

let db: MemtraceDb;
let n = 0;
function fresh() {
  db = openDb(`test-${process.pid}-${n++}`);
  return new ImportService(db, () => 1000 + n);
}
afterEach(async () => {
  await db.delete();
});

function input(name: string, bytes: BlobPart, path = name) {
  return { blob: new Blob([bytes], { type: 'application/json' }), name, path };
}

describe('import into storage', () => {
  it('stores the trace meta, its cases and the original file byte for byte', async () => {
    const svc = fresh();
    const bytes = read('conv-26-fault-0.json');
    const [r] = await svc.importFiles(
      [input('conv-26-fault-0.json', bytes, 'bench/mem0/conv-26-fault-0.json')],
      {},
    );
    expect(r.status).toBe('stored');
    const [meta] = await listTraces(db);
    expect(meta.id).toBe(r.traceId);
    expect(meta.system).toBe('mem0');
    expect(meta.labelledCount).toBeGreaterThan(0);
    const stored = new Uint8Array(await (await getOriginal(db, meta.id))!.arrayBuffer());
    expect(Buffer.from(stored).equals(bytes)).toBe(true);
    const cases = await listCaseRows(db, { labelled: 'labelled' });
    expect(cases.length).toBe(meta.labelledCount);
    expect(cases.every((c) => c.errorType && c.system === 'mem0')).toBe(true);
  });

  it('reports an existing graph_id instead of replacing it, and replaces it when asked', async () => {
    const svc = fresh();
    const bytes = read('conv-26-rag-0.json');
    expect((await svc.importFiles([input('a.json', bytes)], {}))[0].status).toBe('stored');
    const again = await svc.importFiles([input('b.json', bytes)], {});
    expect(again[0].status).toBe('exists');
    expect((await listTraces(db))[0].file).toBe('a.json');
    const replaced = await svc.importFiles([input('b.json', bytes)], { replace: true });
    expect(replaced[0].status).toBe('replaced');
    const traces = await listTraces(db);
    expect(traces.map((t) => t.file)).toEqual(['b.json']);
    expect((await listCaseRows(db)).length).toBe(traces[0].caseCount);
  });

  it('a malformed file is reported with its place and leaves stored traces untouched', async () => {
    const svc = fresh();
    await svc.importFiles([input('good.json', read('conv-26-fault-1.json'))], {});
    const before = await listTraces(db);
    const casesBefore = await listCaseRows(db);
    const [bad] = await svc.importFiles(
      [input('broken.json', '{"graph_id": "x", "data": {\n  "nodes": [,]}}')],
      {},
    );
    expect(bad.status).toBe('invalid');
    expect(bad.issues[0].file).toBe('broken.json');
    expect(bad.issues[0].line).toBe(2);
    expect(await listTraces(db)).toEqual(before);
    expect(await listCaseRows(db)).toEqual(casesBefore);
  });

  it('cancel stops the import and stores nothing of the unfinished files', async () => {
    const svc = fresh();
    const files = [
      input('one.json', read('conv-26-fault-2.json')),
      input('two.json', read('conv-26-fault-3.json')),
    ];
    const results = await svc.importFiles(files, {}, (p) => {
      if (p.fileIndex === 0 && p.phase === 'parsing') svc.cancel();
    });
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    expect(await listTraces(db)).toEqual([]);
  });

  it('deleteTrace removes the trace, its file and its cases', async () => {
    const svc = fresh();
    const [r] = await svc.importFiles([input('x.json', read('conv-26-fault-4.json'))], {});
    await deleteTrace(db, r.traceId!);
    expect(await listTraces(db)).toEqual([]);
    expect(await getOriginal(db, r.traceId!)).toBeUndefined();
    expect(await listCaseRows(db)).toEqual([]);
  });
});
