/**
 * OpenTelemetry files dropped on the app in Chromium: the shared OTLP example and a Langfuse
 * download (read from ../shared/data at test time) are stored like any trace, and the import
 * panel says what their spans became and what it did not make ops.
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

  it('a Langfuse download opens with its text, and the panel says what it did not make ops', async () => {
    const { page } = s;
    const bytes = readFileSync(join(SHARED_DATA, 'otel-thirdparty/langfuse-download-openai-agents.json'));
    expect(await dropFile(page, bytes, 'langfuse-download-openai-agents.json')).toMatchObject({
      dropTaken: true,
    });
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 2,
      null,
      {
        timeout: 60_000,
      },
    );
    const result = page
      .getByTestId('import-result')
      .filter({ hasText: 'langfuse-download-openai-agents.json' });
    await result.waitFor({ timeout: 30_000 });
    expect(await result.locator('.summary').innerText()).toMatch(
      // Four observations with content and the trace's two scores (ops of their own: their comments).
      /^Langfuse trace export: 5 spans → 6 ops, 12 variables/,
    );
    // The AGENT observation "Hello world" has no input or output and only holds the others: said, as text.
    expect(await result.getByTestId('import-warnings').innerText()).toContain(
      '1 of 5 spans became no op (no content; they only hold other spans): "AGENT" (1 span)',
    );
    expect(s.errors).toEqual([]);
  }, 120_000);
});
