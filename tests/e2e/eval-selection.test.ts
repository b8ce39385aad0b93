/**
 * Evaluation includes every trace by default (issue 24, item 5): the demo trace the app loads
 * on a fresh profile starts ticked, traces imported later join the selection — also after a
 * run that covered fewer — and a trace the person unticked stays unticked. Trace ids are read
 * from the files in Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appPerFile } from './app-per-file.ts';
import { DATA, importTraces } from './harness.ts';
import { DEMO_TRACE } from './project-data.ts';

const [F0, F1, F2] = ['conv-26-fault-0.json', 'conv-26-fault-1.json', 'conv-26-fault-2.json'].map((f) =>
  join(DATA, f),
);
const idOf = (f: string) => JSON.parse(readFileSync(f, 'utf8')).graph_id as string;
const s = appPerFile({ demo: true });

/** Trace id → ticked, as the Evaluation view's cover shows it. */
async function ticks(page: Page): Promise<Record<string, boolean>> {
  await page.getByTestId('eval-cover').locator('summary').click();
  await page.getByTestId('eval-trace').first().waitFor();
  return Object.fromEntries(
    await page
      .getByTestId('eval-trace')
      .evaluateAll((els) =>
        els.map((e) => [e.getAttribute('data-trace') ?? '', (e as HTMLInputElement).checked]),
      ),
  );
}

describe('evaluation selection', () => {
  it('starts with the demo ticked, adds imported traces, keeps what the person unticked', async () => {
    const { page, url } = s;
    const demo = idOf(DEMO_TRACE);
    await page.getByTestId('trace-row').first().waitFor({ timeout: 60_000 });
    await page.goto(`${url}#/eval`);
    expect(await ticks(page)).toEqual({ [demo]: true });

    await page.goto(`${url}#/`);
    await importTraces(page, [F0, F1], 3);
    await page.goto(`${url}#/eval`);
    expect(await ticks(page)).toEqual({ [demo]: true, [idOf(F0)]: true, [idOf(F1)]: true });

    // The person unticks F1 and runs; a trace imported afterwards joins, F1 stays out.
    await page.locator(`[data-testid=eval-trace][data-trace="${idOf(F1)}"]`).uncheck();
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 180_000 });
    await page.goto(`${url}#/`);
    await importTraces(page, [F2], 4);
    await page.goto(`${url}#/eval`);
    expect(await ticks(page)).toEqual({
      [demo]: true,
      [idOf(F0)]: true,
      [idOf(F1)]: false,
      [idOf(F2)]: true,
    });
    // The same after a reload (the choice comes from the last run then).
    await page.reload();
    expect(await ticks(page)).toEqual({
      [demo]: true,
      [idOf(F0)]: true,
      [idOf(F1)]: false,
      [idOf(F2)]: true,
    });
    expect(s.errors).toEqual([]);
  }, 400_000);
});
