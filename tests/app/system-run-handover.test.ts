/**
 * A reference-system run hands its document to the import as it is (`ImportInput.document`):
 * its bytes are stored but not parsed back. What is stored is what importing those bytes as a
 * file stores, and a run's blob is never read while it is stored.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { getOriginal, listCaseRows, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import type { ImportApi } from '../../workers/api.ts';
import { ImportService } from '../../workers/import-service.ts';
import { SystemsService } from '../../workers/systems-service.ts';

const dev = () => readFileSync(new URL('../../../shared/data/locomo/locomo-dev.json', import.meta.url));

const dbs: MemtraceDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});

function db(): MemtraceDb {
  const d = openDb(`handover-${process.pid}-${dbs.length}`);
  dbs.push(d);
  return d;
}

/** What a database holds of its one trace, without the import time. */
async function held(d: MemtraceDb) {
  const [{ importedAt: _t, ...meta }] = await listTraces(d);
  return { meta, cases: await listCaseRows(d) };
}

describe('a system run hands over its document', () => {
  for (const system of ['mem0', 'long-context'] as const)
    it(`${system}: stores what importing its bytes stores, without reading them back`, async () => {
      const runDb = db();
      const importer = new ImportService(runDb);
      let bytesRead = 0;
      // Counts reads of the run's blob: its stream or its whole body.
      const watching: ImportApi = {
        importFiles: (inputs, ...rest) => {
          for (const i of inputs) {
            const blob = i.blob;
            for (const k of ['stream', 'text', 'arrayBuffer'] as const) {
              const real = blob[k].bind(blob) as () => unknown;
              const counted = () => {
                bytesRead++;
                return real();
              };
              Object.defineProperty(blob, k, { value: counted });
            }
          }
          return importer.importFiles(inputs, ...rest);
        },
        restoreFileLabels: () => importer.restoreFileLabels(),
      };
      const r = await new SystemsService(watching).run({
        source: { blob: new Blob([new Uint8Array(dev())]), name: 'locomo-dev.json' },
        conversationId: 'conv-30',
        system,
        maxSessions: 2,
      });
      expect(r.status, r.message).toBe('done');
      expect(bytesRead).toBe(0);
      const original = (await getOriginal(runDb, r.traceId as string)) as Blob;
      // Written in pieces, the file is the toolkit's layout: what JSON.stringify with 2 spaces writes.
      const text = await original.text();
      expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2));
      const fileDb = db();
      const [asFile] = await new ImportService(fileDb).importFiles(
        [{ blob: original, name: r.file as string, path: r.file as string }],
        {},
      );
      expect(asFile.status).toBe('stored');
      expect(asFile.warningCount).toBe(r.warningCount);
      expect(await held(runDb)).toEqual(await held(fileDb));
    });
});
