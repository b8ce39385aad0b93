/** An OTLP file dropped on the app goes through the engine worker's service like any trace (fake-indexeddb). */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.ts';
import { ImportService } from '../../workers/import-service.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

describe('ImportService on span files', () => {
  it('stores the shared OTLP example as a trace and reports the summary line', async () => {
    const db = openDb(`otel-${process.pid}`);
    const service = new ImportService(db, () => 1);
    const bytes = readFileSync(join(SHARED_DATA, 'otel/trace.json'));
    const [r] = await service.importFiles(
      [{ blob: new Blob([bytes]), name: 'trace.json', path: 'trace.json' }],
      {},
    );
    expect(r.status).toBe('stored');
    expect(r.summary).toMatch(/^OTLP\/JSON: 1 span → 1 op, 0 variables/);
    const meta = await db.traces.get('graph-5b8efff798038103d269b633813fc60c');
    expect(meta?.stats.operations).toBe(1);
    expect(meta?.caseCount).toBe(0);
  });
});
