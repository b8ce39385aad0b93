/**
 * A long-context run made by the offline reference system (LoCoMo conv-26, the first
 * sessions) for the e2e tests and screenshots: every question re-reads the window, so
 * its case paths show whether later ops leak in. Written to a temp folder at run time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceDocument } from '../../src/core/trace/index.ts';
import { steppingClock, Tracer } from '../../src/sdk/index.ts';
import { createSystem, loadLocomo, runSystem, type SystemName } from '../../src/systems/index.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

/** Runs the system and writes the trace as `long-context-conv-26.json` in `dir`. */
export function writeLongContextTrace(
  dir: string,
  sessions = 4,
): Promise<{ path: string; doc: TraceDocument }> {
  return writeConv26Run(dir, 'long-context', sessions);
}

/** A reference system offline on the first `sessions` of LoCoMo conv-26, written as `<system>-conv-26.json` in `dir`. */
export async function writeConv26Run(
  dir: string,
  system: SystemName,
  sessions: number,
): Promise<{ path: string; doc: TraceDocument }> {
  const conv = loadLocomo(JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8')))[0];
  let n = 0;
  const tracer = new Tracer({
    clock: steppingClock(Date.UTC(2026, 0, 1), 1),
    // A counter: ids never repeat, whatever the run's length.
    ids: () => (++n).toString(16).padStart(32, '0'),
    metadata: { system },
    filename: 'long-context-trace.ts',
  });
  await runSystem(createSystem(system), conv, { tracer, maxSessions: sessions });
  const doc = tracer.document();
  const path = join(dir, `${system}-conv-26.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return { path, doc };
}
