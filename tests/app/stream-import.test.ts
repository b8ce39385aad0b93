/**
 * The app's import reads a file as a stream (`Blob.stream()`), never its whole text, and a file
 * the streaming reader gives up on is read whole so its message keeps the exact place.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { getOriginal, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { ImportService } from '../../workers/import-service.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

let db: MemtraceDb;
afterEach(async () => {
  await db.delete();
});

/** A file whose whole-body reads fail: only its stream can be read. */
class StreamOnlyBlob extends Blob {
  override text(): Promise<string> {
    return Promise.reject(new Error('text() was called'));
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.reject(new Error('arrayBuffer() was called'));
  }
}

describe('streaming import in the engine', () => {
  it('imports a real trace from its stream without reading its whole text', async () => {
    db = openDb(`stream-${process.pid}-1`);
    const bytes = readFileSync(smartcommentFiles()[0]);
    const whole = JSON.parse(bytes.toString('utf8'));
    const [r] = await new ImportService(db).importFiles(
      [{ blob: new StreamOnlyBlob([bytes]), name: 'a.json', path: 'a.json' }],
      {},
    );
    expect(r.status).toBe('stored');
    expect(r.traceId).toBe(whole.graph_id);
    const [meta] = await listTraces(db);
    expect(meta.stats.nodes).toBe(whole.data.nodes.length);
    const stored = await getOriginal(db, whole.graph_id);
    expect(stored?.size).toBe(bytes.length);
  });

  it('a key given twice in data is read whole and reported with its line', async () => {
    db = openDb(`stream-${process.pid}-2`);
    const doc = JSON.parse(readFileSync(smartcommentFiles()[0], 'utf8'));
    const text = JSON.stringify(doc, null, 1).replace('"data": {', '"data": {\n  "edges": [],');
    const lines = text.split('\n');
    const first = lines.findIndex((l) => l.includes('"edges": [],')) + 1;
    const second = lines.findIndex((l, i) => i >= first && l.includes('"edges": [')) + 1;
    const [r] = await new ImportService(db).importFiles(
      [{ blob: new Blob([text]), name: 'twice.json', path: 'twice.json' }],
      {},
    );
    expect(r.status).toBe('invalid');
    const dup = r.issues.find((i) => i.code === 'duplicate-key');
    expect(dup).toMatchObject({ severity: 'error', file: 'twice.json', line: second });
    expect(dup?.message).toContain(`lines ${first} and ${second}`);
  });
});
