/**
 * Lane view in headless Chromium (Debian's, software rendering): first frame on a
 * synthetic run of 100k variables (mount → first frame on screen, layout included) and
 * frames per second while dragging (real pointer input through playwright), zoomed out
 * (raster level of detail) and zoomed in (vector with labels); layout time in Node for
 * 100k and 1M variables. Medians of RUNS runs. Screenshots of both views on a real file
 * go to docs/screenshots/. `npx tsx bench/lanes-browser.ts [--runs N] [--no-shots]`
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { buildGraph } from '../src/core/graph/index.ts';
import { laneLayout } from '../src/core/layout/index.ts';
import { buildHarness, launchChromium, serve } from './lanes-page/serve.ts';
import { syntheticDocument } from './lanes-synthetic.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 5;
const SHOTS = !args.includes('--no-shots');
const ROOT = resolve(import.meta.dirname, '..');
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function drag(page: Page, ms: number): Promise<{ fps: number; drawMs: number; mode: string }> {
  const box = (await page.locator('canvas').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  const from = await page.evaluate(() => window.__lanes.frames.length);
  const t0 = Date.now();
  let i = 0;
  while (Date.now() - t0 < ms) {
    i++;
    // back and forth, 6 px a step, never past the edges
    const dx = 150 * Math.sin(i / 25);
    await page.mouse.move(cx + dx, cy + 40 * Math.sin(i / 40));
  }
  await page.mouse.up();
  return page.evaluate((from) => {
    const f = window.__lanes.frames.slice(from);
    const span = f[f.length - 1].t - f[0].t;
    const draws = f.map((x) => x.ms).sort((a, b) => a - b);
    return {
      fps: ((f.length - 1) * 1000) / span,
      drawMs: draws[Math.floor(draws.length / 2)],
      mode: f[0].mode,
    };
  }, from);
}

async function browserRuns(url: string) {
  const browser = await launchChromium();
  const out = {
    first: [] as number[],
    fpsOut: [] as number[],
    fpsIn: [] as number[],
    drawOut: [] as number[],
    drawIn: [] as number[],
    vars: 0,
    graphMs: [] as number[],
  };
  const modes = new Set<string>();
  try {
    for (let r = 0; r < RUNS; r++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${url}?synthetic=100000`);
      await page.waitForFunction(() => window.__lanes?.ready, null, { timeout: 120_000 });
      const s = await page.evaluate(() => ({
        first: window.__lanes.firstFrameMs,
        vars: window.__lanes.variables,
        graph: window.__lanes.graphMs,
        error: window.__lanes.error,
      }));
      if (s.error) throw new Error(s.error);
      out.first.push(s.first);
      out.graphMs.push(s.graph);
      out.vars = s.vars;
      const zoomedOut = await drag(page, 2500);
      out.fpsOut.push(zoomedOut.fps);
      out.drawOut.push(zoomedOut.drawMs);
      modes.add(`out:${zoomedOut.mode}`);
      await page.evaluate(() => window.__lanes.api().zoom(60, 12));
      const zoomedIn = await drag(page, 2500);
      out.fpsIn.push(zoomedIn.fps);
      out.drawIn.push(zoomedIn.drawMs);
      modes.add(`in:${zoomedIn.mode}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return { ...out, modes: [...modes] };
}

async function screenshots(url: string) {
  const dir = join(ROOT, 'docs/screenshots');
  mkdirSync(dir, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const shots: [string, string][] = [
      ['lanes-conv-26-fault-0.png', '?file=conv-26-fault-0.json'],
      ['lanes-conv-26-fault-0-dark.png', '?file=conv-26-fault-0.json&theme=dark'],
      ['neighbourhood-llm-judge.png', '?file=conv-26-fault-0.json&view=neighbourhood&op=llm-judge'],
      [
        'neighbourhood-memory-update-dark.png',
        '?file=conv-26-fault-0.json&view=neighbourhood&op=memory-update&theme=dark',
      ],
      ['lanes-synthetic-100k.png', '?synthetic=100000'],
    ];
    for (const [name, query] of shots) {
      await page.goto(url + query);
      await page.waitForFunction(() => window.__lanes?.ready, null, { timeout: 120_000 });
      if (name === 'lanes-conv-26-fault-0.png') {
        // zoomed in near the start: lane names, op dots (inputs hollow, outputs filled)
        await page.evaluate(() => {
          window.__lanes.api().zoom(2.2, 1.6);
          window.__lanes.api().reveal({ kind: 'var', id: 'memory-store@14' });
        });
      }
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      await page.screenshot({ path: join(dir, name) });
    }
  } finally {
    await browser.close();
  }
}

function nodeLayout(vars: number, runs: number) {
  const g = buildGraph(syntheticDocument(vars));
  const times: number[] = [];
  const packed: number[] = [];
  for (let r = 0; r < runs; r++) {
    let t = performance.now();
    laneLayout(g);
    times.push(performance.now() - t);
    t = performance.now();
    laneLayout(g, { pack: true });
    packed.push(performance.now() - t);
  }
  return {
    vars: g.varId.length,
    ops: g.opId.length,
    edges: g.edgeOp.length,
    ms: median(times),
    packedMs: median(packed),
  };
}

const dir = await buildHarness();
const server = await serve(dir);
try {
  const b = await browserRuns(server.url);
  console.log(
    JSON.stringify({
      variables: b.vars,
      runs: RUNS,
      graphBuildMs: median(b.graphMs),
      firstFrameMs: median(b.first),
      firstFrameAll: b.first.map(Math.round),
      fpsZoomedOut: median(b.fpsOut),
      drawMsZoomedOut: median(b.drawOut),
      fpsZoomedIn: median(b.fpsIn),
      drawMsZoomedIn: median(b.drawIn),
      fpsAllOut: b.fpsOut.map((x) => Math.round(x)),
      fpsAllIn: b.fpsIn.map((x) => Math.round(x)),
      modes: b.modes,
    }),
  );
  if (SHOTS) await screenshots(server.url);
} finally {
  await server.close();
}
console.log(JSON.stringify({ node100k: nodeLayout(100_000, 5) }));
console.log(JSON.stringify({ node1M: nodeLayout(1_000_000, 3) }));
