/** Takes the evaluation screenshots in docs/screenshots: `npx tsx tests/e2e/screenshots-evaluation.ts`. */
import { join } from 'node:path';
import { DATA, openApp, ROOT, SIX } from './harness.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const s = await openApp();
const { page, url } = s;
await page.getByTestId('empty-state').waitFor();
await page.setInputFiles(
  '[data-testid=file-input]',
  SIX.map((f) => join(DATA, f)),
);
await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 6);
await page.getByRole('button', { name: 'Dismiss' }).click();
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
await s.close();
