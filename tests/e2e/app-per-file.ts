/** What a test file opens once: the app, a demo run — before its first test, gone after its last. */
import { afterAll, beforeAll } from 'vitest';
import type { SystemName, SystemSettings } from '../../src/systems/index.ts';
import { openApp, type Session } from './harness.ts';
import { tempDir, writeDemoRun } from './project-data.ts';

/**
 * The app opened once for a test file: before its first test, closed after its last. The
 * session the file's tests share; its fields are set when the file's tests start.
 */
export function appPerFile(options: Parameters<typeof openApp>[0] = {}): Session {
  const s = {} as Session;
  beforeAll(async () => {
    Object.assign(s, await openApp(options));
  }, 180_000);
  afterAll(async () => {
    await s.close?.();
  });
  return s;
}

/**
 * A reference system's run of the demo conversation, written for a test file into a temp folder
 * before its first test and removed after its last; `path` is set when the file's tests start.
 */
export function demoRunPerFile(system: SystemName, settings: SystemSettings): { path: string } {
  const tmp = tempDir();
  const run = { path: '' };
  beforeAll(async () => {
    run.path = await writeDemoRun(tmp.dir, system, settings);
  }, 120_000);
  afterAll(() => tmp.remove());
  return run;
}
