/**
 * One truth for labels (issue 33, item 4): a label saved in a case — here a correction of the
 * attributor's verdict — shows at once, without a reload, in the Traces list's labelled count,
 * on the trace page (its count and its case list) and in the Report (the case counted under the
 * corrected type, as a label people gave). The trace is a reference-system run whose file has no
 * labels (checked in Node), so every labelled count starts at 0. Then (issue 31 item 8) a verdict
 * stored as an older attributor's is re-attributed when its case opens, and an older report is
 * marked stale.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ERROR_TYPES } from '../../src/core/trace/index.ts';
import { appPerFile, demoRunPerFile } from './app-per-file.ts';
import { importTraces } from './harness.ts';

const run = demoRunPerFile('mem0', { topK: 2 });
const s = appPerFile();
/** The case the first test labelled (the second reopens it). */
let caseUrl = '';

/**
 * Stores, in the page's IndexedDB, a copy of the newest `runs` row of `kind` (of question
 * `queryId` when given: a report stores the verdicts it makes too) as made by an older
 * attributor (a newer row, as a stored verdict of an earlier build would be).
 */
function storeAsOlder(
  page: Page,
  kind: 'attribution' | 'report',
  older: string,
  queryId?: string,
): Promise<void> {
  return page.evaluate(
    ({ kind, older, queryId }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('memtrace-workbench');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const store = open.result.transaction('runs', 'readwrite').objectStore('runs');
          const all = store.getAll();
          all.onsuccess = () => {
            const rows = (all.result as { id: number; kind: string; [k: string]: unknown }[]).filter(
              (r) => r.kind === kind && (!queryId || r.queryId === queryId),
            );
            const { id: _id, ...row } = rows.sort((a, b) => b.id - a.id)[0];
            if (kind === 'report') row.attributorVersion = older;
            else
              row.result = {
                ...(row.result as object),
                attributor_version: older,
                reason: 'made by an older attributor (test)',
              };
            const put = store.add(row);
            put.onsuccess = () => resolve();
            put.onerror = () => reject(put.error);
          };
        };
      }),
    { kind, older, queryId },
  );
}

describe('a label saved in a case', () => {
  it('counts at once in the Traces list, on the trace page and in the Report', async () => {
    const { page } = s;
    const doc = JSON.parse(readFileSync(run.path, 'utf8'));
    expect(doc.data.annotations ?? []).toEqual([]); // nothing labelled in the file
    await importTraces(page, [run.path]);
    const labelledCell = page.getByTestId('trace-row').first().getByTestId('trace-labelled');
    expect((await labelledCell.innerText()).trim()).toBe('0');

    // Open the first case and correct the attributor's verdict to another type.
    await page.getByRole('link', { name: 'Cases', exact: true }).first().click();
    const firstCase = page.getByTestId('case-row').first().locator('td.q a');
    const question = (await firstCase.innerText()).trim();
    await firstCase.click();
    caseUrl = page.url();
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-type').waitFor({ timeout: 60_000 });
    const predicted = (await panel.getByTestId('attribution-type').innerText()).trim();
    await panel.getByTestId('attribution-correct').click();
    const save = panel.getByTestId('correct-save');
    const ops = await panel
      .getByTestId('correct-op')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    // A type other than the verdict's, at an op that can cause it (the form refuses the others).
    let chosen: string | null = null;
    for (const type of ERROR_TYPES.filter((t) => t !== predicted)) {
      await panel.getByTestId('correct-type').selectOption(type);
      for (const op of ops) {
        await panel.getByTestId('correct-op').selectOption(op);
        if (await save.isEnabled()) break;
      }
      if (await save.isEnabled()) {
        chosen = type;
        break;
      }
    }
    expect(chosen, 'some type and op can be saved').not.toBeNull();
    await panel.getByTestId('correct-note').fill('corrected in the e2e test');
    await save.click();
    await page.locator('[data-testid=label-record][data-origin=workbench]').first().waitFor();

    // The Traces list, by its link (no reload).
    await page.getByRole('link', { name: 'Traces', exact: true }).first().click();
    await expect.poll(async () => (await labelledCell.innerText()).trim()).toBe('1');

    // The trace page: its count and the label beside the case.
    await page.getByTestId('trace-row').first().locator('a').first().click();
    await expect.poll(() => page.getByTestId('trace-case-counts').innerText()).toMatch(/, 1 labelled\)/);
    const labelled = page.locator('ul.cases li', { hasText: question.slice(0, 40) });
    await expect.poll(() => labelled.getByTestId('trace-case-other-label').innerText()).toBe(chosen);

    // The Report: the case counted under the corrected type, as a label people gave.
    await page.getByTestId('nav-report').click();
    await page.getByTestId('report-build').click();
    await page.getByTestId('report-summary').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('report-labels').innerText()).toMatch(
      /^1 case\(s\) take the label people gave/,
    );
    const cluster = page.getByTestId('report-cluster').filter({ hasText: question.slice(0, 40) });
    expect(await cluster.count()).toBe(1);
    expect(await cluster.locator('h3').innerText()).toMatch(new RegExp(`^\\d+\\. ${chosen} at `));
    expect(s.errors).toEqual([]);
  }, 300_000);
});

describe('a stored verdict of an older attributor', () => {
  it('is re-attributed when its case opens (and said so); an older report is marked stale', async () => {
    const { page, url } = s;
    expect(caseUrl).toContain('/case/');
    await page.goto(`${url}#/traces`);
    const queryId = decodeURIComponent(caseUrl.split('/case/')[1].split('?')[0]);
    await storeAsOlder(page, 'attribution', 'evidence-flow@0', queryId);
    await page.goto(caseUrl);
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-reattributed').waitFor({ timeout: 60_000 });
    expect(await panel.getByTestId('attribution-reattributed').innerText()).toContain('evidence-flow@0');
    expect(await panel.getByTestId('attribution-reason').innerText()).not.toContain(
      'older attributor (test)',
    );

    await page.getByTestId('nav-report').click();
    await page.getByTestId('report-summary').waitFor();
    expect(await page.getByTestId('report-stale').count()).toBe(0); // the report built above is current
    await page.goto(`${url}#/traces`);
    await storeAsOlder(page, 'report', 'evidence-flow@0');
    await page.getByTestId('nav-report').click();
    await page.getByTestId('report-stale').waitFor();
    expect(await page.getByTestId('report-stale').innerText()).toContain('made by an older attributor');
    expect(s.errors).toEqual([]);
  }, 300_000);
});
