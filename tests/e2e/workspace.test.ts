/**
 * The workspace in Debian's Chromium, one test per promise of issue 12: the case path
 * holds only causes (on a long-context trace made here by the offline reference system),
 * the lane view never shows the previous trace and opens details in place, the lists
 * sort, filter and page, search spans the stored traces grouped by memory unit, the
 * evaluation covers what the person chose and exports it, import names what it skipped,
 * and the keys do what the help says. Expectations come from the files, read in Node.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCases, systemOf } from '../../src/core/cases/index.ts';
import { openTrace, opStructure, producersOf, type TraceGraph } from '../../src/core/graph/index.ts';
import { type BigTrace, writeBigTrace } from './big-trace.ts';
import { DATA, importTraces, openApp, type Session, SIX } from './harness.ts';
import { writeLongContextTrace } from './long-context-trace.ts';

let s: Session;
let tmp: string;
let longPath: string;
let longGraph: TraceGraph;
let big: BigTrace;
const graphs = new Map<string, TraceGraph>(); // graph_id → graph of each imported file
const fileOf = new Map<string, string>();

function open(path: string): TraceGraph {
  const r = openTrace(readFileSync(path, 'utf8'), { file: path });
  if (!r.ok) throw new Error(`${path} does not open`);
  return r.graph;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'memtrace-ws-'));
  // A long-context run (4 sessions of LoCoMo conv-26): every question re-reads the window.
  longPath = (await writeLongContextTrace(tmp)).path;
  longGraph = open(longPath);
  big = writeBigTrace(9e6);
  for (const f of SIX) {
    const g = open(join(DATA, f));
    graphs.set(g.doc.graph_id, g);
    fileOf.set(g.doc.graph_id, f);
  }
  graphs.set(longGraph.doc.graph_id, longGraph);
  fileOf.set(longGraph.doc.graph_id, 'long-context-conv-26.json');
  s = await openApp();
  await importTraces(s.page, [...SIX.map((f) => join(DATA, f)), longPath], 7, 120_000);
}, 300_000);
afterAll(async () => {
  await s?.close();
  big?.remove();
  rmSync(tmp, { recursive: true, force: true });
});

const caseLink = (traceId: string, queryId: string, op?: string) =>
  `#/t/${encodeURIComponent(traceId)}/case/${encodeURIComponent(queryId)}${op ? `?op=${encodeURIComponent(op)}` : ''}`;

describe('case path (item 1)', () => {
  it('lists only ops upstream of the judged answer and no later than it, in execution order, then the judge', async () => {
    const { page, url } = s;
    const g = longGraph;
    const c = listCases(g).at(-1)!; // a late question: many window reads ran before and after it
    const judge = g.opIndex.get(c.judgeOpId!)!;
    const pred = opStructure(g, judge).inputs.find((v) => g.vars[v].class_name === 'prediction')!;
    const answer = producersOf(g, pred)[0];
    await page.goto(url + caseLink(g.doc.graph_id, c.queryId));
    const path = page.getByTestId('case-path').locator('a');
    await path.first().waitFor();
    const ids = await path.evaluateAll((as) => as.map((a) => a.getAttribute('title') ?? ''));
    expect(ids.at(-1)).toBe(c.judgeOpId);
    expect(ids.at(-2)).toBe(g.opId[answer]);
    const ranks = ids.map((id) => g.opRank[g.opIndex.get(id)!]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (const r of ranks.slice(0, -1)) expect(r).toBeLessThanOrEqual(g.opRank[answer]);
    // `]` / `[` step through the path in the inspector (item 9).
    await page.getByTestId('op-inspector').waitFor();
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('[');
    await page.waitForFunction((id) => decodeURIComponent(location.hash).includes(`op=${id}`), ids.at(-2)!);
    await page.keyboard.press(']');
    await page.waitForFunction((id) => decodeURIComponent(location.hash).includes(`op=${id}`), ids.at(-1)!);
  });
});

describe('lane view (item 3)', () => {
  it('never shows the previous trace under a new title while laying out, and shows progress', async () => {
    const { page, url } = s;
    const small = [...graphs.keys()][0];
    await page.goto(`${url}#/t/${encodeURIComponent(small)}`);
    await page.waitForSelector(`[data-testid=lane-view][data-trace="${small}"] [data-testid=lane-canvas]`);
    // Record every state of the page while the next, bigger trace opens.
    await page.evaluate(() => {
      const w = window as unknown as {
        states: { title: string; trace: string | null; canvas: boolean; progress: boolean }[];
      };
      w.states = [];
      const record = () =>
        w.states.push({
          title: document.querySelector('main h1')?.textContent ?? '',
          trace: document.querySelector('[data-testid=lane-view]')?.getAttribute('data-trace') ?? null,
          canvas: !!document.querySelector('[data-testid=lane-canvas]'),
          progress: !!document.querySelector('[data-testid=lane-progress]'),
        });
      new MutationObserver(record).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
      });
    });
    // Import the big one (its layout takes a while) and open it.
    await page.goto(`${url}#/`);
    await importTraces(page, [big.path], 8, 120_000);
    const bigId = JSON.parse(big.text).graph_id as string;
    graphs.set(bigId, open(big.path));
    fileOf.set(bigId, 'synthetic-big.json');
    await page.goto(`${url}#/t/${encodeURIComponent(small)}`);
    await page.waitForSelector(`[data-testid=lane-view][data-trace="${small}"] [data-testid=lane-canvas]`);
    await page.evaluate(() => {
      (window as unknown as { states: unknown[] }).states.length = 0;
    });
    await page.goto(`${url}#/t/${encodeURIComponent(bigId)}`);
    await page.waitForSelector(`[data-testid=lane-view][data-trace="${bigId}"] [data-testid=lane-canvas]`, {
      timeout: 120_000,
    });
    const states = await page.evaluate(
      () =>
        (
          window as unknown as {
            states: { title: string; trace: string | null; canvas: boolean; progress: boolean }[];
          }
        ).states,
    );
    const underBig = states.filter((x) => x.title.includes('synthetic-big'));
    expect(underBig.length).toBeGreaterThan(0);
    // A drawing under the big trace's title is always the big trace's.
    for (const x of underBig) if (x.canvas) expect(x.trace).toBe(bigId);
    expect(underBig.some((x) => x.progress)).toBe(true);
  });

  it('a click on an op opens its details beside the drawing without leaving the view; Enter opens its page', async () => {
    const { page, url } = s;
    const id = [...graphs.keys()].find((k) => fileOf.get(k) === 'conv-26-rag-0.json')!;
    await page.goto(`${url}#/t/${encodeURIComponent(id)}`);
    const canvas = page.locator(`[data-testid=lane-view][data-trace="${id}"] [data-testid=lane-canvas]`);
    await canvas.waitFor();
    const box = (await canvas.boundingBox())!;
    // Move along the drawing until the tooltip names an op, then click there.
    let at: { x: number; y: number } | null = null;
    let tipTitle = '';
    for (let y = box.y + 30; y < box.y + box.height - 10 && !at; y += 22)
      for (let x = box.x + 20; x < box.x + box.width - 20 && !at; x += 9) {
        await page.mouse.move(x, y);
        const tip = page.getByTestId('lane-tooltip');
        if ((await tip.count()) && (await tip.innerText()).includes('op ·')) {
          at = { x, y };
          tipTitle = (await tip.locator('strong').innerText()).trim();
        }
      }
    expect(at).not.toBeNull();
    const before = await page.evaluate(() => location.hash);
    await page.mouse.click(at!.x, at!.y);
    const details = page.getByTestId('lane-details');
    await details.waitFor();
    expect((await details.getByTestId('lane-details-title').innerText()).trim()).toBe(tipTitle);
    expect(await details.innerText()).toMatch(/Inputs \(\d+\)[\s\S]*Outputs \(\d+\)/);
    expect(await page.evaluate(() => location.hash)).toBe(before);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash.includes('/op/'));
    await page.getByTestId('op-inspector').waitFor();
  });
});

describe('lists (item 5)', () => {
  it('the case list sorts by a column, filters by text, pages thousands of rows and colours each error type', async () => {
    const { page, url } = s;
    const all = [...graphs.values()].flatMap((g) => listCases(g));
    await page.goto(`${url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    // 7 traces hold more cases than one page.
    expect(all.length).toBeGreaterThan(100);
    expect(await page.getByTestId('pager-text').first().innerText()).toBe(`cases 1–100 of ${all.length}`);
    expect(await page.getByTestId('case-row').count()).toBe(100);
    // Sorted by label: the labelled ones first, in alphabetical order of their type.
    await page.getByTestId('sort-label').click();
    await page.waitForFunction(() => location.hash.includes('sort=label'));
    const labels = await page.getByTestId('case-label').allInnerTexts();
    const expected = all
      .map((c) => c.label?.errorType)
      .filter((x): x is string => !!x)
      .sort();
    expect(labels).toEqual(expected.slice(0, labels.length));
    // A text filter: the rows whose question holds the words.
    const words = 'Caroline support';
    await page.getByTestId('case-filter').fill(words);
    const matching = all.filter((c) =>
      words
        .toLowerCase()
        .split(' ')
        .every((w) =>
          `${c.question} ${c.queryId} ${c.label?.errorType ?? 'unlabelled'} ${c.goldenAnswers.join(' ')} ${c.prediction ?? ''}`
            .toLowerCase()
            .includes(w),
        ),
    );
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=case-row]').length === n,
      Math.min(100, matching.length),
    );
    // Each error type has its own colour.
    await page.getByTestId('case-filter').fill('');
    await page.goto(`${url}#/cases?labelled=labelled&sort=label`);
    await page.getByTestId('case-row').first().waitFor();
    const colours = await page.$$eval('[data-testid=case-label]', (els) => {
      const by = new Map<string, string>();
      for (const e of els) by.set(e.textContent ?? '', getComputedStyle(e).color);
      return [...by.values()];
    });
    expect(new Set(colours).size).toBe(colours.length);
    expect(colours.length).toBe(5);
  });
});

describe('search (item 6)', () => {
  it('searches every stored trace, one row per memory unit with its matching versions, hits highlighted', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/search?q=sunrise`);
    await page.getByTestId('search-hit').first().waitFor();
    const hits = page.getByTestId('search-hit');
    const traces = new Set(await hits.evaluateAll((els) => els.map((e) => e.getAttribute('data-trace'))));
    // Every trace whose values hold the word, from Node.
    const holding = [...graphs]
      .filter(([, g]) => g.varValue.some((v) => /sunrise/i.test(v)))
      .map(([id]) => id);
    expect([...traces].sort()).toEqual(holding.sort());
    const units = await hits.evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-trace')} ${e.getAttribute('data-unit')}`),
    );
    expect(new Set(units).size).toBe(units.length);
    // The memory store: one row listing how many of its versions match.
    const row = page.locator('[data-testid=search-hit][data-unit="memory-store"]').first();
    expect(await row.getByTestId('hit-versions').innerText()).toMatch(/^\d+ of \d+ versions match$/);
    expect((await row.locator('mark').first().innerText()).toLowerCase()).toBe('sunrise');
    // The trace filter narrows to one trace.
    const one = holding[0];
    await page.getByTestId('search-trace').selectOption(one);
    await page.waitForFunction(
      (id) =>
        [...document.querySelectorAll('[data-testid=search-hit]')].every(
          (e) => e.getAttribute('data-trace') === id,
        ),
      one,
    );
  });

  it("marks a case's evidence when opened from the case, and offers ranked retrieval as a mode", async () => {
    const { page, url } = s;
    const [id, g] = [...graphs].find(([k]) => fileOf.get(k) === 'conv-26-fault-1.json')!;
    const c = listCases(g).find((x) => x.label && x.evidenceIds.length)!;
    await page.goto(url + caseLink(id, c.queryId));
    await page.getByTestId('case-search').click();
    await page.getByTestId('search-case').waitFor();
    const evidenceUnits = new Set(c.evidenceIds.map((e) => g.varFullName[g.varIndex.get(e)!]));
    await page.getByTestId('search-hit').first().waitFor();
    const marked = await page
      .locator('[data-testid=search-hit]:has([data-testid=hit-evidence])')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-unit')));
    for (const u of marked) expect(evidenceUnits.has(u!)).toBe(true);
    await page.getByTestId('mode-ranked').click();
    await page.locator('section.retrieval').waitFor();
    expect(await page.getByTestId('mode-ranked').getAttribute('aria-selected')).toBe('true');
  });
});

describe('evaluation (item 7)', () => {
  it('covers the traces and systems chosen, exports CSV and JSON, and a confusion cell lists its cases', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/eval`);
    await page.getByTestId('eval-cover').locator('summary').click();
    // Leave out the RAG system: only the Mem0 files' labelled cases are run.
    await page.locator('[data-testid=eval-system][data-system=rag]').uncheck();
    const expected = [...graphs]
      .filter(([id, g]) => systemOf(g.doc, fileOf.get(id)!) !== 'rag')
      .reduce((n, [, g]) => n + listCases(g).filter((c) => c.label).length, 0);
    expect(Number(await page.getByTestId('eval-cover-cases').innerText())).toBe(expected);
    await page.getByTestId('eval-run').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=eval-status]')?.getAttribute('data-status') === 'done',
      null,
      {
        timeout: 120_000,
      },
    );
    expect(Number(await page.getByTestId('metric-total').innerText())).toBe(expected);
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('eval-export-csv').click(),
    ]);
    const csvText = readFileSync((await csv.path())!, 'utf8');
    const lines = csvText.trim().split('\r\n');
    expect(lines[0].split(',')).toContain('predicted_op');
    expect(lines.length - 1).toBe(expected);
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('eval-export-json').click(),
    ]);
    const data = JSON.parse(readFileSync((await json.path())!, 'utf8'));
    expect(data.cases.length).toBe(expected);
    expect(data.summary.total_cases).toBe(expected);
    // A cell of the confusion matrix lists exactly its cases.
    const cell = page.locator('[data-testid=confusion-cell][role=button]').first();
    const [label, predicted, count] = await cell.evaluate((e) => [
      e.getAttribute('data-label'),
      e.getAttribute('data-predicted'),
      Number(e.getAttribute('data-count')),
    ]);
    await cell.click();
    await page.getByTestId('eval-cell').waitFor();
    expect(await page.getByTestId('eval-case').count()).toBe(count);
    const want = data.cases.filter(
      (c: { label_type: string; predicted_type: string | null }) =>
        c.label_type === label && (c.predicted_type ?? 'none') === predicted,
    );
    expect(want.length).toBe(count);
    // The case list now says whether the attribution agrees with each label.
    await page.goto(`${url}#/cases?labelled=labelled`);
    await page.getByTestId('case-agrees').first().waitFor();
    expect(await page.getByTestId('case-agrees').first().innerText()).toMatch(
      /agrees|type only|disagrees|not attributed/,
    );
  });
});

describe('import (item 8)', () => {
  it('names files that are not JSON, does not show kept files as problems, and shows the storage used', async () => {
    const { page, url } = s;
    const notes = join(tmp, 'notes.txt');
    writeFileSync(notes, 'not a trace');
    await page.goto(`${url}#/`);
    await page.setInputFiles('[data-testid=file-input]', [notes, join(DATA, SIX[0])]);
    await page.getByTestId('import-skipped').waitFor();
    expect(await page.getByTestId('import-skipped').innerText()).toContain('notes.txt');
    // The JSON file is already stored: asked, kept, and not a red problem.
    await page.getByRole('button', { name: 'Keep the stored one' }).click();
    const tag = page.locator('[data-testid=import-result] [data-status=exists]');
    await tag.waitFor({ state: 'attached' });
    expect(await tag.getAttribute('class')).not.toContain('bad');
    expect(await page.getByTestId('import-panel').locator('.tag.bad').count()).toBe(0);
    const note = page.getByTestId('storage-note');
    await note.waitFor();
    expect(await page.getByTestId('storage-used').innerText()).toMatch(/\d+(\.\d)? (B|KB|MB|GB)/);
    expect(await page.getByTestId('storage-persisted').innerText()).toMatch(/persist/);
  });
});

describe('keyboard (item 9)', () => {
  it('/ focuses search; no single-letter key fires while typing; the help lists every key', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    // Typing t, c and ? in a field stays in the field.
    await page.getByTestId('case-filter').click();
    await page.keyboard.type('tc?');
    expect(await page.evaluate(() => location.hash)).toMatch(/^#\/cases/);
    expect(await page.getByTestId('case-filter').inputValue()).toBe('tc?');
    expect(await page.getByTestId('help-dialog').count()).toBe(0);
    await page.getByTestId('case-filter').fill('');
    await page.locator('h1').click();
    await page.keyboard.press('/');
    await page.waitForFunction(() => document.activeElement?.id === 'search-box');
    await page.keyboard.type('t');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('t');
    await page.locator('h1').click();
    await page.keyboard.press('?');
    const help = await page.getByTestId('help-dialog').innerText();
    for (const key of ['/', 't', 'c', '?', 'j', 'k', '[', ']', '+', '-', '0', 'Enter', 'Esc', '←', '→'])
      expect(help).toContain(key);
    expect(help).toMatch(/Lane view/);
    expect(help).toMatch(/Neighbourhood/);
  });
});
