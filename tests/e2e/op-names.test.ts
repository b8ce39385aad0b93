/**
 * Ops are shown by name, kind, step and session, the id on hover and copyable (issue 24,
 * item 1): the attribution panel names an attributed op that lies outside the 200 path ops
 * nearest the answer; "Correct…" finds any op of the trace by search and refuses an op whose
 * kind cannot cause the chosen type; the case path shows each op's session; the evaluation's
 * confusion cells list their cases' ops by name. Names, kinds, steps and sessions are read
 * from the raw files in Node (steps: the ops sorted by created_at, file order breaking ties).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { casePath, listCases, type TraceCase } from '../../src/core/cases/index.ts';
import { openTrace, type TraceGraph } from '../../src/core/graph/index.ts';
import { vectorSimilarity } from '../../src/core/semantic/index.ts';
import { loadWordVectors } from '../../src/core/semantic/word-vectors.node.ts';
import { depsOf } from '../../workers/evaluation.ts';
import { DATA, importTraces, openApp, type Session } from './harness.ts';
import { writeConv26Run } from './long-context-trace.ts';
import { tempDir } from './project-data.ts';

interface RawOp {
  op_id: string;
  op_name: string;
  category: string;
  session_id: string;
  created_at: string;
  comment: string | null;
}

/** The raw file's ops by id, with their step and session name, read without the workbench's code. */
function rawOps(path: string) {
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  const ops = doc.data.operations as RawOp[];
  const order = ops
    .map((o, i) => ({ o, i }))
    .sort((x, y) => (x.o.created_at < y.o.created_at ? -1 : x.o.created_at > y.o.created_at ? 1 : x.i - y.i));
  const step = new Map(order.map((x, k) => [x.o.op_id, k + 1]));
  const session = new Map(
    (doc.data.sessions as { session_id: string; session_name: string }[]).map((s) => [
      s.session_id,
      s.session_name,
    ]),
  );
  return new Map(
    ops.map((o) => [
      o.op_id,
      { ...o, step: step.get(o.op_id)!, session: session.get(o.session_id) ?? o.session_id },
    ]),
  );
}

const FAULT = join(DATA, 'conv-26-fault-0.json');
const tmp = tempDir();
let s: Session;
let mem0: string;
let g: TraceGraph;
let ops: ReturnType<typeof rawOps>;
/** A failed case whose evidence-flow op lies outside the 200 path ops nearest the answer. */
let far: { c: TraceCase; path: number[] };
const caseLink = (traceId: string, queryId: string) =>
  `#/t/${encodeURIComponent(traceId)}/case/${encodeURIComponent(queryId)}`;

beforeAll(async () => {
  mem0 = (await writeConv26Run(tmp.dir, 'mem0', 8)).path;
  const r = openTrace(readFileSync(mem0, 'utf8'), { file: mem0 });
  if (!r.ok) throw new Error('the mem0 run does not open');
  g = r.graph;
  ops = rawOps(mem0);
  const similar = vectorSimilarity(loadWordVectors());
  for (const c of listCases(g)) {
    const path = casePath(g, c).ops;
    if (path.length <= 200) continue;
    const deps = await depsOf(g);
    deps.evidenceFlow = { layer: 'vectors', similar, now: () => performance.now() };
    const a = await evidenceFlowEngine({ graph: g, case: c, system: null }, deps);
    const o = a.op_id ? g.opIndex.get(a.op_id) : undefined;
    if (o !== undefined && path.indexOf(o) < path.length - 200) {
      far = { c, path };
      break;
    }
  }
  if (!far) throw new Error('no case attributed outside the 200 nearest path ops');
  s = await openApp();
  await s.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await importTraces(s.page, [mem0, FAULT], 2, 120_000);
}, 400_000);
afterAll(async () => {
  await s?.close();
  tmp.remove();
});

/** The text an op should be shown with: its name, kind, step and session (from the raw file). */
function expectNamed(text: string, id: string, raw = ops) {
  const o = raw.get(id)!;
  expect(text).toContain(o.op_name);
  expect(text).toContain(o.category);
  expect(text).toContain(`step ${o.step}`);
  expect(text).toContain(o.session);
}

describe('ops by name (item 1)', () => {
  it('the attribution panel names an attributed op outside the 200 nearest path ops; its id is on hover and copyable', async () => {
    const { page, url } = s;
    await page.goto(url + caseLink(g.doc.graph_id, far.c.queryId));
    const op = page.getByTestId('attribution').getByTestId('attribution-op');
    await op.waitFor({ timeout: 120_000 });
    const id = (await op.getAttribute('data-op-id'))!;
    await page.locator('[data-testid=case-path]:not([data-stale])').waitFor();
    const shown = await page
      .getByTestId('case-path')
      .locator('a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('title')));
    expect(shown.length).toBe(200);
    expect(shown).not.toContain(id);
    await expect.poll(() => op.innerText()).toContain(ops.get(id)!.op_name);
    expectNamed(await op.innerText(), id);
    expect(await op.locator('a').getAttribute('title')).toBe(id);
    await op.getByTestId('op-copy').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
  });

  it('"Correct…" finds any op of the trace and refuses one whose kind cannot cause the type', async () => {
    const { page } = s;
    const onPath = new Set(far.path.map((o) => g.opId[o]));
    const raw = [...ops.values()];
    // A later question's answer op (not on this case's path) and an extraction op.
    const answer = raw.filter((o) => o.op_name === 'question-answering' && !onPath.has(o.op_id)).at(-1)!;
    const extraction = raw.find((o) => o.category === 'extraction')!;
    const panel = page.getByTestId('attribution');
    const records = page.getByTestId('label-record');
    const before = await records.count();
    await panel.getByTestId('attribution-correct').click();
    const find = async (id: string) => {
      await panel.getByTestId('correct-find-input').fill(id);
      const match = panel.locator(`[data-testid=correct-find-match][data-op-id="${id}"]`);
      await match.waitFor();
      expectNamed(await match.innerText(), id);
      await match.getByTestId('correct-find-pick').click();
      await expect.poll(() => panel.getByTestId('correct-op').inputValue()).toBe(id);
    };
    // Refused: RetrievalError at an extraction op.
    await find(extraction.op_id);
    await panel.getByTestId('correct-type').selectOption('RetrievalError');
    await panel.getByTestId('correct-refusal').waitFor();
    expect(await panel.getByTestId('correct-refusal').innerText()).toContain('extraction');
    expect(await panel.getByTestId('correct-save').isDisabled()).toBe(true);
    // Allowed: ResponseError at an answer op found by search, far from this case's path.
    await find(answer.op_id);
    await panel.getByTestId('correct-type').selectOption('ResponseError');
    expect(await panel.getByTestId('correct-refusal').count()).toBe(0);
    await panel.getByTestId('correct-note').fill('the later answer');
    await panel.getByTestId('correct-save').click();
    await expect.poll(() => records.count()).toBe(before + 1);
    const saved = page.locator(`[data-testid=label-record][data-op="${answer.op_id}"]`);
    expect(await saved.getAttribute('data-type')).toBe('ResponseError');
    await expect.poll(() => saved.getByTestId('label-op').innerText()).toContain(answer.op_name);
    expectNamed(await saved.getByTestId('label-op').innerText(), answer.op_id);
  });

  it('the case path shows each op with its session; confusion cells list their ops by name', async () => {
    const { page, url } = s;
    const first = page.getByTestId('case-path').locator('a').first();
    const id = (await first.getAttribute('title'))!;
    expect(await first.innerText()).toContain(ops.get(id)!.session);

    const fault = rawOps(FAULT);
    const doc = JSON.parse(readFileSync(FAULT, 'utf8'));
    await page.goto(`${url}#/eval`);
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 180_000 });
    const type = doc.data.annotations[0].final_error_type as string;
    await page.goto(`${url}#/eval?cell=${encodeURIComponent(`${type}|${type}`)}`);
    const cells = page.getByTestId('eval-label-op').getByTestId('op-ref');
    await cells.first().waitFor();
    expect(await cells.count()).toBeGreaterThan(0);
    for (const cell of await cells.all()) {
      const opId = (await cell.getAttribute('data-op-id'))!;
      await expect.poll(() => cell.innerText()).toContain(fault.get(opId)!.op_name);
      expectNamed(await cell.innerText(), opId, fault);
    }
    expect(s.errors).toEqual([]);
  }, 240_000);
});
