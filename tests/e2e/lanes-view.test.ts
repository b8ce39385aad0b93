/**
 * The lane view and the neighbourhood view in Debian's Chromium: a real file is drawn,
 * a click on an op's connector and on a variable's segment selects exactly that item.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHarness, serve } from '../../bench/lanes-page/serve.ts';
import { launchChromium } from '../helpers/chromium.ts';

let browser: Browser;
let server: { url: string; close: () => Promise<void> };
let page: Page;

beforeAll(async () => {
  server = await serve(await buildHarness());
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(query: string) {
  await page.goto(server.url + query);
  await page.waitForFunction(() => window.__lanes?.ready, null, { timeout: 60_000 });
  expect(await page.evaluate(() => window.__lanes.error ?? null)).toBeNull();
}

describe('LaneView in Chromium', () => {
  it('draws a real trace and a click on an op or a variable selects it', async () => {
    await open('?file=conv-26-fault-0.json');
    // Something other than the background was drawn.
    const inked = await page.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('[data-testid=lane-canvas]')!;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(2000);

    const box = (await page.locator('[data-testid=lane-canvas]').boundingBox())!;
    const target = await page.evaluate(() => {
      const g = window.__lanes.graph;
      const op = g.opName.lastIndexOf('llm-judge');
      const at = window.__lanes.api().pointOf({ kind: 'op', id: g.opId[op] })!;
      return { id: g.opId[op], ...at };
    });
    await page.mouse.click(box.x + target.x, box.y + target.y + 2);
    expect(await page.evaluate(() => window.__lanes.selections.at(-1))).toMatchObject({
      kind: 'op',
      id: target.id,
    });

    // Zoom in so a variable segment is wide, then click its middle.
    const v = await page.evaluate(() => {
      const id = 'memory-store@40';
      window.__lanes.api().fitAll();
      window.__lanes.api().zoom(4, 1.5);
      window.__lanes.api().reveal({ kind: 'var', id });
      return id;
    });
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const at = await page.evaluate((id) => window.__lanes.api().pointOf({ kind: 'var', id }), v);
    expect(at!.x).toBeGreaterThan(0);
    expect(at!.y).toBeGreaterThan(0);
    await page.mouse.click(box.x + at!.x, box.y + at!.y);
    expect(await page.evaluate(() => window.__lanes.selections.at(-1))).toMatchObject({ kind: 'var', id: v });

    // Empty space clears the selection.
    await page.mouse.click(box.x + box.width - 3, box.y + box.height - 3);
    expect(await page.evaluate(() => window.__lanes.selections.at(-1))).toBeNull();
  });

  it('a drag pans without selecting', async () => {
    await open('?file=conv-26-rag-0.json');
    const box = (await page.locator('[data-testid=lane-canvas]').boundingBox())!;
    const before = await page.evaluate(() => window.__lanes.selections.length);
    const frames = await page.evaluate(() => window.__lanes.frames.length);
    await page.mouse.move(box.x + 300, box.y + 300);
    await page.mouse.down();
    await page.mouse.move(box.x + 200, box.y + 280, { steps: 8 });
    await page.mouse.up();
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    expect(await page.evaluate(() => window.__lanes.selections.length)).toBe(before);
    expect(await page.evaluate(() => window.__lanes.frames.length)).toBeGreaterThan(frames);
  });
});

describe('NeighbourhoodView in Chromium', () => {
  it('draws the graph around an op as SVG text and a click on a node selects it', async () => {
    await open('?file=conv-26-fault-0.json&view=neighbourhood&op=llm-judge');
    const titles = await page.locator('svg text.title').allTextContents();
    expect(titles).toContain('llm-judge');
    expect(titles.some((t) => t.startsWith('judge_score:'))).toBe(true);
    await page.locator('g.node.op', { hasText: 'llm-judge' }).first().click();
    const sel = await page.evaluate(() => window.__lanes.selections.at(-1));
    expect(sel?.kind).toBe('op');
    const name = await page.evaluate((id) => {
      const g = window.__lanes.graph;
      return g.opName[g.opIndex.get(id)!];
    }, sel!.id);
    expect(name).toBe('llm-judge');
  });
});
