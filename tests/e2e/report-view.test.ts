/**
 * The Report view in Debian's Chromium: import the six real smartcomment files, build the
 * report in the analysis worker (evidence-flow) — a first build cancelled part-way stores
 * no report — compare its counts with the same report
 * computed here in Node, follow an exemplar to its case workspace, import the paper's
 * results file written by `memtrace attribute --format memtrace` and build from it, and
 * export the self-contained HTML; then a report over one trace chosen in the view (kept in
 * the URL, so a reload keeps it) counts only that file's cases, all from verdicts held.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { buildReport, type ErrorReport, reportCase } from '../../src/core/report/index.ts';
import { corpusFromGraph, RetrievalIndex } from '../../src/core/retrieval/index.ts';
import { vectorSimilarity } from '../../src/core/semantic/index.ts';
import { loadWordVectors } from '../../src/core/semantic/word-vectors.node.ts';
import { ERROR_TYPES, parseTraceText } from '../../src/core/trace/index.ts';
import { runCli } from '../helpers/cli.ts';
import { cancelWhen, DATA, importTraces, openApp, type Session, SIX } from './harness.ts';

let s: Session;
let expected: ErrorReport;
/** Each file's report cases (failed or labelled questions), read here from the file. */
const perFile = new Map<string, number>();

async function nodeReport(): Promise<ErrorReport> {
  const similar = vectorSimilarity(loadWordVectors());
  const cases = [];
  for (const f of SIX) {
    const parsed = parseTraceText(readFileSync(join(DATA, f), 'utf8'), { file: f });
    if (!parsed.ok) throw new Error(f);
    const g = buildGraph(parsed.doc);
    // The worker's matcher: word vectors (the attributor reads meaning with them).
    const deps = {
      index: await RetrievalIndex.build(corpusFromGraph(g, 'messages')),
      evidenceFlow: { layer: 'vectors' as const, similar },
    };
    const mine = listCases(g).filter((x) => x.failed || x.label);
    perFile.set(f, mine.length);
    for (const c of mine) cases.push(reportCase(g, c, await evidenceFlowEngine({ graph: g, case: c }, deps)));
  }
  return buildReport(cases);
}

beforeAll(async () => {
  [s, expected] = await Promise.all([openApp(), nodeReport()]);
}, 240_000);
afterAll(async () => {
  await s?.close();
});

describe('Report view in Chromium', () => {
  it('a build cancelled once its first case is done stops in the worker, says so and stores no report', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await importTraces(
      page,
      SIX.map((f) => join(DATA, f)),
    );
    await page.getByTestId('nav-report').click();
    await page.getByTestId('report-empty').waitFor();
    await cancelWhen(page, 'report-progress', '^[1-9]\\d* /', 'report-cancel');
    await page.getByTestId('report-build').click();
    await page.getByTestId('report-notice').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('report-notice').innerText()).toMatch(
      /^Cancelled after [1-9]\d* of \d+ cases; no report of it is shown, the previous report is kept\./,
    );
    expect(await page.getByTestId('report-empty').count()).toBe(1);
    await page.reload();
    await page.getByTestId('report-empty').waitFor();
    expect(s.errors).toEqual([]);
  }, 120_000);

  it('builds the report in the worker with the counts Node computes, links cases, imports paper results, exports HTML', async () => {
    const { page } = s;
    await page.getByTestId('report-empty').waitFor();
    await page.getByTestId('report-build').click();
    await page.getByTestId('report-cases').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('report-cases').innerText()).toBe(`${expected.cases} failed case(s)`);
    // The prompt table: one row per prompt, counts as Node's.
    const rows = await page.locator('[data-testid=report-prompts] tbody tr').allInnerTexts();
    expect(rows).toHaveLength(expected.by_prompt.length);
    for (const p of expected.by_prompt) {
      const row = rows.find((r) => r.startsWith(p.prompt ?? 'not optimisable'));
      expect(row?.split('\t').slice(3).map(Number)).toEqual(ERROR_TYPES.map((t) => p.by_error_type[t]));
    }
    expect(await page.locator('[data-testid=report-cluster]').count()).toBe(expected.clusters.length);
    expect(await page.locator('[data-testid=chart-types] rect').count()).toBe(ERROR_TYPES.length);

    // An exemplar opens its case workspace.
    const link = page.getByTestId('report-case-link').first();
    const target = (await link.getAttribute('href')) ?? '';
    expect(target).toMatch(/^#\/t\/[^/]+\/case\//);

    // Export: the self-contained HTML, as the CLI writes it.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-html').click(),
    ]);
    const html = readFileSync((await download.path())!, 'utf8');
    expect(html).toContain(`${expected.cases} failed case(s)`);
    expect(html).not.toMatch(/<script/i);

    await link.click();
    await page.waitForFunction((h) => location.hash === h, target);

    // The paper's results of one file, imported as a run and used as the report's attributions.
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-report-e2e-'));
    const { code, stdout: out } = await runCli(['attribute', join(DATA, SIX[2]), '--format', 'memtrace']);
    expect(code).toBe(0);
    const results = JSON.parse(out);
    writeFileSync(join(dir, 'results.json'), out);
    await page.getByTestId('nav-report').click();
    await page.setInputFiles('[data-testid=report-import]', join(dir, 'results.json'));
    await page.getByTestId('report-notice').waitFor();
    expect(await page.getByTestId('report-notice').innerText()).toContain(
      `${results.results.length} record(s) matched`,
    );
    await page.getByTestId('report-build').click();
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=report-cases]')?.textContent === `${n} failed case(s)`,
      results.results.length,
      { timeout: 60_000 },
    );
    expect(s.errors).toEqual([]);
    // Its waits allow 120 s for the build (every case attributed) and 60 s more: a loaded machine needs them.
  }, 240_000);

  it('a report over one chosen trace (kept in the URL) counts only its cases and reuses the verdicts held', async () => {
    const { page } = s;
    await page.getByTestId('report-source').selectOption('evidence');
    const file = SIX[SIX.length - 1];
    const id = await page
      .locator('label.trace', { hasText: file })
      .getByTestId('report-trace')
      .getAttribute('data-trace');
    expect(id).toBeTruthy();
    // Keep only this trace: untick every other one (the selection goes into the URL).
    await page.getByTestId('report-cover').locator('summary').click();
    for (const other of await page.getByTestId('report-trace').all())
      if ((await other.getAttribute('data-trace')) !== id) await other.uncheck();
    const hash = await page.evaluate(() => location.hash);
    expect(hash.split('?')[0]).toBe('#/report');
    expect(new URLSearchParams(hash.split('?')[1]).get('traces')).toBe(id);
    await page.reload();
    expect(await page.getByTestId('report-cover-traces').innerText()).toBe('1');
    const before = await page.getByTestId('report-summary').getAttribute('data-report-id');
    await page.getByTestId('report-build').click();
    await page.waitForFunction(
      (b) => {
        const el = document.querySelector('[data-testid=report-summary]');
        return el && el.getAttribute('data-report-id') !== b;
      },
      before,
      { timeout: 60_000 },
    );
    const n = perFile.get(file)!;
    expect(await page.getByTestId('report-cases').innerText()).toBe(`${n} failed case(s)`);
    // The full build before attributed (and stored) every case: this one attributes none.
    expect(await page.getByTestId('report-verdicts').innerText()).toBe(
      `${n} held, 0 attributed now, 0 from labels`,
    );
    expect(s.errors).toEqual([]);
  });
});
