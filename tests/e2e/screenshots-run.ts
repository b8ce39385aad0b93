/** Takes the "Run a system" screenshots in docs/screenshots: `npx tsx tests/e2e/screenshots-run.ts`. */
import { join } from 'node:path';
import { openApp, ROOT } from './harness.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const s = await openApp();
const { page, url } = s;
await page.goto(`${url}#/run`);
await page.getByTestId('run-empty').waitFor();
await page.screenshot({ path: out('14-run-system-empty.png') });
await page.setInputFiles('[data-testid=run-file]', join(ROOT, '../shared/data/locomo/v2/26.json'));
await page.getByTestId('run-conversation').waitFor();
await page.getByTestId('run-system').selectOption('mem0');
await page.getByTestId('run-sessions').fill('2');
await page.getByTestId('run-start').click();
await page.locator('[data-testid=run-result][data-status=done]').waitFor({ timeout: 60_000 });
await page.locator('[data-testid=run-failed-cases] li').first().waitFor();
await page.waitForTimeout(300);
await page.screenshot({ path: out('15-run-system-done.png'), fullPage: true });
// A whole conversation, caught mid-run, then cancelled.
await page.getByTestId('run-system').selectOption('long-context');
await page.getByTestId('run-sessions').fill('');
await page.getByTestId('run-start').click();
await page.waitForFunction(() =>
  /^[1-9]\d* \//.test(document.querySelector('[data-testid=run-questions-done]')?.textContent ?? ''),
);
await page.screenshot({ path: out('16-run-system-progress.png') });
await page.getByTestId('run-cancel').click();
await page.locator('[data-testid=run-result][data-status=cancelled]').waitFor();
await s.close();
