/**
 * The Compare view in Debian's Chromium: two traces of one conversation ticked in the trace
 * list open it; the numbers are `compareRuns` computed here in Node on the same files; a
 * question opens with its first divergence and the memory at its time; the URL is a deep
 * link that survives a reload.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/core/compare/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { appPerFile } from './app-per-file.ts';
import { DATA, importTraces } from './harness.ts';

const A = join(DATA, 'conv-26-fault-0.json');
const B = join(DATA, 'conv-26-fault-2.json');
const s = appPerFile();
const graph = (f: string) => {
  const r = openTrace(readFileSync(f, 'utf8'), { file: f });
  if (!r.ok) throw new Error(f);
  return r.graph;
};
const expected = compareRuns(graph(A), graph(B));
const idOf = (f: string) => JSON.parse(readFileSync(f, 'utf8')).graph_id as string;

describe('Compare view', () => {
  it('opens from two ticked traces and shows the flips and divergences Node computes', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await importTraces(page, [A, B]);
    const ticks = page.getByTestId('trace-tick');
    // the list is newest first: tick A then B so A is run A
    const rows = await page.getByTestId('trace-row').allInnerTexts();
    await ticks.nth(rows.findIndex((r) => r.includes('conv-26-fault-0'))).check();
    await ticks.nth(rows.findIndex((r) => r.includes('conv-26-fault-2'))).check();
    await page.getByTestId('compare-ticked').click();
    await page.getByTestId('compare-summary').waitFor({ timeout: 60_000 });
    expect(page.url()).toContain(`a=${encodeURIComponent(idOf(A))}`);
    expect(await page.getByTestId('compare-fixed').innerText()).toBe(String(expected.summary.fixed));
    expect(await page.getByTestId('compare-broken').innerText()).toBe(String(expected.summary.broken));
    await page.getByTestId('compare-show-all').click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=compare-row]').length === n,
      expected.questions.length,
    );
    const changes = await page
      .getByTestId('compare-row')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-change')));
    expect(changes).toEqual(expected.questions.map((q) => q.change));
  });

  it('a question shows its first divergence and the memory at its time, and the deep link survives a reload', async () => {
    const { page } = s;
    const q = expected.questions.find((x) => x.first_divergence)!;
    const i = expected.questions.indexOf(q);
    await page.getByTestId('compare-open').nth(i).click();
    await page.getByTestId('compare-detail').waitFor();
    expect(await page.getByTestId('divergence-link-a').getAttribute('href')).toContain(
      encodeURIComponent(q.first_divergence!.op_a),
    );
    await page.getByTestId('compare-memory-counts').waitFor({ timeout: 60_000 });
    const url = page.url();
    await page.reload();
    await page.getByTestId('compare-memory-counts').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(url);
    expect(await page.getByTestId('compare-detail').innerText()).toContain(q.query);
    await page.getByTestId('compare-attribute').click();
    await page.getByTestId('compare-attribution').first().waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('compare-attribution').count()).toBe(2);
    expect(s.errors).toEqual([]);
  });
});
