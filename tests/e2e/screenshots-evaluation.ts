/**
 * Takes the evaluation screenshots 08–11 in docs/screenshots: `npx tsx tests/e2e/screenshots-evaluation.ts`
 * (10: the attribution panel with the evidence its verdict rests on; "Correct…" with an op found by
 * search in the whole trace, refused for the type chosen).
 * The traces are the demo conversation's fault-injected benchmark (tests/e2e/project-data.ts, the
 * graphs of docs/examples), made in a temp folder and removed at the end.
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
  await page.goto(`${url}#/eval`);
  await page.getByTestId('eval-run').click();
  await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 120_000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot('08-evaluation.png') });
  await page.screenshot({ path: shot('09-evaluation-full.png'), fullPage: true });
  await page.getByTestId('eval-case-link').nth(3).click();
  await page.getByTestId('attribution-type').waitFor();
  // The verdict with its evidence: the held text (matched words marked), what came after it,
  // the confidence, the runner-up ops, the test and the support curve.
  await page.getByTestId('verdict-grounds').waitFor();
  await page.waitForTimeout(500);
  // The whole panel with the case path beside it (page coordinates: scrolled to the top).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  const box = (await page.getByTestId('attribution').boundingBox())!;
  await page.screenshot({
    path: shot('10-attribution-evidence.png'),
    fullPage: true,
    clip: { x: 0, y: Math.max(0, box.y - 12), width: 1440, height: box.height + 24 },
  });
  await page.getByTestId('attribution-correct').click();
  // "Correct…" finds any op of the trace; an op whose kind cannot cause the type is refused.
  await page.getByTestId('correct-find-input').fill('extraction session_1');
  await page.getByTestId('correct-find-pick').first().click();
  await page.getByTestId('correct-type').selectOption('RetrievalError');
  await page.getByTestId('correct-refusal').waitFor();
  await page.waitForTimeout(500);
  await page.getByTestId('correct-form').scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot('10-case-attribution.png') });
  await page.goto(`${url}#/eval`);
  await page.getByTestId('eval-metrics').waitFor();
  await page.getByTestId('theme-toggle').click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot('11-evaluation-dark.png') });
} finally {
  await s.close();
  tmp.remove();
}
