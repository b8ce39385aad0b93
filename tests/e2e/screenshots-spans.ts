/**
 * A screenshot of the span view on a real third-party file (Phoenix span rows of an agent turn,
 * read from ../shared/data), its failed tool call selected:
 * `npx tsx tests/e2e/screenshots-spans.ts OUT.png`. Shared data stays out of committed images:
 * the path is the caller's.
 */
import { join } from 'node:path';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { openApp } from './harness.ts';
import { importAll } from './shots.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: npx tsx tests/e2e/screenshots-spans.ts OUT.png');
  process.exit(2);
}
const s = await openApp();
try {
  const { page } = s;
  await importAll(page, [join(SHARED_DATA, 'otel-thirdparty/phoenix-span-rows-agent-turn.json')]);
  await page.getByTestId('trace-row').locator('a').first().click();
  await page.getByTestId('trace-spans-link').click();
  await page.locator('[data-testid=span-row].error').first().click();
  await page.getByTestId('span-detail').getByTestId('var-value').first().waitFor();
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.screenshot({ path: out });
  console.log(`span view → ${out}`);
} finally {
  await s.close();
}
