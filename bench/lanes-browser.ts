/**
 * Lane view in headless Chromium (Debian's, software rendering): first frame on a
 * synthetic run of 100k variables (mount → first frame on screen, layout, bands, ruler,
 * gutter, minimap and marks included) and frames per second while dragging (real pointer
 * input through playwright), zoomed out (raster level of detail), zoomed in ×60 / ×12 and
 * zoomed into the vector level; layout time in Node for 100k and 1M variables. Medians
 * of RUNS runs. Writes its section of bench/RESULTS.md with the machine facts it saw, and
 * its raw numbers to bench/out/lanes-browser.json; `--baseline FILE` adds the ratios to
 * an earlier run's raw numbers. Screenshots of both views go to docs/screenshots/ (the
 * app's demo trace, public/demo/demo-trace.json, and the synthetic run: no shared data in a
 * committed image); `--only-shots` takes them without measuring.
 * `npx tsx bench/lanes-browser.ts [--runs N] [--no-shots | --only-shots] [--no-results] [--baseline FILE]`
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { buildGraph } from '../src/core/graph/index.ts';
import { laneLayout } from '../src/core/layout/index.ts';
import { launchChromium } from '../tests/helpers/chromium.ts';
import { buildHarness, serve } from './lanes-page/serve.ts';
import { syntheticDocument } from './lanes-synthetic.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Number(flag('--runs')) || 5;
const SHOTS = !args.includes('--no-shots');
const ONLY_SHOTS = args.includes('--only-shots');
const RESULTS = !args.includes('--no-results');
const BASELINE = flag('--baseline');
const ROOT = resolve(import.meta.dirname, '..');

async function drag(page: Page, ms: number): Promise<{ fps: number; drawMs: number; mode: string }> {
  const box = (await page.locator('[data-testid=lane-canvas]').boundingBox())!;
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
    fpsVector: [] as number[],
    drawOut: [] as number[],
    drawIn: [] as number[],
    drawVector: [] as number[],
    vars: 0,
    marks: 0,
    graphMs: [] as number[],
    chromium: browser.version(),
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
        marks: window.__lanes.marks,
        graph: window.__lanes.graphMs,
        error: window.__lanes.error,
      }));
      if (s.error) throw new Error(s.error);
      out.first.push(s.first);
      out.graphMs.push(s.graph);
      out.vars = s.vars;
      out.marks = s.marks;
      const zoomedOut = await drag(page, 2500);
      out.fpsOut.push(zoomedOut.fps);
      out.drawOut.push(zoomedOut.drawMs);
      modes.add(`out:${zoomedOut.mode}`);
      await page.evaluate(() => window.__lanes.api().zoom(60, 12));
      const zoomedIn = await drag(page, 2500);
      out.fpsIn.push(zoomedIn.fps);
      out.drawIn.push(zoomedIn.drawMs);
      modes.add(`in:${zoomedIn.mode}`);
      // Far enough in time for the vector level (columns ≥ 1.5 px, rows ≥ 3 px).
      await page.evaluate(() => {
        window.__lanes.api().fitAll();
        window.__lanes.api().zoom(150, 1);
      });
      const vector = await drag(page, 2500);
      out.fpsVector.push(vector.fps);
      out.drawVector.push(vector.drawMs);
      modes.add(`vector:${vector.mode}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return { ...out, modes: [...modes] };
}

async function screenshots(dir: string) {
  const out = join(ROOT, 'docs/screenshots');
  mkdirSync(out, { recursive: true });
  // The demo trace (Mem0 on the project's own conversation) under /data/.
  const server = await serve(dir, join(ROOT, 'public/demo'));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const shots: [string, string][] = [
      ['lanes-demo-trace.png', '?file=demo-trace.json'],
      ['lanes-demo-trace-dark.png', '?file=demo-trace.json&theme=dark'],
      ['neighbourhood-llm-judge.png', '?file=demo-trace.json&view=neighbourhood&op=llm-judge'],
      [
        'neighbourhood-memory-update-dark.png',
        '?file=demo-trace.json&view=neighbourhood&op=memory-update&theme=dark',
      ],
      ['lanes-synthetic-100k.png', '?synthetic=100000'],
      ['lanes-synthetic-100k-zoomed.png', '?synthetic=100000'],
    ];
    for (const [name, query] of shots) {
      await page.goto(server.url + query);
      await page.waitForFunction(() => window.__lanes?.ready, null, { timeout: 120_000 });
      if (name === 'lanes-demo-trace.png') {
        // zoomed in near the start: lane names, op dots (inputs hollow, outputs filled)
        await page.evaluate(() => {
          window.__lanes.api().zoom(2.2, 1.6);
          window.__lanes.api().reveal({ kind: 'var', id: 'mem-9@1' });
        });
      }
      if (name === 'lanes-synthetic-100k-zoomed.png') {
        // every band open, zoomed into a few hundred steps: lanes, dots and labels
        await page.evaluate(() => {
          window.__lanes.api().setBands(true);
        });
        await page.evaluate(
          () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))),
        );
        await page.evaluate(() => window.__lanes.api().zoom(300, 400));
      }
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      await page.screenshot({ path: join(out, name) });
    }
  } finally {
    await browser.close();
    await server.close();
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
if (ONLY_SHOTS) {
  await screenshots(dir);
  process.exit(0);
}
const server = await serve(dir);
const load0 = loadavg();
const t0 = Date.now();
let b: Awaited<ReturnType<typeof browserRuns>>;
try {
  b = await browserRuns(server.url);
  if (SHOTS) await screenshots(dir);
} finally {
  await server.close();
}
const load1 = loadavg();
const node100k = nodeLayout(100_000, 5);
const node1M = nodeLayout(1_000_000, 3);
const raw = {
  variables: b.vars,
  marks: b.marks,
  runs: RUNS,
  chromium: b.chromium,
  graphBuildMs: median(b.graphMs),
  firstFrameMs: median(b.first),
  firstFrameAll: b.first.map(Math.round),
  fpsZoomedOut: median(b.fpsOut),
  drawMsZoomedOut: median(b.drawOut),
  fpsZoomedIn: median(b.fpsIn),
  drawMsZoomedIn: median(b.drawIn),
  fpsVector: median(b.fpsVector),
  drawMsVector: median(b.drawVector),
  fpsAllOut: b.fpsOut.map((x) => Math.round(x)),
  fpsAllIn: b.fpsIn.map((x) => Math.round(x)),
  fpsAllVector: b.fpsVector.map((x) => Math.round(x)),
  modes: b.modes,
  node100k,
  node1M,
  commit: gitCommit(),
};
console.log(JSON.stringify(raw));
mkdirSync(join(ROOT, 'bench/out'), { recursive: true });
writeFileSync(join(ROOT, 'bench/out/lanes-browser.json'), `${JSON.stringify(raw, null, 2)}\n`);
if (RESULTS)
  writeResultsSection(
    'Lane view in Chromium',
    section(raw, baseline(), load0, load1, (Date.now() - t0) / 1000),
  );

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** An earlier run's raw numbers (its JSON line or bench/out/lanes-browser.json), when asked for. */
function baseline(): Partial<typeof raw> | null {
  if (!BASELINE || !existsSync(BASELINE)) return null;
  const text = readFileSync(BASELINE, 'utf8').trim();
  const line = text.split('\n').find((l) => l.startsWith('{"variables"')) ?? text;
  return JSON.parse(line);
}

function section(
  r: typeof raw,
  base: Partial<typeof raw> | null,
  l0: number[],
  l1: number[],
  seconds: number,
): string {
  const f = (x: number, d = 0) => x.toFixed(d);
  const ratio = (now: number, then: number | undefined, better: 'lower' | 'higher') =>
    then ? ` (${f(now / then, 2)}× the baseline's ${f(then, 1)}; ${better} is better)` : '';
  return `
\`npx tsx bench/lanes-browser.ts --runs ${r.runs}${BASELINE ? ` --baseline ${BASELINE}` : ''}\` at commit ${r.commit} — Debian's
${r.chromium} headless, \`--disable-gpu\` (software canvas), viewport 1280×800, DPR 1; machine: ${machine};
load average ${l0.map((x) => f(x, 1)).join(' / ')} at the start and ${l1.map((x) => f(x, 1)).join(' / ')} at the end (1 / 5 / 15 min). Synthetic run from \`bench/lanes-synthetic.ts\` with
${r.variables.toLocaleString('en-US')} variables (\`node100k\`: ${r.node100k.ops.toLocaleString('en-US')} ops, ${r.node100k.edges.toLocaleString('en-US')} edges),
lanes packed in bands as the app shows them, the ruler, gutter, minimap and ${r.marks} marks drawn every frame. Medians of ${r.runs} runs (a fresh page each).

| measure | median | runs | goal |
| --- | --- | --- | --- |
| first frame: mount → first frame on screen (layout and bands included) | ${f(r.firstFrameMs)} ms${ratio(r.firstFrameMs, base?.firstFrameMs, 'lower')} | ${r.firstFrameAll.join(', ')} | ≤ 1 s |
| dragging at fit (${r.modes.find((m) => m.startsWith('out:'))?.slice(4)}) | ${f(r.fpsZoomedOut, 1)} fps, ${f(r.drawMsZoomedOut, 1)} ms a frame${ratio(r.fpsZoomedOut, base?.fpsZoomedOut, 'higher')} | ${r.fpsAllOut.join(', ')} fps | ≥ 30 fps |
| dragging after zoom ×60 / ×12 (${r.modes.find((m) => m.startsWith('in:'))?.slice(3)}) | ${f(r.fpsZoomedIn, 1)} fps, ${f(r.drawMsZoomedIn, 1)} ms a frame${ratio(r.fpsZoomedIn, base?.fpsZoomedIn, 'higher')} | ${r.fpsAllIn.join(', ')} fps | ≥ 30 fps |
| dragging after zoom ×150 in time (${r.modes.find((m) => m.startsWith('vector:'))?.slice(7)}) | ${f(r.fpsVector, 1)} fps, ${f(r.drawMsVector, 1)} ms a frame | ${r.fpsAllVector.join(', ')} fps | ≥ 30 fps |

${base ? `Baseline: the same measures by this script's earlier version at commit ${base.commit ?? '62aab39 (before bands, ruler, gutter, minimap and marks)'}, read from \`${BASELINE}\`. Goal: first frame and fps within 10 % of it.\n\n` : ''}Building the synthetic document and the graph in the page (not part of the view): ${f(r.graphBuildMs / 1000, 1)} s.
Dragging is real pointer input (playwright \`mouse.move\` in a loop for 2.5 s); fps = frames the view drew / time between
the first and last; "ms a frame" is the median time of drawing one frame (drawing, ruler, gutter, minimap).

Lane layout in Node (\`laneLayout\`, bands, same generator): ${r.node100k.vars.toLocaleString('en-US')} variables ${f(r.node100k.ms)} ms
(packed ${f(r.node100k.packedMs)} ms), median of 5; ${r.node1M.vars.toLocaleString('en-US')} variables ${f(r.node1M.ms / 1000, 1)} s
(packed ${f(r.node1M.packedMs / 1000, 1)} s), median of 3. The whole run took ${f(seconds)} s.
Screenshots: \`docs/screenshots/lanes-*.png\`, \`docs/screenshots/neighbourhood-*.png\` (the harness, the app's demo trace and the synthetic run), checked by eye.
`;
}
