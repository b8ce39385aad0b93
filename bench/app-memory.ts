/**
 * Memory and latency of the app with one ~100 MB trace, in headless Chromium through the real
 * UI: import the synthetic file, open a failed case, search its golden answer (words search),
 * then rank the trace's messages (BM25). Every worker's JS heap (CDP `Runtime.getHeapUsage`
 * on each worker target the page auto-attaches) is sampled every 100 ms; the peak is the
 * largest sum over workers. "Held" is the sum after a forced GC in every worker at the end.
 * The unit is one parse of the file: the heap `JSON.parse` of the same text keeps in the same
 * browser (a fresh page, after GC). Times: case link clicked → case path shown; search
 * opened → first hit; ranked search submitted → first ranked hit.
 *
 * `npx tsx bench/app-memory.ts [--label after] [--results bench/RESULTS.md] [runs=1]` — writes
 * its row into `## App memory with one 100 MB trace` (rows of other labels are kept): run a
 * copy in a checkout of main with `--label before --results <this RESULTS.md>`, then here.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { openApp } from '../tests/e2e/harness.ts';
import { serveStatic } from '../tests/helpers/static-server.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const SECTION = 'App memory with one 100 MB trace';
const { values: flags, positionals } = parseArgs({
  options: { label: { type: 'string', default: 'after' }, results: { type: 'string' } },
  allowPositionals: true,
});
const label = flags.label;
const runs = Number(positionals[0] ?? 1);
/** Where the section goes: this checkout's RESULTS.md, or another's (`--results`, for the run on main's code). */
const RESULTS = flags.results ?? join(import.meta.dirname, 'RESULTS.md');
const file = join(import.meta.dirname, 'out/synthetic-100mb.json');
if (!existsSync(file)) await writeSynthetic(file, 100);
const mb = statSync(file).size / 1e6;
const MiB = 1024 * 1024;

/** The page's worker targets over one CDP session (non-flat auto-attach: messages go through the page's session). */
class Workers {
  readonly #sessions = new Map<string, string>(); // sessionId → worker name/url
  #id = 0;
  readonly #pending = new Map<number, (r: unknown) => void>();

  private constructor(private readonly cdp: CDPSession) {
    cdp.on('Target.attachedToTarget', (e) => {
      if (e.targetInfo.type === 'worker') this.#sessions.set(e.sessionId, e.targetInfo.url);
    });
    cdp.on('Target.detachedFromTarget', (e) => this.#sessions.delete(e.sessionId ?? ''));
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      const msg = JSON.parse(e.message) as { id?: number; result?: unknown; error?: unknown };
      if (msg.id !== undefined) this.#pending.get(msg.id)?.(msg.result ?? null);
      if (msg.id !== undefined) this.#pending.delete(msg.id);
    });
  }

  static async attach(context: BrowserContext, page: Page): Promise<Workers> {
    const cdp = await context.newCDPSession(page);
    const w = new Workers(cdp);
    await cdp.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: false,
      flatten: false,
    });
    return w;
  }

  #send(sessionId: string, method: string, params: object = {}): Promise<unknown> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      // A worker that ends meanwhile never answers: count it as gone.
      setTimeout(() => {
        if (this.#pending.delete(id)) resolve(null);
      }, 30_000);
      void this.cdp
        .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(() => resolve(null));
    });
  }

  /**
   * Used JS heap of each worker (bytes), by worker url (`heap`), and the same plus the memory
   * outside the heap that its array buffers and external strings hold (`withBuffers`: a file's
   * bytes, and the text a `TextDecoder` makes, live there, not in the heap).
   */
  async heaps(): Promise<{ heap: Map<string, number>; withBuffers: Map<string, number> }> {
    const heap = new Map<string, number>();
    const withBuffers = new Map<string, number>();
    await Promise.all(
      [...this.#sessions].map(async ([sid, url]) => {
        const r = (await this.#send(sid, 'Runtime.getHeapUsage')) as {
          usedSize: number;
          backingStorageSize?: number;
        } | null;
        if (!r) return;
        heap.set(`${url}#${sid.slice(0, 6)}`, r.usedSize);
        withBuffers.set(`${url}#${sid.slice(0, 6)}`, r.usedSize + (r.backingStorageSize ?? 0));
      }),
    );
    return { heap, withBuffers };
  }

  async collectGarbage(): Promise<void> {
    await Promise.all(
      [...this.#sessions.keys()].map((sid) => this.#send(sid, 'HeapProfiler.collectGarbage')),
    );
  }
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Samples the workers' heaps until stopped; keeps the largest sum and the largest worker. */
function sampler(workers: Workers) {
  let peak = 0;
  let peakSingle = 0;
  let stop = false;
  // The largest sums in each step of the flow, heap alone and with buffers (to tell which step makes the peak).
  let phase = 'import';
  const phases = new Map<string, number>();
  const phasesAll = new Map<string, number>();
  const loop = (async () => {
    while (!stop) {
      const { heap: h, withBuffers } = await workers.heaps();
      phases.set(phase, Math.max(phases.get(phase) ?? 0, sum(h)));
      phasesAll.set(phase, Math.max(phasesAll.get(phase) ?? 0, sum(withBuffers)));
      peak = Math.max(peak, sum(h));
      peakSingle = Math.max(peakSingle, ...h.values());
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    step(name: string) {
      phase = name;
    },
    async end() {
      stop = true;
      await loop;
      const byStep = (m: Map<string, number>) =>
        [...m].map(([k, v]) => `${k} ${(v / MiB).toFixed(0)} MiB`).join(', ');
      console.error(`peak by step: heap ${byStep(phases)}; with buffers ${byStep(phasesAll)}`);
      const peakAll = Math.max(...phasesAll.values());
      return { peak, peakSingle, peakAll, importAll: phasesAll.get('import') ?? 0 };
    },
  };
}

/**
 * Heap one `JSON.parse` of the file keeps, in a fresh page of the same browser, after GC:
 * `parsed` (the document alone) and `withText` (the document and the text it came from, the
 * least a parse needs at its end).
 */
async function oneParse(context: BrowserContext): Promise<{ parsed: number; withText: number }> {
  // Its own origin serving the file (Playwright's route would push 100 MB through the protocol).
  const server = await serveStatic({ '/': dirname(file) });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const used = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  };
  await page.goto(`${server.url}404-bench-blank`);
  const before = await used();
  await page.evaluate(async (name) => {
    const w = window as unknown as { doc: unknown; text: string | null };
    w.text = await (await fetch(`/${name}`)).text();
    w.doc = JSON.parse(w.text);
  }, basename(file));
  const withText = (await used()) - before;
  await page.evaluate(() => {
    (window as unknown as { text: string | null }).text = null;
  });
  const parsed = (await used()) - before;
  await page.close();
  await server.close();
  return { parsed, withText };
}

interface Run {
  peak: number;
  peakSingle: number;
  /** Peak of heaps plus buffers (array buffers, external strings), whole flow and import step. */
  peakAll: number;
  importAll: number;
  held: number;
  workers: number;
  parse: number;
  parseWithText: number;
  importMs: number;
  caseMs: number;
  searchMs: number;
  rankedMs: number;
}

async function once(): Promise<Run> {
  const s = await openApp();
  const { page, context } = s;
  try {
    const workers = await Workers.attach(context, page);
    await page.getByTestId('empty-state').waitFor();
    const sample = sampler(workers);
    let t = Date.now();
    await page.setInputFiles('[data-testid=file-input]', file);
    await page.getByTestId('trace-row').first().waitFor({ timeout: 600_000 });
    const importMs = Date.now() - t;
    console.error(`imported in ${importMs} ms`);
    sample.step('case');
    await page.goto(`${s.url}#/cases`);
    const link = page.getByTestId('case-row').first().locator('a').first();
    await link.waitFor({ timeout: 120_000 });
    t = Date.now();
    await link.click();
    await page.getByTestId('case-path').locator('a').first().waitFor({ timeout: 600_000 });
    const caseMs = Date.now() - t;
    sample.step('search');
    t = Date.now();
    await page.getByTestId('case-search').click();
    await page.getByTestId('search-hit').first().waitFor({ timeout: 600_000 });
    const searchMs = Date.now() - t;
    sample.step('ranked');
    await page.getByTestId('mode-ranked').click();
    await page.getByTestId('ranked-query').fill('what did they talk about at sunrise');
    t = Date.now();
    await page.getByTestId('ranked-submit').click();
    await page.getByTestId('ranked-hit').first().waitFor({ timeout: 600_000 });
    const rankedMs = Date.now() - t;
    const { peak, peakSingle, peakAll, importAll } = await sample.end();
    await workers.collectGarbage();
    const heldBy = (await workers.heaps()).heap;
    const one = await oneParse(context);
    return {
      peak,
      peakSingle,
      peakAll,
      importAll,
      held: sum(heldBy),
      workers: heldBy.size,
      parse: one.parsed,
      parseWithText: one.withText,
      importMs,
      caseMs,
      searchMs,
      rankedMs,
    };
  } catch (e) {
    console.error(
      `failed: ${e instanceof Error ? e.message : String(e)}; page errors: ${s.errors.join('\n')}`,
    );
    throw e;
  } finally {
    await s.close().catch(() => {});
  }
}

/** A row written before the "peak with buffers" column gets — there. */
function withBuffersCell(line: string): string {
  const cells = line.split(' | ');
  if (cells.length === 11) cells.splice(2, 0, '—');
  return cells.join(' | ');
}

const results: Run[] = [];
for (let r = 0; r < runs; r++) {
  const x = await once();
  results.push(x);
  console.error(
    `run ${r + 1} (${label}): peak ${(x.peak / MiB).toFixed(0)} MiB over ${x.workers} workers, held ${(x.held / MiB).toFixed(0)} MiB, one parse ${(x.parse / MiB).toFixed(0)} MiB; import ${x.importMs} ms, case ${x.caseMs} ms, search ${x.searchMs} ms, ranked ${x.rankedMs} ms`,
  );
}
const m = (k: keyof Run) => median(results.map((x) => x[k]));
const parse = m('parse');
const row = [
  label,
  `${(m('peak') / MiB).toFixed(0)} MiB (${(m('peak') / parse).toFixed(2)}×)`,
  `${(m('peakAll') / MiB).toFixed(0)} MiB (${(m('peakAll') / parse).toFixed(2)}×); import step ${(m('importAll') / MiB).toFixed(0)} MiB (${(m('importAll') / parse).toFixed(2)}×)`,
  `${(m('peakSingle') / MiB).toFixed(0)} MiB`,
  `${(m('held') / MiB).toFixed(0)} MiB (${(m('held') / parse).toFixed(2)}×)`,
  `${(parse / MiB).toFixed(0)} MiB (with its text ${(m('parseWithText') / MiB).toFixed(0)} MiB)`,
  String(m('workers')),
  m('importMs').toFixed(0),
  m('caseMs').toFixed(0),
  m('searchMs').toFixed(0),
  m('rankedMs').toFixed(0),
  `${new Date().toISOString().slice(0, 10)}, ${runs} run(s), ${machineFacts()}`,
];

// Rows of other labels (another checkout's run) stay; this label's row is replaced.
const old = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
const start = old.indexOf(`## ${SECTION}`);
const kept =
  start < 0
    ? []
    : old
        .slice(start)
        .split('\n')
        .slice(1)
        .filter((l, i, all) => all.slice(0, i).every((x) => !x.startsWith('## ')) && !l.startsWith('## '))
        .filter((l) => /^\| (?!label|---)/.test(l) && !l.startsWith(`| ${label} |`))
        .map(withBuffersCell);
const body = [
  `File: \`bench/out/synthetic-100mb.json\`, ${mb.toFixed(0)} MB (\`bench/synthetic.ts\`), imported through the UI of a fresh profile in headless Chromium (\`/usr/bin/chromium\`); then a failed case opened from the case list, its golden answer searched (words), and the trace's messages ranked by BM25. Memory: every worker's used JS heap (CDP \`Runtime.getHeapUsage\` per worker target), sampled every 100 ms during the whole flow; peak = the largest sum over workers, held = the sum after a forced GC at the end. Peak with buffers adds what each worker holds outside its heap in array buffers and external strings (\`backingStorageSize\`: a file's bytes, and the text \`TextDecoder\` makes, live there), for the whole flow and for the import step alone (file chosen → trace listed); rows measured before it was counted show —. One parse = the heap \`JSON.parse\` of the same text keeps (fresh page, same browser, after GC). Goal: peak ≤ 1.3× one parse. Times in ms; case = link clicked → case path shown, search = search opened → first hit, ranked = submitted → first ranked hit. \`before\` is main's code (each trace parsed in the import worker, again in the analysis worker and again in the retrieval worker), \`after\` the engine (parsed once in the engine worker, which keeps the graph; the embedder worker holds no trace); \`before-stream\` the engine reading the file whole (bytes, then the decoded text, then \`JSON.parse\`), \`after-stream\` the streamed import (records cut out of the decoded chunks and parsed as they arrive), \`after-peak-cut\` the same with records sharing the short strings they repeat, the stage walk keeping no text cut out of a whole window (which kept the window alive) and reading no plain text as data for a time, and the words index given each value's words once; \`after-delta\` the same with each variable version that continues its previous version's text (a window: the previous one trimmed at the front plus the new message) keeping only its new tail, appended to one text per variable (\`src/core/trace/version-text.ts\`), its value read through an accessor on the record and the graph's values column (the quotes and brackets at a value's ends kept apart, so the value is made at each read); \`after-walk-cache\` the same with the stage walk splitting each version into its units once per graph (lines kept once, so the index of the versions' units costs about their unique text) instead of again for every stage, piece and case, and Python string reprs read by \`indexOf\` runs joined once; \`after-words-cut\` the same with the words index reading a shared version's cut of its chain's text (\`valueParts\`: no copy) instead of its whole value (a copy at each read: some 90 MB of copies for one index of this trace); \`after-segments\` the same with the words index reading each shared segment once for all its versions (\`workers/words-index.ts\`: 3.5 MB of text instead of 87 MB; postings kept there, FlexSearch's encoder kept) and the stage walk reading a shared window as a slice of its segment's text parsed once (\`sharedString\`), its emptiness and first mark from its cut — until then the case's walk, still running when the ranked search starts, parsed a copy of every window it read and made the peak. Steps' peaks are printed by each run. What stays (CDP heap sampling of the engine worker): the document, the words index, the app's code and word lists — up to \`after-peak-cut\` the document holds every window whole, from \`after-delta\` about the windows' unique text; the peak is that and what the heap gathers before V8's next full collection (short-lived allocations of the case's stage walk and of the index builds; from \`after-delta\` every read of a window is a copy of it, and the stage walk's reads, alive while it parses each window, are promoted to the old generation and gathered there: CDP sampling with objects collected by full collections puts them in its \`ownTime\`, \`carrying\` and \`stating\`), and the buffers left after the import are the decoded chunks' text (external strings), garbage until that collection.`,
  '',
  '| label | peak, all workers | peak with buffers | largest worker | held after GC | one parse | workers | import ms | case ms | search ms | ranked ms | measured |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...[...kept, `| ${row.join(' | ')} |`].sort(),
  '',
  `Measured with \`npx tsx bench/app-memory.ts --label ${label} ${runs}\`.`,
].join('\n');
writeResultsSection(SECTION, body, pathToFileURL(RESULTS));
console.log(body);
