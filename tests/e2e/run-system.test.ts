/**
 * "Run a system" in Debian's Chromium: pick ../shared/data/locomo/v2/26.json (read at
 * test time, never copied into the repository) through the file input, run Mem0 offline
 * on 2 sessions in the systems worker, follow the progress, and find the new trace listed
 * with its failed cases — the numbers equal a Node run of the same system (deterministic).
 * Then a full run is cancelled after its first session and stores nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tracer } from '../../src/sdk/index.ts';
import { createSystem, loadLocomo, runSystem } from '../../src/systems/index.ts';
import { appPerFile } from './app-per-file.ts';
import { cancelWhen, ROOT } from './harness.ts';

const FILE = join(ROOT, '../shared/data/locomo/v2/26.json');
const TRACE_FILE = 'mem0-conv-26-2-sessions-offline.json';
const s = appPerFile();

/** Records every text the progress counters show (a MutationObserver in the page). */
async function watchProgress() {
  await s.page.evaluate(() => {
    const w = window as unknown as { seen: string[] };
    w.seen = [];
    const record = () => {
      const q = document.querySelector('[data-testid=run-questions-done]')?.textContent;
      const se = document.querySelector('[data-testid=run-sessions-done]')?.textContent;
      const c = document.querySelector('[data-testid=run-correct]')?.textContent;
      if (q && se) {
        const line = `${se.trim()} | ${q.trim()} | ${c?.trim()}`;
        if (w.seen.at(-1) !== line) w.seen.push(line);
      }
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
}

describe('run a reference system in the app', () => {
  it('runs Mem0 offline on 2 sessions of a LoCoMo v2 file and lists the new trace with its failed cases', async () => {
    const { page, url } = s;
    // Node run of the same system, for the expected numbers.
    const [conv] = loadLocomo(JSON.parse(readFileSync(FILE, 'utf8')), { id: 'conv-26' });
    const node = await runSystem(createSystem('mem0'), conv, { tracer: new Tracer(), maxSessions: 2 });
    const correct = node.answers.filter((a) => a.correct).length;
    const failed = node.answers.length - correct;
    expect(failed).toBeGreaterThan(0);

    await page.getByTestId('empty-state').waitFor();
    await page.getByTestId('nav-run').click();
    expect(page.url()).toBe(`${url}#/run`);
    expect(await page.getByTestId('run-empty').innerText()).toMatch(/Pick a data set file/);
    expect(await page.getByTestId('offline-badge').innerText()).toBe('offline mode');

    await page.setInputFiles('[data-testid=run-file]', FILE);
    await page.getByTestId('run-conversation').waitFor();
    expect(await page.getByTestId('run-layout').innerText()).toMatch(/detected: LoCoMo, v2 layout/);
    expect(await page.getByTestId('run-conversation').inputValue()).toBe('conv-26');
    await page.getByTestId('run-system').selectOption('mem0');
    await page.getByTestId('run-sessions').fill('2');

    await watchProgress();
    await page.getByTestId('run-start').click();
    const result = page.locator('[data-testid=run-result][data-status=done]');
    await result.waitFor({ timeout: 60_000 });

    // Progress was shown: sessions counted to 2, questions one by one up to all of them.
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    const Q = node.answers.length;
    expect(seen).toContain(`2 / 2 | 0 / ${Q} | 0`);
    expect(seen.at(-1)).toBe(`2 / 2 | ${Q} / ${Q} | ${correct}`);
    expect(seen.length).toBeGreaterThan(10);

    expect(await page.getByTestId('run-result-failed').innerText()).toBe(String(failed));
    expect(await page.getByTestId('run-result-correct').innerText()).toBe(String(correct));
    expect(await page.getByTestId('run-trace-link').innerText()).toBe(TRACE_FILE);
    await page.locator('[data-testid=run-failed-cases] li').first().waitFor();
    expect(await page.locator('[data-testid=run-failed-cases] li').count()).toBe(Math.min(8, failed));

    // The trace list has it, with its failed questions; its page lists the cases.
    await page.goto(`${url}#/`);
    const row = page.getByTestId('trace-row');
    await row.waitFor();
    expect(await row.count()).toBe(1);
    const text = await row.innerText();
    expect(text).toContain(TRACE_FILE);
    expect(text).toContain('mem0');
    await row.locator('a').first().click();
    await page.getByRole('heading', { name: `Cases (${failed}, 0 labelled)` }).waitFor();
    const cases = page.locator('ul.cases li');
    // The heading counts from the stored summary; the rows come from the engine, which may still
    // be readying the trace it just stored.
    await expect.poll(() => cases.count(), { timeout: 60_000 }).toBe(failed);
    // A case opens in the workspace.
    await cases.first().locator('a').click();
    await page.waitForURL(/#\/t\/.+\/case\//);
    expect(s.errors).toEqual([]);
  }, 180_000);

  it('cancel stops a full run in the worker and stores nothing', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/run`);
    await page.getByTestId('run-conversation').waitFor();
    await page.getByTestId('run-system').selectOption('long-context');
    await page.getByTestId('run-sessions').fill('');
    // Press Cancel from the page the moment the first session is reported.
    await cancelWhen(page, 'run-sessions-done', '^1 /', 'run-cancel');
    await page.getByTestId('run-start').click();
    await page.locator('[data-testid=run-result][data-status=cancelled]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('run-result').innerText()).toMatch(/Cancelled/);
    await page.goto(`${url}#/`);
    await page.getByTestId('trace-row').first().waitFor();
    expect(await page.getByTestId('trace-row').count()).toBe(1);
    expect(s.errors).toEqual([]);
  }, 120_000);
});
