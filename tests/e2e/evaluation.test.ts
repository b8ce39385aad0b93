/**
 * The evaluation view and the case workspace's attribution panel in Debian's Chromium:
 * import the six real smartcomment files, run the evaluation (evidence-flow in the
 * analysis worker), compare every number shown with `summarize` computed here in Node
 * from the same files by the same core, reload, then correct and accept attributions
 * in the case workspace and check the labels persist and count in the next evaluation;
 * last, Cancel stops a running evaluation part-way and the stored run says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percent } from '../../src/app/lib/format.ts';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { type BenchSummary, type ScoredCase, summarize } from '../../src/core/bench/index.ts';
import { listCases, systemOf } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { corpusFromGraph, RetrievalIndex } from '../../src/core/retrieval/index.ts';
import { vectorSimilarity } from '../../src/core/semantic/index.ts';
import { loadWordVectors } from '../../src/core/semantic/word-vectors.node.ts';
import { ERROR_TYPES, parseTraceText } from '../../src/core/trace/index.ts';
import { cancelWhen, DATA, importTraces, openApp, type Session, SIX } from './harness.ts';

type NodeCase = ScoredCase & { traceId: string; queryId: string; question: string };

let s: Session;
let cases: NodeCase[];

/** The files the app stores (the demo trace is not preloaded in this test). */
const files = SIX.map((f) => ({ file: join(DATA, f), path: f }));

const similar = vectorSimilarity(loadWordVectors());

/** The evaluation computed in Node: every labelled case of the stored files, as the CLI's bench. */
async function nodeCases(): Promise<NodeCase[]> {
  const out: NodeCase[] = [];
  for (const { file, path: f } of files) {
    const parsed = parseTraceText(readFileSync(file, 'utf8'), { file: f });
    if (!parsed.ok) throw new Error(`${f} does not parse`);
    const g = buildGraph(parsed.doc);
    const system = systemOf(parsed.doc, f);
    // The app's matcher: word vectors (the CLI's default), loaded by the analysis worker.
    const deps = {
      index: await RetrievalIndex.build(corpusFromGraph(g, 'messages')),
      evidenceFlow: { layer: 'vectors' as const, similar },
    };
    for (const c of listCases(g).filter((x) => x.label)) {
      const a = await evidenceFlowEngine({ graph: g, case: c, system }, deps);
      out.push({
        traceId: parsed.doc.graph_id,
        queryId: c.queryId,
        question: c.question,
        system,
        label_type: c.label!.errorType,
        label_op: c.label!.opId,
        predicted_type: a.error_type,
        predicted_op: a.op_id,
        input_tokens: a.cost.input_tokens,
        output_tokens: a.cost.output_tokens,
        seconds: a.cost.seconds,
      });
    }
  }
  return out;
}

beforeAll(async () => {
  [s, cases] = await Promise.all([openApp(), nodeCases()]);
}, 240_000);
afterAll(async () => {
  await s?.close();
});

const text = (testid: string, within = s.page.locator('body')) => within.getByTestId(testid).innerText();

async function runEvaluation() {
  const { page } = s;
  await page.goto(`${s.url}#/eval`);
  await page.getByTestId('eval-run').waitFor();
  const before = await page.evaluate(
    () => document.querySelector('[data-testid=eval-status]')?.getAttribute('data-run') ?? '',
  );
  await page.getByTestId('eval-run').click();
  await page
    .locator(`[data-testid=eval-status][data-status=done]:not([data-run="${before}"])`)
    .waitFor({ timeout: 120_000 });
}

/** The Node case a link of the evaluation view points at (`#/t/<trace>/case/<query>?op=…`). */
function caseOfLink(link: string): NodeCase {
  const m = /^#\/t\/([^/]+)\/case\/([^?]+)/.exec(link);
  const c =
    m && cases.find((x) => x.traceId === decodeURIComponent(m[1]) && x.queryId === decodeURIComponent(m[2]));
  if (!c) throw new Error(`no labelled case behind ${link}`);
  return c;
}
let opened: NodeCase;
let openedLink: string;

/** Every number of the view equals the Node summary. */
async function expectShown(summary: BenchSummary) {
  const { page } = s;
  expect(await text('metric-total')).toBe(String(summary.total_cases));
  expect(await text('metric-eta')).toBe(percent(summary.error_type_accuracy));
  expect(await text('metric-oia')).toBe(percent(summary.op_id_accuracy));
  expect(await text('metric-macro-eta')).toBe(percent(summary.macro_error_type_accuracy));
  expect(await text('metric-macro-oia')).toBe(percent(summary.macro_op_id_accuracy));
  expect(await text('metric-tokens')).toBe(
    `${summary.avg_input_tokens.toFixed(0)} in / ${summary.avg_output_tokens.toFixed(0)} out tokens`,
  );
  for (const [panel, groups] of [
    ['by-system', summary.by_system],
    ['by-error-type', summary.by_error_type],
  ] as const) {
    const rows = page.getByTestId(panel).getByTestId('acc-row');
    expect(await rows.count()).toBe(Object.keys(groups).length);
    for (const [key, a] of Object.entries(groups)) {
      const row = page.getByTestId(panel).locator(`[data-testid=acc-row][data-key="${key}"]`);
      expect(await text('acc-total', row)).toBe(String(a.total));
      expect(await text('acc-eta', row)).toBe(percent(a.error_type_accuracy));
      expect(await text('acc-oia', row)).toBe(percent(a.op_id_accuracy));
    }
    // the d3 chart has one labelled group per row
    const chart = await page.getByTestId(panel).locator('svg').innerHTML();
    for (const [key, a] of Object.entries(groups)) expect(chart).toContain(`${key} (${a.total})`);
  }
  // confusion matrix: one cell per (label, predicted) pair with its count as text
  const labels = ERROR_TYPES.filter((t) => summary.confusion[t]);
  const cells = page.getByTestId('confusion').locator('[data-testid=confusion-cell]');
  const shown = await cells.evaluateAll((els) =>
    els.map((e) => ({
      label: e.getAttribute('data-label'),
      predicted: e.getAttribute('data-predicted'),
      text: e.textContent,
    })),
  );
  const predictedCols = [...new Set(shown.map((c) => c.predicted))];
  expect(predictedCols).toEqual(expect.arrayContaining([...ERROR_TYPES]));
  expect(shown.length).toBe(labels.length * predictedCols.length);
  for (const c of shown) {
    const want = summary.confusion[c.label!]?.[c.predicted!] ?? 0;
    expect(c.text?.startsWith(String(want)), `${c.label} → ${c.predicted}`).toBe(true);
  }
  const total = Object.values(summary.confusion).reduce(
    (n, r) => n + Object.values(r).reduce((a, b) => a + b, 0),
    0,
  );
  expect(shown.reduce((n, c) => n + Number.parseInt(c.text ?? '0', 10), 0)).toBe(total);
  expect(await page.getByTestId('eval-case').count()).toBe(summary.total_cases);
  expect(await page.getByTestId('cost').locator('rect').count()).toBe(summary.total_cases);
}

describe('evaluation in Chromium', () => {
  it('imports the six files, runs the evaluation and shows what summarize gives in Node', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await importTraces(
      page,
      files.map((f) => f.file),
    );
    expect(cases.length).toBeGreaterThan(0);
    await runEvaluation();
    await expectShown(summarize(cases));
    // every case row links to its workspace with the op Node predicted for that case
    const links = await page
      .getByTestId('eval-case-link')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(links.length).toBe(cases.length);
    for (const l of links) {
      const op = caseOfLink(l).predicted_op;
      if (op) expect(l.endsWith(`?op=${encodeURIComponent(op)}`), l).toBe(true);
      else expect(l, 'no predicted op: a plain link to the case').not.toContain('?op=');
    }
    expect(new Set(links.map((l) => caseOfLink(l))).size).toBe(cases.length);
    openedLink = links.find((l) => caseOfLink(l).predicted_op)!;
    opened = caseOfLink(openedLink);
  });

  it('keeps the results after a reload', async () => {
    const { page } = s;
    await page.reload();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor();
    await expectShown(summarize(cases));
  });

  it('a case opened from the evaluation shows the attribution with the predicted op highlighted', async () => {
    const { page } = s;
    const first = opened;
    await page.locator(`[data-testid=eval-case-link][href="${openedLink}"]`).click();
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-type').waitFor({ timeout: 30_000 });
    expect(await panel.getByTestId('attribution-type').innerText()).toBe(
      first.predicted_type ?? 'no decisive memory error',
    );
    expect(await panel.getByTestId('attribution-op').locator('a').getAttribute('href')).toContain(
      encodeURIComponent(first.predicted_op!),
    );
    expect((await panel.getByTestId('attribution-reason').innerText()).length).toBeGreaterThan(0);
    const current = page.locator('[data-testid=case-path] [aria-current=true]');
    expect(await current.getAttribute('title')).toBe(first.predicted_op);
    await page.getByTestId('op-inspector').waitFor();
    expect(await page.getByTestId('op-inspector').innerText()).toContain(first.predicted_op!);
  });

  it("correcting stores a person's label next to the file's, kept after a reload; Evaluation scores against the file's label unless the person's source is chosen", async () => {
    const { page } = s;
    const target = opened;
    const newType = ERROR_TYPES.find((t) => t !== target.label_type)!;
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-correct').click();
    await panel.getByTestId('correct-type').selectOption(newType);
    const opValues = await panel
      .getByTestId('correct-op')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const newOp = opValues.find((v) => v !== target.label_op)!;
    await panel.getByTestId('correct-op').selectOption(newOp);
    await panel.getByTestId('correct-note').fill('the memory write <b>lost</b> it');
    await panel.getByTestId('correct-save').click();
    const mine = page.locator('[data-testid=label-record][data-origin=workbench]');
    await mine.first().waitFor();
    await page.reload();
    await mine.first().waitFor();
    // the file's label is still the case's label; the person's is its own record beside it
    expect(await page.getByTestId('case-label').innerText()).toBe(target.label_type);
    expect(await mine.count()).toBe(1);
    expect(await mine.getAttribute('data-type')).toBe(newType);
    expect(await mine.getAttribute('data-source')).toBe('person');
    expect(await mine.innerText()).toContain('the memory write <b>lost</b> it');
    const fileLabel = page.locator('[data-testid=label-record][data-origin=file]');
    expect(await fileLabel.getAttribute('data-type')).toBe(target.label_type);
    const stored = await page.evaluate(
      () =>
        new Promise<unknown[]>((resolve, reject) => {
          const open = indexedDB.open('memtrace-workbench');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const req = open.result.transaction('labels').objectStore('labels').getAll();
            req.onsuccess = () =>
              resolve(req.result.filter((r: { origin: string }) => r.origin === 'workbench'));
            req.onerror = () => reject(req.error);
          };
        }),
    );
    expect(stored).toEqual([
      expect.objectContaining({
        graphId: target.traceId,
        queryId: target.queryId,
        errorType: newType,
        opId: newOp,
        source: 'person',
        decision: 'corrected',
        context: expect.objectContaining({ query: target.question, golden_answers: expect.any(Array) }),
      }),
    ]);
    // the case list still filters by the file's label
    await page.goto(`${s.url}#/cases?labelled=labelled&label=${target.label_type}`);
    await page.getByTestId('case-row').first().waitFor();
    expect(await page.getByTestId('case-table').innerText()).toContain(target.question.slice(0, 40));
    // the next evaluation scores against the file's labels by default…
    await runEvaluation();
    await expectShown(summarize(cases));
    // …and against the person's label when that source is chosen
    await page.getByTestId('label-source').selectOption('source:person');
    await page.getByTestId('eval-run').waitFor();
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 120_000 });
    await page.waitForFunction(
      () => document.querySelector('[data-testid=metric-total]')?.textContent === '1',
    );
    await expectShown(summarize([{ ...target, label_type: newType, label_op: newOp }]));
  });

  it('accepting stores the attribution as a label record of its own', async () => {
    const { page } = s;
    // An uncertain verdict offers its candidates, not "Accept as label": take a certain one.
    const target = cases.find((c) => c !== opened && c.predicted_type && c.predicted_op && !c.uncertain)!;
    await page.goto(
      `${s.url}#/t/${encodeURIComponent(target.traceId)}/case/${encodeURIComponent(target.queryId)}`,
    );
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-type').waitFor({ timeout: 30_000 });
    await panel.getByTestId('attribution-accept').click();
    const mine = page.locator('[data-testid=label-record][data-origin=workbench]');
    await mine.first().waitFor();
    await page.reload();
    await mine.first().waitFor();
    expect(await page.getByTestId('case-label').innerText()).toBe(target.label_type);
    expect(await mine.getAttribute('data-type')).toBe(target.predicted_type);
    expect(await mine.getAttribute('data-op')).toBe(target.predicted_op);
    expect(await mine.innerText()).toContain('accepted');
    expect(s.errors).toEqual([]);
  });

  it('Cancel stops a running evaluation in the worker: the run says cancelled and holds only the cases done', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/eval`);
    await page.getByTestId('eval-run').waitFor();
    await cancelWhen(page, 'eval-progress-text', '^[1-9]\\d* /', 'eval-cancel');
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=cancelled]').waitFor({ timeout: 120_000 });
    expect(await text('eval-status')).toContain('cancelled: the cases done before cancelling');
    const done = Number(await text('metric-total'));
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(cases.length);
    // still cancelled after a reload: the stored run is the cancelled one
    await page.reload();
    await page.locator('[data-testid=eval-status][data-status=cancelled]').waitFor();
    expect(s.errors).toEqual([]);
  });
});
