/**
 * What other parts plug into the app shell, in Debian's Chromium on a fresh profile:
 * the demo trace preloaded on first run, the LLM settings route, and ranked retrieval
 * (the retrieval worker's search panel) in the Search view.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { parseTraceText } from '../../src/core/trace/index.ts';
import { appPerFile } from './app-per-file.ts';
import { buildOnce, ROOT } from './harness.ts';

const s = appPerFile({ demo: true });

describe('integration in Chromium', () => {
  it('a fresh profile shows the demo trace preloaded, with its cases', async () => {
    const { page } = s;
    // the app serves the committed public/demo/demo-trace.json
    const shipped = readFileSync(join(await buildOnce(), 'demo/demo-trace.json'), 'utf8');
    expect(shipped).toBe(readFileSync(join(ROOT, 'public/demo/demo-trace.json'), 'utf8'));
    const parsed = parseTraceText(shipped, { file: 'demo-trace.json' });
    if (!parsed.ok) throw new Error('the demo trace does not parse');
    const cases = listCases(buildGraph(parsed.doc));
    expect(cases.length).toBeGreaterThan(0);
    const row = page.getByTestId('trace-row').filter({ hasText: 'demo-trace.json' });
    await row.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('trace-row').count()).toBe(1);
    await page.goto(`${s.url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    expect(await page.getByTestId('case-row').count()).toBe(cases.length);
    const table = await page.getByTestId('case-table').innerText();
    for (const c of cases) expect(table).toContain(c.question.slice(0, 30));
    // still there after a reload, and not imported twice
    await page.goto(s.url);
    await page.reload();
    await row.waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByTestId('trace-row').count()).toBe(1);
  });

  it('the Settings route mounts the LLM settings; an added provider survives a reload', async () => {
    const { page } = s;
    await page.getByRole('link', { name: 'Settings' }).click();
    const panel = page.getByTestId('settings');
    await panel.getByRole('heading', { name: 'LLM providers' }).waitFor();
    const before = await panel.locator('input[name=llm-active]').count();
    await panel.getByRole('button', { name: 'Add provider' }).click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=settings] input[name=llm-active]').length === n + 1,
      before,
    );
    await page.reload();
    await panel.getByRole('heading', { name: 'LLM providers' }).waitFor();
    expect(await panel.locator('input[name=llm-active]').count()).toBe(before + 1);
  });

  it('ranked retrieval in the Search view finds a message by BM25 and links to it', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/search`);
    await page.getByTestId('mode-ranked').click();
    const panel = page.locator('section.retrieval');
    await panel.waitFor();
    await panel.locator('textarea').fill('animal shelter volunteering');
    await panel.getByRole('button', { name: 'Search', exact: true }).click();
    const first = panel.locator('ol.hits li button').first();
    await first.waitFor({ timeout: 30_000 });
    const id = await first.locator('code').innerText();
    await first.click();
    await page.getByTestId('version-history').waitFor();
    expect(decodeURIComponent(page.url())).toContain(`/var/${id}`);
    expect(s.errors).toEqual([]);
  });
});
