/** The app opened once for a test file: before its first test, closed after its last. */
import { afterAll, beforeAll } from 'vitest';
import { openApp, type Session } from './harness.ts';

/** The session the file's tests share; its fields are set when the file's tests start. */
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
