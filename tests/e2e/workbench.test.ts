/**
 * The workbench in Debian's Chromium with real IndexedDB: import the six real
 * smartcomment files, browse traces and cases, inspect a labelled op, search,
 * reload, and import a malformed file.
 */

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA, openApp, ROOT, type Session, SIX } from './harness.ts';

let s: Session;
/** Labelled cases per file, from the CLI (the same core, run in Node). */
let expected: { file: string; question: string; error_type: string | null; op_id: string | null }[];

beforeAll(async () => {
  s = await openApp();
  expected = JSON.parse(
    execFileSync(process.execPath, ['bin/memtrace.mjs', 'cases', DATA, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      // The six files' cases are about 1 MB of JSON, the default buffer's size.
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
}, 180_000);
afterAll(async () => {
  await s?.close();
});

const rows = () => s.page.locator('[data-testid=trace-row]');

describe('workbench in Chromium', () => {
  it('shows an empty state that says what to do, then imports the six files into six listed traces', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    expect(await page.getByTestId('empty-state').innerText()).toMatch(/Drop files or a whole folder/);
    await page.setInputFiles(
      '[data-testid=file-input]',
      SIX.map((f) => join(DATA, f)),
    );
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 6,
      null,
      {
        timeout: 60_000,
      },
    );
    const text = await page.getByTestId('trace-table').innerText();
    for (const f of SIX) expect(text).toContain(f);
    expect(await rows().count()).toBe(6);
  });

  it('lists the labelled cases of each trace with their labels', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/cases?labelled=labelled`);
    await page.getByTestId('case-row').first().waitFor();
    const labelled = expected.filter((c) => c.error_type);
    expect(await page.getByTestId('case-row').count()).toBe(labelled.length);
    const table = await page.getByTestId('case-table').innerText();
    for (const f of SIX) {
      const mine = labelled.filter((c) => c.file.endsWith(f));
      expect(mine.length).toBeGreaterThan(0);
      // every labelled case of the file: its question and its label on one row
      const fileRows = page.getByTestId('case-row').filter({ hasText: f });
      expect(await fileRows.count()).toBe(mine.length);
      for (const c of mine.slice(0, 3)) {
        const row = fileRows.filter({ hasText: c.question.slice(0, 40) }).first();
        expect(await row.getByTestId('case-label').innerText()).toBe(c.error_type);
      }
    }
    for (const t of ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'])
      expect(table).toContain(t);
  });

  it('opening a labelled case shows the labelled op with its inputs and outputs', async () => {
    const { page } = s;
    const c = expected.find((x) => x.error_type === 'UpdateError')!;
    await page
      .getByTestId('case-row')
      .filter({ hasText: c.question.slice(0, 40) })
      .first()
      .locator('a')
      .first()
      .click();
    const inspector = page.getByTestId('op-inspector');
    await inspector.waitFor();
    expect(await inspector.getByTestId('op-name').getAttribute('href')).toContain(
      encodeURIComponent(c.op_id!),
    );
    // The label reads as a word and the error type's tag (laid out apart, so a line break may come between).
    expect(await inspector.innerText()).toMatch(new RegExp(`labelled:?\\s+${c.error_type}`));
    const inputs = inspector.getByTestId('op-inputs').getByTestId('var-block');
    const outputs = inspector.getByTestId('op-outputs').getByTestId('var-block');
    expect(await inputs.count()).toBeGreaterThan(0);
    expect(await outputs.count()).toBeGreaterThan(0);
    // The labelled update mutated the memory store: its changes are a diff (changed lines,
    // unchanged folded), the two whole values are folded and open on request.
    const change = inspector.getByTestId('op-change').first();
    await change.waitFor();
    expect(
      await change.locator('[data-testid=op-diff] .add, [data-testid=op-diff] .del').count(),
    ).toBeGreaterThan(0);
    const hasButton = await outputs.evaluateAll((els) =>
      els.map((e) => !!e.querySelector('[data-testid=show-value]')),
    );
    const folded = outputs.nth(hasButton.indexOf(true));
    await folded.getByTestId('show-value').click();
    expect((await folded.getByTestId('var-value').innerText()).length).toBeGreaterThan(0);
    // the case itself: question, golden answer, prediction
    expect(await page.getByTestId('case-panel').innerText()).toContain(c.question);
  });

  it('the op page is linkable and a memory unit shows its version history with a diff', async () => {
    const { page } = s;
    const traceId = await page.evaluate(() => location.hash.split('/')[2]);
    await page.goto(`${s.url}#/t/${traceId}/var/${encodeURIComponent('memory-store@3')}`);
    await page.getByTestId('version-history').waitFor();
    await page.getByTestId('diff').waitFor();
    expect(await page.locator('[data-testid=diff] .add').count()).toBeGreaterThan(0);
  });

  it('search finds a message by a word in it and links to the variable', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/search`);
    await page.getByTestId('search-input').fill('sunrise');
    const hit = page.getByTestId('search-hit').first();
    await hit.waitFor({ timeout: 20_000 });
    expect((await hit.innerText()).toLowerCase()).toContain('sunrise');
    await hit.locator('a[data-nav]').click();
    await page.getByTestId('version-history').waitFor();
    expect(page.url()).toContain('/var/');
  });

  it('after a reload everything is still there', async () => {
    const { page } = s;
    await page.goto(s.url);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 6);
    await page.goto(`${s.url}#/cases?labelled=labelled`);
    await page.getByTestId('case-row').first().waitFor();
    expect(await page.getByTestId('case-row').count()).toBe(expected.filter((c) => c.error_type).length);
  });

  it('a malformed file shows an error naming the file and its place while stored traces stay intact', async () => {
    const { page } = s;
    await page.goto(s.url);
    await rows().first().waitFor();
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'broken-trace.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"graph_id": "graph-x",\n "data": {"nodes": [1,,2]}}'),
    });
    const bad = page.getByTestId('import-result').filter({ hasText: 'broken-trace.json' });
    await bad.waitFor();
    const text = await bad.innerText();
    expect(text).toContain('not imported');
    expect(text).toContain('broken-trace.json:2:');
    expect(await rows().count()).toBe(6);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 6);
    expect(s.errors).toEqual([]);
  });
});
