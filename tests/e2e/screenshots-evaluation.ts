/**
 * Takes the evaluation screenshots 08–11 in docs/screenshots: `npx tsx tests/e2e/screenshots-evaluation.ts`.
 * The traces are the demo conversation's fault-injected benchmark (tests/e2e/project-data.ts, the
 * graphs of docs/examples), made in a temp folder and removed at the end.
 */
import { join } from 'node:path';
import { openApp, ROOT } from './harness.ts';
import { tempDir, writeDemoBench } from './project-data.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const tmp = tempDir();
const { files } = await writeDemoBench(tmp.dir);
const s = await openApp();
const { page, url } = s;
try {
  await page.getByTestId('empty-state').waitFor();
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=trace-row]').length === n,
    files.length,
    { timeout: 120_000 },
  );
  await page.getByRole('button', { name: 'Dismiss' }).click({ timeout: 120_000 });
  await page.goto(`${url}#/eval`);
  await page.getByTestId('eval-run').click();
  await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 120_000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: out('08-evaluation.png') });
  await page.screenshot({ path: out('09-evaluation-full.png'), fullPage: true });
  await page.getByTestId('eval-case-link').nth(3).click();
  await page.getByTestId('attribution-type').waitFor();
  await page.getByTestId('attribution-correct').click();
  await page.waitForTimeout(800);
  await page.getByTestId('correct-form').scrollIntoViewIfNeeded();
  await page.screenshot({ path: out('10-case-attribution.png') });
  await page.goto(`${url}#/eval`);
  await page.getByTestId('eval-metrics').waitFor();
  await page.getByTestId('theme-toggle').click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: out('11-evaluation-dark.png') });
} finally {
  await s.close();
  tmp.remove();
}
