/**
 * An OpenTelemetry file dropped on the app in Chromium: the shared OTLP example (read from
 * ../shared/data at test time) is stored like any trace and the import panel says what its
 * spans became.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { openApp, type Session } from './harness.ts';

let s: Session;
beforeAll(async () => {
  s = await openApp();
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe('OTLP import in Chromium', () => {
  it('dropping trace.json lists the trace and shows the span summary as text', async () => {
    const { page } = s;
    const bytes = readFileSync(join(SHARED_DATA, 'otel/trace.json'));
    await page.getByTestId('empty-state').waitFor();
    await page.evaluate((b64) => {
      const raw = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([raw], 'trace.json', { type: 'application/json' }));
      const at = { bubbles: true, cancelable: true, dataTransfer: dt, clientX: 400, clientY: 300 };
      for (const type of ['dragenter', 'dragover', 'drop'])
        document.body.dispatchEvent(new DragEvent(type, at));
    }, bytes.toString('base64'));
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 1,
      null,
      {
        timeout: 60_000,
      },
    );
    const summary = page.locator('.summary').first();
    await summary.waitFor({ timeout: 30_000 });
    expect(await summary.innerText()).toMatch(/^OTLP\/JSON: 1 span → 1 op, 0 variables, 0 edges/);
    expect(s.errors).toEqual([]);
  }, 120_000);
});
