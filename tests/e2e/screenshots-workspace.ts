/**
 * Screenshots of the workspace views in both themes and at 800 px wide (docs/screenshots/2x-*):
 * `npx tsx tests/e2e/screenshots-workspace.ts`. The traces are the project's own
 * (tests/e2e/project-data.ts), made in a temp folder and removed at the end: the demo
 * conversation's fault-injected benchmark (its long-context base run for the long-context lane
 * view) and, in a second browser profile, the 100k-variable synthetic run of the lane-view
 * benchmark (bench/lanes-synthetic.ts, ~100 MB) at fit and zoomed in.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { openApp } from './harness.ts';
import { tempDir, writeDemoBench, writeLanesSynthetic } from './project-data.ts';
import { importAll, shot } from './shots.ts';

const enc = encodeURIComponent;
const graphId = (path: string) => JSON.parse(readFileSync(path, 'utf8')).graph_id as string;
const tmp = tempDir();
const bench = await writeDemoBench(tmp.dir);
const rag = graphId(bench.base.rag);
const longId = graphId(bench.base.long_context);
// A case whose label is an update: RAG re-chunked the buffer and the evidence fell out of the chunk.
const ragUpdatePath = bench.files.find((f) => f.endsWith('rag-demo-1-update-demo-1-qa-0.json'))!;
const ragUpdate = graphId(ragUpdatePath);
const ragCase = `#/t/${enc(ragUpdate)}/case/${enc('query:demo-1-qa-0@1')}`;

async function still(p: Page) {
  await p.waitForFunction(
    () => !/Loading…|Opening the trace|Laying out/.test(document.querySelector('main')?.textContent ?? ''),
    null,
    { timeout: 300_000 },
  );
  await p.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await p.waitForTimeout(300);
}

type View = [name: string, route: string, prepare: (p: Page) => Promise<void>];

/** Each view in light, dark and light at 800 px wide: `<name>.png`, `<name>-dark.png`, `<name>-800.png`. */
async function shoot(page: Page, url: string, views: View[]) {
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
      await page.screenshot({ path: shot(`${name}${suffix}.png`) });
    }
  }
}

const laneCanvas = (p: Page) => p.locator('[data-testid=lane-canvas]');

const demoViews: View[] = [
  [
    '20-case-workspace',
    ragCase,
    async (p) => {
      await p.getByTestId('op-inspector').waitFor();
      await p.getByTestId('attribution-type').waitFor({ timeout: 120_000 });
    },
  ],
  [
    '21-lanes-long-context',
    `#/t/${enc(longId)}`,
    async (p) => {
      await laneCanvas(p).waitFor();
      await p.locator('[data-testid=lane-view]').scrollIntoViewIfNeeded();
    },
  ],
  [
    '22-lanes-details',
    `#/t/${enc(rag)}`,
    async (p) => {
      const canvas = laneCanvas(p);
      await canvas.waitFor();
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox())!;
      // Sweep a row of the drawing until the tooltip names an op, then select it.
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
    ragCase,
    async (p) => {
      await p.locator('[data-testid=neighbourhood-view] svg g.node').first().waitFor();
      await p.getByTestId('neighbourhood-view').scrollIntoViewIfNeeded();
    },
  ],
  [
    '24-search',
    '#/search?q=Pepper%20sofa',
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

try {
  const s = await openApp();
  try {
    await importAll(s.page, bench.files);
    // Evaluation first, so every theme's lane views show the same attribution marks.
    await s.page.goto(`${s.url}#/eval`);
    await s.page.getByTestId('eval-run').click();
    await s.page.getByTestId('metric-total').waitFor({ timeout: 120_000 });
    await shoot(s.page, s.url, demoViews);
  } finally {
    await s.close();
  }

  // The 100k-variable synthetic run alone in a fresh profile (its import is ~100 MB).
  const synthetic = writeLanesSynthetic(tmp.dir);
  const big = await openApp();
  try {
    await importAll(big.page, [synthetic]);
    const trace = `#/t/${enc(graphId(synthetic))}`;
    const atLanes = async (p: Page) => {
      await laneCanvas(p).waitFor({ timeout: 300_000 });
      await p.locator('[data-testid=lane-view]').scrollIntoViewIfNeeded();
    };
    await shoot(big.page, big.url, [
      ['26-lanes-synthetic-100k', trace, atLanes],
      [
        '27-lanes-synthetic-100k-zoomed',
        trace,
        async (p) => {
          await atLanes(p);
          // Every band open, then the wheel zooms in (×~300) around the middle of the drawing.
          await p.getByTestId('bands-open').click();
          const box = (await laneCanvas(p).boundingBox())!;
          await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          for (let i = 0; i < 8; i++) {
            await p.mouse.wheel(0, -500);
            await p.waitForTimeout(100);
          }
          // Off the drawing: no tooltip in the picture.
          await p.mouse.move(box.x + box.width / 2, Math.max(1, box.y - 120));
        },
      ],
    ]);
  } finally {
    await big.close();
  }
} finally {
  tmp.remove();
}
console.log('screenshots written to docs/screenshots/2x-*.png');
