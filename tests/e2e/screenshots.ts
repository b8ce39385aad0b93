/**
 * Takes screenshots 01–07 in docs/screenshots: `npx tsx tests/e2e/screenshots.ts`. The traces
 * are the project's own (tests/e2e/project-data.ts): the four base runs of the demo
 * conversation's fault-injected benchmark, two of its injected-fault graphs and an EverMemOS
 * run written as OTLP/JSON by the SDK, made in a temp folder and removed at the end.
 */
import { readFileSync } from 'node:fs';
import { openApp } from './harness.ts';
import { tempDir, writeDemoBench, writeDemoOtlp } from './project-data.ts';
import { importAll, shot } from './shots.ts';

const tmp = tempDir();
const bench = await writeDemoBench(tmp.dir);
const files = [
  ...Object.values(bench.base),
  ...bench.files.filter((f) => /mem0-demo-1-update-demo-1-qa-1|rag-demo-1-extraction-demo-1-qa-0/.test(f)),
  await writeDemoOtlp(tmp.dir),
];
const mem0 = JSON.parse(readFileSync(bench.base.mem0, 'utf8')).graph_id as string;
const s = await openApp();
const { page, url } = s;
try {
  await page.getByTestId('empty-state').waitFor();
  await page.screenshot({ path: shot('01-empty.png') });
  await importAll(page, files);
  await page.screenshot({ path: shot('02-traces.png') });
  await page.goto(`${url}#/cases?labelled=labelled`);
  await page.getByTestId('case-row').first().waitFor();
  await page.screenshot({ path: shot('03-cases.png') });
  await page.getByTestId('case-row').filter({ hasText: 'UpdateError' }).first().locator('a').first().click();
  await page.getByTestId('var-block').first().waitFor();
  await page.waitForTimeout(800);
  await page.screenshot({ path: shot('04-case-workspace.png') });
  // Mem0 rewrote a memory: "animal shelter yesterday" became "animal hospital on Sundays".
  await page.goto(`${url}#/t/${mem0}/var/${encodeURIComponent('mem-2@2')}`);
  await page.getByTestId('diff').waitFor();
  await page.screenshot({ path: shot('05-version-diff.png') });
  await page.goto(`${url}#/search?trace=${mem0}&q=shelter`);
  await page.getByTestId('search-hit').first().waitFor();
  await page.screenshot({ path: shot('06-search.png') });
  await page.goto(`${url}#/t/${mem0}`);
  await page.waitForTimeout(1500);
  await page.getByTestId('theme-toggle').click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot('07-trace-dark.png') });
} finally {
  await s.close();
  tmp.remove();
}
