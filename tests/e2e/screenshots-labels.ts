/**
 * Takes the labelling and compare screenshots in docs/screenshots:
 * `npx tsx tests/e2e/screenshots-labels.ts`. Two annotators' files are made here from the
 * real file's cases (one agrees with the file, one differs on two cases).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLabels, toAnnotationsFile } from '../../src/core/labels/index.ts';
import { DATA, openApp, ROOT } from './harness.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const F1 = join(DATA, 'conv-26-fault-1.json');
const F0 = join(DATA, 'conv-26-fault-0.json');
const doc = JSON.parse(readFileSync(F1, 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'memtrace-shots-'));
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
writeFileSync(join(tmp, 'ann.json'), JSON.stringify(person('ann', () => ({}))));
writeFileSync(
  join(tmp, 'bob.json'),
  JSON.stringify(
    person('bob', (i) =>
      i === 2 ? { errorType: 'ExtractionError' } : i === 5 ? { opId: base[4].opId ?? '' } : {},
    ),
  ),
);

const s = await openApp();
const { page, url } = s;
await page.getByTestId('empty-state').waitFor();
await page.setInputFiles('[data-testid=file-input]', [F1, F0]);
await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 2);
await page.goto(`${url}#/settings`);
await page.getByTestId('annotator-name').fill('lead');
await page.getByTestId('annotator-save').click();
await page.goto(`${url}#/labels`);
await page.setInputFiles('[data-testid=import-labels]', [join(tmp, 'ann.json'), join(tmp, 'bob.json')]);
await page.getByTestId('import-plan').waitFor();
await page.getByTestId('import-confirm').click();
await page.getByTestId('import-done').waitFor();
await page.getByTestId('agreement-files').uncheck();
await page.getByTestId('disputed-case').first().waitFor();
await page.getByTestId('agreement').screenshot({ path: out('17-labels-agreement.png') });
// The queue, blind, on the first case.
await page.getByTestId('queue-mode').selectOption('mine');
await page.getByTestId('queue-start').click();
await page.getByTestId('queue-bar').waitFor();
await page.locator('[data-testid=case-path] a').first().click();
await page.keyboard.press('4');
await page.waitForTimeout(400);
await page.screenshot({ path: out('18-annotation-queue.png') });
await page.getByTestId('queue-stop').click();
// Compare two runs with a question open.
await page.goto(
  `${url}#/compare?a=${encodeURIComponent(JSON.parse(readFileSync(F0, 'utf8')).graph_id)}&b=${encodeURIComponent(doc.graph_id)}&show=all`,
);
await page.getByTestId('compare-summary').waitFor({ timeout: 60_000 });
await page.getByTestId('compare-open').nth(11).click();
await page.getByTestId('compare-memory-counts').waitFor({ timeout: 60_000 });
await page.locator('[data-testid=memory-changed] summary').first().click();
await page.waitForTimeout(300);
await page.setViewportSize({ width: 1440, height: 1500 });
await page.evaluate(() => window.scrollTo(0, 0));
await page.waitForTimeout(200);
await page.screenshot({ path: out('19-compare-runs.png') });
await s.close();
