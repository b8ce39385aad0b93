/** Takes the screenshots in docs/screenshots: `npx tsx tests/e2e/screenshots.ts`. */
import { join } from 'node:path';
import { DATA, openApp, ROOT, SIX } from './harness.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const s = await openApp();
const { page, url } = s;
await page.getByTestId('empty-state').waitFor();
await page.screenshot({ path: out('01-empty.png') });
await page.setInputFiles(
  '[data-testid=file-input]',
  SIX.map((f) => join(DATA, f)),
);
await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 6);
await page.getByRole('button', { name: 'Dismiss' }).click();
await page.screenshot({ path: out('02-traces.png') });
await page.goto(`${url}#/cases?labelled=labelled`);
await page.getByTestId('case-row').first().waitFor();
await page.screenshot({ path: out('03-cases.png') });
await page.getByTestId('case-row').filter({ hasText: 'UpdateError' }).first().locator('a').first().click();
await page.getByTestId('var-block').first().waitFor();
await page.waitForTimeout(800);
await page.screenshot({ path: out('04-case-workspace.png') });
const traceId = await page.evaluate(() => location.hash.split('/')[2]);
await page.goto(`${url}#/t/${traceId}/var/${encodeURIComponent('memory-store@6')}`);
await page.getByTestId('diff').waitFor();
await page.screenshot({ path: out('05-version-diff.png') });
await page.goto(`${url}#/search?trace=${traceId}&q=sunrise`);
await page.getByTestId('search-hit').first().waitFor();
await page.screenshot({ path: out('06-search.png') });
await page.goto(`${url}#/t/${traceId}`);
await page.waitForTimeout(1500);
await page.getByTestId('theme-toggle').click();
await page.waitForTimeout(300);
await page.screenshot({ path: out('07-trace-dark.png') });
await s.close();
