/**
 * Compare explains itself (issue 24, item 2): the first divergence is named — op name, kind,
 * step, session — in the list and the question's detail, with what differs: the parameter
 * (`top_k` of a Mem0 rerun with a shallower search), the prompt (a run whose fact-extraction
 * prompt was rewritten) and the output's line diff. Runs: the project's demo conversation;
 * expectations read from the raw files in Node.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { appPerFile } from './app-per-file.ts';
import { importTraces } from './harness.ts';
import { tempDir, writeDemoRun } from './project-data.ts';

interface RawDoc {
  graph_id: string;
  data: {
    sessions: { session_id: string; session_name: string }[];
    nodes: { full_node_id: string; name: string; value: string; category: string }[];
    operations: {
      op_id: string;
      op_name: string;
      category: string;
      session_id: string;
      created_at: string;
    }[];
    edges: { op_id: string; source_full_node_id: string; target_full_node_id: string }[];
  };
}

const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as RawDoc;
/** An op as the raw file says: name, kind, step (created_at order, file order on ties), session name. */
function rawOp(doc: RawDoc, id: string) {
  const ops = doc.data.operations.map((o, i) => ({ o, i }));
  ops.sort((x, y) =>
    x.o.created_at < y.o.created_at ? -1 : x.o.created_at > y.o.created_at ? 1 : x.i - y.i,
  );
  const k = ops.findIndex((x) => x.o.op_id === id);
  const o = ops[k].o;
  const session = doc.data.sessions.find((x) => x.session_id === o.session_id)?.session_name ?? o.session_id;
  return { name: o.op_name, category: o.category, step: k + 1, session };
}
const outputsOf = (doc: RawDoc, op: string) => {
  const es = doc.data.edges.filter((e) => e.op_id === op);
  const src = new Set(es.map((e) => e.source_full_node_id));
  return [...new Set(es.map((e) => e.target_full_node_id))].filter((v) => !src.has(v));
};

const tmp = tempDir();
let base: string;
let shallow: string;
let reprompted: string;
/** The fact-extraction op whose output the rewritten prompt changed, and the added words. */
const ADDED = 'and the colour of the bicycle';
let changedOp: string;
const s = appPerFile();

beforeAll(async () => {
  base = await writeDemoRun(tmp.dir, 'mem0', { topK: 10 });
  shallow = await writeDemoRun(tmp.dir, 'mem0', { topK: 2 });
  // The same run with the fact-extraction prompt rewritten and, as its model would, one
  // extraction's output changed: the first fact-extraction op that wrote any facts.
  const doc = read(base);
  const prompt = doc.data.nodes.find((n) => n.name === 'fact-extraction-system-prompt')!;
  prompt.value = `'Extract every fact, with dates and places.'`;
  // The extraction of a question's evidence message (so the question's path runs through it).
  const opened = openTrace(readFileSync(base, 'utf8'), { file: base });
  if (!opened.ok) throw new Error('the base run does not open');
  const evidence = new Set(listCases(opened.graph, { includePassed: true }).flatMap((c) => c.evidenceIds));
  const reads = (op: string) =>
    doc.data.edges.some((e) => e.op_id === op && evidence.has(e.source_full_node_id));
  const first = doc.data.operations
    .filter((o) => o.op_name === 'fact-extraction' && reads(o.op_id))
    .find((o) =>
      outputsOf(doc, o.op_id).some((v) => doc.data.nodes.find((n) => n.full_node_id === v)!.value.length > 4),
    )!;
  changedOp = first.op_id;
  const out = doc.data.nodes.find((n) => n.full_node_id === outputsOf(doc, first.op_id)[0])!;
  out.value = out.value.replace(/'\]$/, ` ${ADDED}']`);
  doc.graph_id = `${doc.graph_id}-reprompted`;
  for (const list of Object.values(doc.data) as unknown[])
    if (Array.isArray(list))
      for (const r of list as { graph_id?: string }[]) if (r.graph_id) r.graph_id = doc.graph_id;
  reprompted = join(tmp.dir, 'mem0-demo-1-reprompted.json');
  writeFileSync(reprompted, JSON.stringify(doc, null, 2));
}, 120_000);
afterAll(() => tmp.remove());

const link = (a: string, b: string) =>
  `#/compare?a=${encodeURIComponent(read(a).graph_id)}&b=${encodeURIComponent(read(b).graph_id)}&show=all`;

describe('Compare explains the first divergence', () => {
  it('names the op and shows the parameter and the output that differ (top_k 10 vs 2)', async () => {
    const { page, url } = s;
    await importTraces(page, [base, shallow, reprompted]);
    await page.goto(url + link(base, shallow));
    await page.getByTestId('compare-summary').waitFor({ timeout: 60_000 });
    const row = page.locator('[data-testid=compare-row][data-change=broken]').first();
    await row.waitFor();
    const cell = await row.getByTestId('compare-divergence').innerText();
    await row.getByTestId('compare-open').click();
    const detail = page.getByTestId('compare-detail');
    const a = read(base);
    const b = read(shallow);
    const opA = decodeURIComponent(
      /[?&]op=([^&]+)/.exec((await detail.getByTestId('divergence-link-a').getAttribute('href'))!)![1],
    );
    const op = rawOp(a, opA);
    for (const text of [cell, await detail.getByTestId('divergence-op-a').innerText()]) {
      expect(text).toContain(op.name);
      expect(text).toContain(op.category);
      expect(text).toContain(`step ${op.step}`);
      expect(text).toContain(op.session);
    }
    expect(cell).toContain('top_k');
    // The parameter, with both values as the files' op metadata say.
    const meta = (doc: RawDoc, id: string) =>
      (doc.data.operations.find((o) => o.op_id === id) as unknown as { metadata: { top_k: number } }).metadata
        .top_k;
    const opB = decodeURIComponent(
      /[?&]op=([^&]+)/.exec((await detail.getByTestId('divergence-link-b').getAttribute('href'))!)![1],
    );
    const param = detail.locator('[data-testid=divergence-difference][data-part=parameter][data-name=top_k]');
    const paramText = await param.innerText();
    expect(paramText).toContain(`${meta(a, opA)} in A`);
    expect(paramText).toContain(`${meta(b, opB)} in B`);
    // The output's diff: each removed line is a memory A's search returned and B's did not.
    const outputText = (doc: RawDoc, id: string) =>
      outputsOf(doc, id)
        .map((v) => doc.data.nodes.find((n) => n.full_node_id === v)!.value)
        .join('\n');
    const output = detail.locator('[data-testid=divergence-difference][data-part=output]');
    const removed = await output.locator('.del').allInnerTexts();
    const plain = removed
      .map((l) =>
        l
          .replace(/^-\s*/, '')
          .trim()
          .replace(/^"|",?$/g, ''),
      )
      .filter((l) => l && !/['\\]/.test(l));
    expect(plain.length).toBeGreaterThan(0);
    for (const l of plain) {
      expect(outputText(a, opA)).toContain(l);
      expect(outputText(b, opB)).not.toContain(l);
    }
  });

  it('names the prompt that differs and shows the output it changed', async () => {
    const { page, url } = s;
    await page.goto(url + link(base, reprompted));
    await page.getByTestId('compare-summary').waitFor({ timeout: 60_000 });
    const rows = page.getByTestId('compare-row');
    await rows.first().waitFor();
    const op = rawOp(read(base), changedOp);
    const cells = await page.getByTestId('compare-divergence').allInnerTexts();
    const hit = cells.findIndex((c) => c.includes('fact-extraction-system-prompt'));
    expect(hit).toBeGreaterThanOrEqual(0);
    expect(cells[hit]).toContain(`${op.name}`);
    expect(cells[hit]).toContain(`step ${op.step}`);
    expect(cells[hit]).toContain(op.session);
    await rows.nth(hit).getByTestId('compare-open').click();
    const detail = page.getByTestId('compare-detail');
    await detail
      .locator(
        '[data-testid=divergence-difference][data-part=prompt][data-name=fact-extraction-system-prompt]',
      )
      .waitFor();
    const added = await detail
      .locator('[data-testid=divergence-difference][data-part=output] .add')
      .allInnerTexts();
    expect(added.join('\n')).toContain(ADDED);
    expect(s.errors).toEqual([]);
  });
});
