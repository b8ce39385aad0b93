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
    const abort = new AbortController();
    const results = await svc.importFiles(
      files,
      {},
      (p) => {
        if (p.fileIndex === 0 && p.phase === 'parsing') abort.abort();
      },
      abort.signal,
    );
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

describe('hostile files in storage', () => {
  const doc = () => JSON.parse(read('conv-26-rag-0.json').toString('utf8'));

  it('a graph_id that cannot be a key (missing, null, a number, an object) is refused at import, nothing stored', async () => {
    const svc = fresh();
    for (const bad of [undefined, null, 7, { id: 1 }, []]) {
      const d = doc();
      if (bad === undefined) delete d.graph_id;
      else d.graph_id = bad;
      const [r] = await svc.importFiles([input('bad.json', JSON.stringify(d))], {});
      expect(r.status).toBe('invalid');
      expect(r.issues.find((i) => i.path === '$.graph_id')?.severity).toBe('error');
    }
    expect(await listTraces(db)).toEqual([]);
  });

  it('a graph_id of "__proto__" is stored and read back as an ordinary key', async () => {
    const svc = fresh();
    const d = doc();
    d.graph_id = '__proto__';
    const [r] = await svc.importFiles([input('proto.json', JSON.stringify(d))], {});
    expect(r).toMatchObject({ status: 'stored', traceId: '__proto__' });
    expect((await listTraces(db)).map((t) => t.id)).toEqual(['__proto__']);
    expect((await listCaseRows(db, { traceId: '__proto__' })).length).toBeGreaterThan(0);
  });

  it('invalid UTF-8 is refused with the byte offset, never stored with U+FFFD', async () => {
    const svc = fresh();
    const bytes = new Uint8Array(read('conv-26-rag-0.json'));
    const at = bytes.indexOf(0x61, 5000); // an "a" inside the file
    bytes[at] = 0xff;
    const [r] = await svc.importFiles([input('bad-utf8.json', bytes)], {});
    expect(r.status).toBe('invalid');
    expect(r.issues[0].message).toMatch(new RegExp(`^not valid UTF-8: byte ${at} \\(line \\d+, 0xff\\)`));
    expect(await listTraces(db)).toEqual([]);
  });
});
