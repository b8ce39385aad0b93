/**
 * The lane view and the neighbourhood view in Debian's Chromium: a real file is drawn,
 * a click on an op's connector and on a variable's segment selects exactly that item, and
 * an OpenTelemetry import's inferred inputs are drawn dotted (recorded ones solid).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHarness, DATA_DIR, serve } from '../../bench/lanes-page/serve.ts';
import { otlpJson } from '../../src/sdk/otel.ts';
import { launchChromium } from '../helpers/chromium.ts';

let browser: Browser;
let server: { url: string; close: () => Promise<void> };
let page: Page;

beforeAll(async () => {
  // The same run as OTLP with the GenAI attributes only: the importer infers its dataflow.
  const doc = JSON.parse(readFileSync(join(DATA_DIR, 'conv-26-fault-0.json'), 'utf8'));
  const genai = await otlpJson(doc, { flavour: 'genai', exact: false });
  const made = mkdtempSync(join(tmpdir(), 'memtrace-lanes-'));
  writeFileSync(join(made, 'conv-26-fault-0.genai.otlp.json'), genai);
  server = await serve(await buildHarness(), DATA_DIR, { '/data/made/': made });
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

describe('LaneView of an OpenTelemetry import in Chromium', () => {
  it('draws the connector to an inferred input dotted and to a recorded input solid', async () => {
    await open('?file=made/conv-26-fault-0.genai.otlp.json');
    expect(await page.getByTestId('legend-inferred').innerText()).toMatch(/inferred input/);
    await page.evaluate(() => {
      window.__lanes.api().fitAll();
      window.__lanes.api().zoom(3, 3); // rows ~60 px apart: room between them
    });
    // From the graph's edges alone: ops with an input read only through edges the importer
    // marked inferred, lying beyond the op's recorded variables (so the connector's stretch
    // to it serves that input alone), and ops with a recorded input; each with the nearest
    // recorded variable of the op, the other end of the stretch looked at.
    const cases = await page.evaluate(() => {
      const g = window.__lanes.graph;
      const api = window.__lanes.api();
      const y = (v: number) => api.pointOf({ kind: 'var', id: g.varId[v] })?.y ?? null;
      const found: { op: string; inferred: boolean; v: string; w: string }[] = [];
      for (let o = 0; o < g.opId.length; o++) {
        const recorded = new Set<number>();
        const inputs = new Set<number>();
        for (let k = g.opEdges.offsets[o]; k < g.opEdges.offsets[o + 1]; k++) {
          const e = g.opEdges.items[k];
          inputs.add(g.edgeSrc[e]);
          recorded.add(g.edgeDst[e]);
          if (!g.edges[e].metadata?.inferred) recorded.add(g.edgeSrc[e]);
        }
        const ys = [...recorded].filter((r) => y(r) !== null);
        for (const v of inputs) {
          const at = y(v);
          const others = ys.filter((r) => r !== v && Math.abs(y(r)! - at!) > 1);
          if (at === null || !others.length) continue;
          const near = others.reduce((a, b) => (Math.abs(y(b)! - at) < Math.abs(y(a)! - at) ? b : a));
          const beyond = others.every((r) => y(r)! > at) || others.every((r) => y(r)! < at);
          if (!recorded.has(v) && beyond)
            found.push({ op: g.opId[o], inferred: true, v: g.varId[v], w: g.varId[near] });
          if (recorded.has(v))
            found.push({ op: g.opId[o], inferred: false, v: g.varId[v], w: g.varId[near] });
        }
      }
      const pick = (inferred: boolean) => found.filter((f) => f.inferred === inferred).slice(0, 3);
      return [...pick(true), ...pick(false)];
    });
    expect(cases.filter((c) => c.inferred)).toHaveLength(3);
    expect(cases.filter((c) => !c.inferred)).toHaveLength(3);
    for (const c of cases) {
      await page.evaluate((id) => window.__lanes.api().reveal({ kind: 'op', id }), c.op);
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      // Down the connector from v's row to w's, away from every row (lanes, dots, names) and
      // where half a column to the right is background: a pixel is a gap when it is background.
      const probe = await page.evaluate((c) => {
        const g = window.__lanes.graph;
        const api = window.__lanes.api();
        const o = g.opIndex.get(c.op)!;
        const x = api.pointOf({ kind: 'op', id: c.op })!.x;
        const after = g.opOrder[g.opRank[o] + 1];
        const next =
          (after === undefined ? null : api.pointOf({ kind: 'op', id: g.opId[after] }))?.x ?? x + 12;
        const from = api.pointOf({ kind: 'var', id: c.v })!.y;
        const to = api.pointOf({ kind: 'var', id: c.w })!.y;
        const rows = g.varId.map((id) => api.pointOf({ kind: 'var', id })?.y).filter((t) => t !== undefined);
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=lane-canvas]')!;
        const ctx = canvas.getContext('2d')!;
        const dpr = window.devicePixelRatio;
        const px = (x: number, y: number) =>
          ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data;
        const ys: number[] = [];
        const bottom = Math.min(Math.max(from, to), canvas.height / dpr - 1);
        for (let y = Math.max(0, Math.ceil(Math.min(from, to))); y <= bottom; y++)
          if (!rows.some((r) => y > r - 17 && y < r + 9)) ys.push(y);
        // Background: the commonest colour half a column to the right, between connectors.
        const seen = new Map<string, number>();
        for (const y of ys) {
          const k = px((x + next) / 2, y)
            .slice(0, 3)
            .join();
          seen.set(k, (seen.get(k) ?? 0) + 1);
        }
        const bg = [...seen]
          .sort((a, b) => b[1] - a[1])[0][0]
          .split(',')
          .map(Number);
        const isBg = (p: Uint8ClampedArray) =>
          Math.abs(p[0] - bg[0]) + Math.abs(p[1] - bg[1]) + Math.abs(p[2] - bg[2]) < 30;
        let gaps = 0;
        let ink = 0;
        for (const y of ys) {
          if (!isBg(px((x + next) / 2, y))) continue; // something drawn across (a band's edge)
          if (isBg(px(x, y))) gaps++;
          else ink++;
        }
        return { gaps, ink };
      }, c);
      expect(probe.ink, `${c.op}: connector drawn between ${c.v} and ${c.w}`).toBeGreaterThan(2);
      if (c.inferred) expect(probe.gaps, `${c.op}: inferred input ${c.v}, dotted`).toBeGreaterThan(2);
      else expect(probe.gaps, `${c.op}: recorded input ${c.v}, solid`).toBe(0);
    }
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
