/** Steps the screenshot scripts (tests/e2e/screenshots*.ts) share. */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './harness.ts';

/** Where a screenshot goes: docs/screenshots/<name>. */
export const shot = (name: string) => join(ROOT, 'docs/screenshots', name);

/** Imports the files through the file input, waits for their rows and dismisses the import panel. */
export async function importAll(page: Page, files: string[]): Promise<void> {
  await page.getByTestId('empty-state').waitFor();
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=trace-row]').length === n,
    files.length,
    { timeout: 600_000 },
  );
  await page.getByRole('button', { name: 'Dismiss' }).click({ timeout: 600_000 });
}
