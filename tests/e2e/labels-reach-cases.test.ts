/**
 * People's labels reach the Cases list (issue 24, item 3): a case of a trace without labels is
 * labelled in the annotation queue; the Cases list, opened right after without a reload, shows
 * the label and the "labelled only" filter keeps the case, and the Traces list counts it. The
 * case's question and the answer op come from the file, read in Node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appPerFile, demoRunPerFile } from './app-per-file.ts';
import { importTraces } from './harness.ts';

const run = demoRunPerFile('mem0', { topK: 2 });
const s = appPerFile();

describe('labels in the Cases list', () => {
  it('a label saved in the queue shows in the list and passes "labelled only", without a reload', async () => {
    const { page, url } = s;
    const doc = JSON.parse(readFileSync(run.path, 'utf8'));
    expect(doc.data.annotations ?? []).toEqual([]); // nothing labelled in the file
    await importTraces(page, [run.path]);
    await page.goto(`${url}#/settings`);
    await page.getByTestId('annotator-name').fill('ann');
    await page.getByTestId('annotator-save').click();
    await page.getByTestId('annotator-saved').waitFor();

    await page.goto(`${url}#/labels`);
    await page.getByTestId('queue-mode').selectOption('unlabelled');
    await page.getByTestId('queue-start-blind').uncheck();
    await page.getByTestId('queue-start').click();
    await page.getByTestId('queue-bar').waitFor();
    const queryId = decodeURIComponent(/\/case\/([^?]+)/.exec(page.url())![1]);
    const question = (
      doc.data.nodes as { full_node_id?: string; name: string; version: number; value: string }[]
    ).find((n) => (n.full_node_id ?? `${n.name}@${n.version}`) === queryId)!.value;
    // The op that wrote the answer: the path row marked "answer"; a ResponseError there.
    await page.locator('[data-testid=case-path]:not([data-stale])').waitFor();
    const answer = page.locator('[data-testid=case-path] a', {
      has: page.locator('.note', { hasText: /^answer$/ }),
    });
    await answer.click();
    await page.getByTestId('queue-op-name').waitFor();
    // The verdict shown first: its arrival re-renders the workspace, which would take the focus the keys need.
    await page.getByTestId('attribution-type').waitFor();
    await page.locator('[data-testid=case-path] [aria-current=true]').focus();
    await page.keyboard.press('5');
    await page.keyboard.press('r');
    await page.keyboard.type('the answer ignored the memory');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=queue-bar] .muted.small')?.textContent?.startsWith('1 labelled'),
    );

    // To the Cases list by its link (no reload), filtered to this question.
    await page.getByRole('link', { name: 'Cases', exact: true }).first().click();
    await page.getByTestId('case-filter').fill(question.replace(/^['"]|['"]$/g, '').slice(0, 60));
    const row = page
      .getByTestId('case-row')
      .filter({ hasText: question.replace(/^['"]|['"]$/g, '').slice(0, 40) });
    await row.first().waitFor();
    await expect.poll(() => row.first().innerText()).toContain('ResponseError');
    expect(await row.first().innerText()).not.toContain('unlabelled');
    await page.getByTestId('filter-labelled').selectOption('labelled');
    await expect.poll(() => row.count()).toBe(1);
    await page.getByTestId('filter-labelled').selectOption('unlabelled');
    await expect.poll(() => row.count()).toBe(0);
    // …and the Traces list counts it (issue 33: one truth for labels).
    await page.getByRole('link', { name: 'Traces', exact: true }).first().click();
    await expect
      .poll(async () =>
        (await page.getByTestId('trace-row').first().getByTestId('trace-labelled').innerText()).trim(),
      )
      .toBe('1');
    expect(s.errors).toEqual([]);
  }, 300_000);
});
