/**
 * An annotations file of 130k labels (a team's whole labelling, more than a call's argument
 * list holds) is read by `memtrace agreement` and `memtrace bench --labels` like any other:
 * no RangeError from spreading the labels onto the stack.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const LABELS = 130_000;
const CASES = LABELS / 2; // two annotators, every case labelled by both
const CHANGED = 1000; // bob reads the first 1000 cases' even ones (500) otherwise

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-many-labels-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const label = (graphId: string, queryId: string, annotator: string, type: string, op: string) => ({
  graph_id: graphId,
  query_id: queryId,
  final_op_id: op,
  final_error_type: type,
  reason: `${annotator}'s reading`,
  annotator,
  created_at: '2026-03-01T10:00:00.000Z',
  label_source: 'person',
});

/** ann: even cases RetrievalError, odd ResponseError; bob the same but the even cases below CHANGED. */
function bigFile(): string {
  const annotations = [];
  for (let i = 0; i < CASES; i++) {
    const ann = i % 2 === 0 ? 'RetrievalError' : 'ResponseError';
    const bob = i % 2 === 0 && i < CHANGED ? 'ResponseError' : ann;
    annotations.push(label('g-big', `q${i}`, 'ann', ann, `op${i}`));
    annotations.push(label('g-big', `q${i}`, 'bob', bob, `op${i}`));
  }
  const file = join(tmp, 'team.json');
  writeFileSync(file, JSON.stringify({ annotations }));
  return file;
}

describe('130k labels', () => {
  const file = bigFile();

  it('agreement reads them all: n, disagreement and Cohen κ as worked out by hand', async () => {
    const r = await runCli(['agreement', file, '--json']);
    expect(r.stderr).not.toMatch(/RangeError|unexpected error/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.annotators).toEqual(['ann', 'bob']);
    expect(out.shared_cases).toBe(CASES);
    const changed = CHANGED / 2;
    // pₒ = 1 − 500/65000; ann's classes 50/50, so pₑ = ½ whatever bob's, and κ = 2pₒ − 1.
    const po = 1 - changed / CASES;
    expect(out.pairs).toHaveLength(1);
    expect(out.pairs[0]).toMatchObject({ a: 'ann', b: 'bob', n: CASES, op_disagreement: 0 });
    expect(out.pairs[0].type_disagreement).toBeCloseTo(changed / CASES, 12);
    expect(out.pairs[0].cohen_kappa).toBeCloseTo(2 * po - 1, 12);
    expect(out.disputed).toHaveLength(changed);
    expect(r.stderr).toContain(`${LABELS} label(s) in 1 file(s)`);
  });

  it('bench --labels reads them beside a real graph and scores the ones for that graph', async () => {
    const graph = join(SMARTCOMMENT_DIR, 'conv-26-fault-1.json');
    const doc = JSON.parse(readFileSync(graph, 'utf8'));
    const [a] = doc.data.annotations as { query_id: string; final_error_type: string; final_op_id: string }[];
    // The big file plus one label of this graph's first annotated case, by "carol".
    const mixed = JSON.parse(readFileSync(file, 'utf8'));
    mixed.annotations.push(label(doc.graph_id, a.query_id, 'carol', a.final_error_type, a.final_op_id));
    const withGraph = join(tmp, 'team-and-graph.json');
    writeFileSync(withGraph, JSON.stringify(mixed));
    const r = await runCli([
      'bench',
      graph,
      '--labels',
      withGraph,
      '--label-source',
      'annotator:carol',
      '--json',
    ]);
    expect(r.stderr).not.toMatch(/RangeError|unexpected error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ label_source: 'annotator:carol', total_cases: 1 });
  }, 120_000);
});
