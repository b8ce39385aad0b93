/**
 * An OpenTelemetry file dropped on the app in Chromium: the shared OTLP example (read from
 * ../shared/data at test time) is stored like any trace and the import panel says what its
 * spans became.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { appPerFile } from './app-per-file.ts';
import { dropFile } from './harness.ts';

const s = appPerFile();

describe('OTLP import in Chromium', () => {
  it('dropping trace.json lists the trace and shows the span summary as text', async () => {
    const { page } = s;
    const bytes = readFileSync(join(SHARED_DATA, 'otel/trace.json'));
    await page.getByTestId('empty-state').waitFor();
    expect(await dropFile(page, bytes, 'trace.json')).toMatchObject({ dropTaken: true });
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
