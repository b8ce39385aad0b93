/**
 * Takes the labelling and compare screenshots 17–19 in docs/screenshots:
 * `npx tsx tests/e2e/screenshots-labels.ts`. The traces are the project's own
 * (tests/e2e/project-data.ts): Mem0's base run of the demo conversation (its failures labelled
 * by counterfactual repair) and a rerun with a shallower memory search (top 2 instead of 10: one question fixed, one broken).
 * Two annotators' files are made here from the base run's labels (one agrees with the file,
 * one differs on two cases). All in a temp folder, removed at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileLabels, toAnnotationsFile } from '../../src/core/labels/index.ts';
import { openApp } from './harness.ts';
import { tempDir, writeDemoBench, writeDemoRun } from './project-data.ts';
import { importAll, shot } from './shots.ts';

const tmp = tempDir();
const F1 = (await writeDemoBench(tmp.dir)).base.mem0;
const F0 = await writeDemoRun(tmp.dir, 'mem0', { topK: 2 });
const doc = JSON.parse(readFileSync(F1, 'utf8'));
const base = fileLabels(doc).slice(0, 8);
const person = (annotator: string, change: (i: number) => Partial<{ errorType: string; opId: string }>) =>
  toAnnotationsFile(
    base.map((l, i) => ({
      ...l,
      ...change(i),
      annotator,
      source: 'person',
      reason: `${annotator}: read the path`,
      createdAt: '2026-12-01T10:00:00.000Z',
      origin: 'workbench' as const,
    })),
  );
writeFileSync(join(tmp.dir, 'ann.json'), JSON.stringify(person('ann', () => ({}))));
writeFileSync(
  join(tmp.dir, 'bob.json'),
  JSON.stringify(
    person('bob', (i) =>
      i === 2 ? { errorType: 'ExtractionError' } : i === 5 ? { opId: base[4].opId ?? '' } : {},
    ),
  ),
);

const s = await openApp();
const { page, url } = s;
try {
  await importAll(page, [F1, F0]);
  await page.goto(`${url}#/settings`);
  await page.getByTestId('annotator-name').fill('lead');
  await page.getByTestId('annotator-save').click();
  await page.goto(`${url}#/labels`);
  await page.setInputFiles('[data-testid=import-labels]', [
    join(tmp.dir, 'ann.json'),
    join(tmp.dir, 'bob.json'),
  ]);
  await page.getByTestId('import-plan').waitFor();
  await page.getByTestId('import-confirm').click();
  await page.getByTestId('import-done').waitFor();
  await page.getByTestId('agreement-files').uncheck();
  await page.getByTestId('disputed-case').first().waitFor();
  // Tall enough that the panel needs no scrolling (the sticky header would cover its top).
  await page.setViewportSize({ width: 1440, height: 1800 });
  await page.getByTestId('agreement').screenshot({ path: shot('17-labels-agreement.png') });
  await page.setViewportSize({ width: 1440, height: 900 });
  // The queue, blind, on the first case.
  await page.getByTestId('queue-mode').selectOption('mine');
  await page.getByTestId('queue-start').click();
  await page.getByTestId('queue-bar').waitFor();
  await page.locator('[data-testid=case-path] a').first().click();
  await page.keyboard.press('1');
  await page.waitForTimeout(400);
  await page.screenshot({ path: shot('18-annotation-queue.png') });
  await page.getByTestId('queue-stop').click();
  // Compare the two runs with a question whose outcome changed open.
  await page.goto(
    `${url}#/compare?a=${encodeURIComponent(doc.graph_id)}&b=${encodeURIComponent(JSON.parse(readFileSync(F0, 'utf8')).graph_id)}&show=all`,
  );
  await page.getByTestId('compare-summary').waitFor({ timeout: 60_000 });
  await page
    .locator('[data-testid=compare-row][data-change=broken] [data-testid=compare-open]')
    .first()
    .click();
  await page.getByTestId('compare-memory-counts').waitFor({ timeout: 60_000 });
  // Only the search depth changed: the memory is the same in both runs (nothing to unfold).
  const changed = page.locator('[data-testid=memory-changed] summary');
  if (await changed.count()) await changed.first().click();
  await page.waitForTimeout(300);
  await page.setViewportSize({ width: 1440, height: 1500 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(200);
  await page.screenshot({ path: shot('19-compare-runs.png') });
  // The question's first divergence explained: the op by name, the parameter and the output diff.
  await page.getByTestId('compare-detail').screenshot({ path: shot('19-compare-divergence.png') });
} finally {
  await s.close();
  tmp.remove();
}
