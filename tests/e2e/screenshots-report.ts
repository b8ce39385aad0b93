/**
 * Takes the Report view screenshots 17-report and 18-report-full in docs/screenshots:
 * `npx tsx tests/e2e/screenshots-report.ts`. The traces are the demo conversation's
 * fault-injected benchmark (tests/e2e/project-data.ts; the graphs docs/examples reports on),
 * made in a temp folder and removed at the end.
 */
import { openApp } from './harness.ts';
import { tempDir, writeDemoBench } from './project-data.ts';
import { importAll, shot } from './shots.ts';

const tmp = tempDir();
const { files } = await writeDemoBench(tmp.dir);
const s = await openApp();
const { page, url } = s;
try {
  await importAll(page, files);
  await page.goto(`${url}#/report`);
  await page.getByTestId('report-build').click();
  await page.getByTestId('report-cases').waitFor({ timeout: 600_000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: shot('17-report.png') });
  await page.screenshot({ path: shot('18-report-full.png'), fullPage: true });
} finally {
  await s.close();
  tmp.remove();
}
