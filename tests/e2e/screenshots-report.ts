/** Takes the Report view screenshot in docs/screenshots: `npx tsx tests/e2e/screenshots-report.ts` (needs bench/out/faultbench). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openApp, ROOT } from './harness.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
// Injected-fault graphs of three splits (small: construction up to the evidence), 12 each.
const files = ['mem0', 'rag', 'evermemos'].flatMap((split) => {
  const dir = join(ROOT, 'bench/out/faultbench', split);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.includes('-base'))
    .sort()
    .slice(0, 12)
    .map((f) => join(dir, f));
});
const s = await openApp();
const { page, url } = s;
await page.setInputFiles('[data-testid=file-input]', files);
await page.waitForFunction(
  (n) => document.querySelectorAll('[data-testid=trace-row]').length === n,
  files.length,
  {
    timeout: 600_000,
  },
);
await page.goto(`${url}#/report`);
await page.getByTestId('report-build').click();
await page.getByTestId('report-cases').waitFor({ timeout: 600_000 });
await page.waitForTimeout(500);
await page.screenshot({ path: out('17-report.png') });
await page.screenshot({ path: out('18-report-full.png'), fullPage: true });
await s.close();
