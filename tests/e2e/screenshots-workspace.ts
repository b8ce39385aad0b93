/**
 * Screenshots of the workspace views in both themes and at 800 px wide (docs/screenshots/2x-*):
 * `npx tsx tests/e2e/screenshots-workspace.ts`. The long-context trace is made here by the
 * offline reference system (LoCoMo conv-26, 4 sessions) into a temp folder, never committed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DATA, openApp, ROOT, SIX } from './harness.ts';
import { writeLongContextTrace } from './long-context-trace.ts';

const out = (name: string) => join(ROOT, 'docs/screenshots', name);
const tmp = mkdtempSync(join(tmpdir(), 'memtrace-shots-'));
const long = await writeLongContextTrace(tmp);
const longPath = long.path;
const longId = long.doc.graph_id;

const s = await openApp();
const { page, url } = s;
await page.setInputFiles('[data-testid=file-input]', [...SIX.map((f) => join(DATA, f)), longPath]);
await page.waitForFunction(() => document.querySelectorAll('[data-testid=trace-row]').length === 7, null, {
  timeout: 120_000,
});
await page.getByRole('button', { name: 'Dismiss' }).click();
const rag = JSON.parse(readFileSync(join(DATA, 'conv-26-rag-0.json'), 'utf8')).graph_id as string;
const enc = encodeURIComponent;

async function still(p: Page) {
  await p.waitForFunction(
    () => !/Loading…|Opening the trace|Laying out/.test(document.querySelector('main')?.textContent ?? ''),
    null,
    {
      timeout: 60_000,
    },
  );
  await p.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await p.waitForTimeout(300);
}

/** Each view, as `[file name, route, prepare]`. */
const views: [string, string, (p: Page) => Promise<void>][] = [
  [
    '20-case-workspace',
    `#/t/${enc(rag)}/case/${enc('query:conv-26-qa-1@1')}`,
    async (p) => {
      await p.getByTestId('op-inspector').waitFor();
    },
  ],
  [
    '21-lanes-long-context',
    `#/t/${enc(longId)}`,
    async (p) => {
      await p.locator('[data-testid=lane-canvas]').waitFor();
      await p.locator('[data-testid=lane-view]').scrollIntoViewIfNeeded();
    },
  ],
  [
    '22-lanes-details',
    `#/t/${enc(rag)}`,
    async (p) => {
      const canvas = p.locator('[data-testid=lane-canvas]');
      await canvas.waitFor();
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox())!;
      for (let x = box.x + box.width * 0.8; x > box.x; x -= 7) {
        await p.mouse.move(x, box.y + box.height * 0.45);
        if (
          (await p.getByTestId('lane-tooltip').count()) &&
          (await p.getByTestId('lane-tooltip').innerText()).includes('op ·')
        ) {
          await p.mouse.click(x, box.y + box.height * 0.45);
          break;
        }
      }
      await p.getByTestId('lane-details').waitFor();
    },
  ],
  [
    '23-neighbourhood',
    `#/t/${enc(rag)}/case/${enc('query:conv-26-qa-1@1')}`,
    async (p) => {
      await p.locator('[data-testid=neighbourhood-view] svg g.node').first().waitFor();
      await p.getByTestId('neighbourhood-view').scrollIntoViewIfNeeded();
    },
  ],
  [
    '24-search',
    '#/search?q=support%20group',
    async (p) => {
      await p.getByTestId('search-hit').first().waitFor();
    },
  ],
  [
    '25-evaluation',
    '#/eval',
    async (p) => {
      if ((await p.getByTestId('metric-total').count()) === 0) {
        await p.getByTestId('eval-run').click();
        await p.getByTestId('metric-total').waitFor({ timeout: 120_000 });
      }
      await p.locator('[data-testid=confusion-cell][role=button]').first().click();
      await p.getByTestId('eval-cell').waitFor();
      await p.evaluate(() => window.scrollTo(0, 0));
    },
  ],
];

for (const [theme, width, suffix] of [
  ['light', 1440, ''],
  ['dark', 1440, '-dark'],
  ['light', 800, '-800'],
] as const) {
  await page.evaluate((t) => localStorage.setItem('memtrace-theme', t), theme);
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  for (const [name, route, prepare] of views) {
    await page.goto(url + route);
    await still(page);
    await prepare(page);
    await still(page);
    await page.screenshot({ path: out(`${name}${suffix}.png`) });
  }
}
await s.close();
rmSync(tmp, { recursive: true, force: true });
console.log('screenshots written to docs/screenshots/2x-*.png');
