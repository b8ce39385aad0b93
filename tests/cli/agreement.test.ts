/**
 * `memtrace agreement` on two people's annotations files and a real graph file (whose labels
 * count under their label_source), against values worked out by hand; `--engine evidence`
 * adds the attributor as one more annotator; `memtrace bench --label-source / --labels`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

/** `memtrace ARGS…` in-process. */
const run = (...argv: string[]) => runCli(argv);

const GRAPH = join(SMARTCOMMENT_DIR, 'conv-26-fault-1.json');
const doc = JSON.parse(readFileSync(GRAPH, 'utf8'));
const A = doc.data.annotations as {
  query_id: string;
  final_error_type: string;
  final_op_id: string;
  label_source: string;
}[];
const tmp = mkdtempSync(join(tmpdir(), 'memtrace-agreement-'));

// Cases 0 (ResponseError, counterfactual), 2 and 3 (RetrievalError, counterfactual), 11 (UpdateError, fault-injection).
const picked = [A[0], A[2], A[3], A[11]];
const entry = (
  a: (typeof A)[number],
  annotator: string,
  over: Partial<{ final_error_type: string; final_op_id: string }> = {},
) => ({
  graph_id: doc.graph_id,
  query_id: a.query_id,
  final_op_id: over.final_op_id ?? a.final_op_id,
  final_error_type: over.final_error_type ?? a.final_error_type,
  reason: `${annotator}'s reading`,
  annotator,
  created_at: '2026-03-01T10:00:00.000Z',
  label_source: 'person',
});
const annFile = join(tmp, 'ann.json');
const bobFile = join(tmp, 'bob.json');
writeFileSync(annFile, JSON.stringify({ annotations: picked.map((a) => entry(a, 'ann')) }));
writeFileSync(
  bobFile,
  JSON.stringify({
    annotations: [
      entry(A[0], 'bob'),
      entry(A[2], 'bob', { final_error_type: 'ResponseError' }),
      entry(A[3], 'bob', { final_op_id: A[4].final_op_id }),
      entry(A[11], 'bob'),
    ],
  }),
);

describe('memtrace agreement', () => {
  it('reports every pair, Fleiss κ and the disputed cases as worked out by hand', async () => {
    const r = await run('agreement', annFile, bobFile, GRAPH, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).slice(0, 2)).toEqual(['annotators', 'shared_cases']);
    expect(out.annotators).toEqual(['ann', 'bob', 'counterfactual', 'fault-injection']);
    const pair = (a: string, b: string) =>
      out.pairs.find((p: { a: string; b: string }) => p.a === a && p.b === b);
    // ann [Resp, Ret, Ret, Upd] × bob [Resp, Resp, Ret, Upd]: pₒ 3/4, pₑ (1·2 + 2·1 + 1·1)/16 = 5/16 → κ 7/11
    expect(pair('ann', 'bob')).toMatchObject({ n: 4, type_disagreement: 0.25, op_disagreement: 0.25 });
    expect(pair('ann', 'bob').cohen_kappa).toBeCloseTo(7 / 11, 12);
    // ann agrees with the file on its three counterfactual cases: pₑ = (1 + 4)/9, κ = 1
    expect(pair('ann', 'counterfactual')).toMatchObject({
      n: 3,
      type_disagreement: 0,
      op_disagreement: 0,
      cohen_kappa: 1,
    });
    // one shared case in one class: κ undefined
    expect(pair('ann', 'fault-injection')).toMatchObject({ n: 1, type_disagreement: 0, cohen_kappa: null });
    // bob [Resp, Resp, Ret] × file [Resp, Ret, Ret]: pₒ 2/3, pₑ 4/9 → κ 2/5
    expect(pair('bob', 'counterfactual').cohen_kappa).toBeCloseTo(2 / 5, 12);
    expect(pair('bob', 'counterfactual').op_disagreement).toBeCloseTo(1 / 3, 12);
    // The file's two label sources share no case: that pair is not listed.
    expect(pair('counterfactual', 'fault-injection')).toBeUndefined();
    expect(out.pairs).toHaveLength(5);
    expect(out).toMatchObject({ max_pairs: 1000, pairs_truncated: false });
    // --max-pairs bounds the list and says that more exist.
    const capped = JSON.parse(
      (await run('agreement', annFile, bobFile, GRAPH, '--max-pairs', '2', '--json')).stdout,
    );
    expect(capped.pairs.map((p: { a: string; b: string }) => `${p.a} × ${p.b}`)).toEqual([
      'ann × bob',
      'ann × counterfactual',
    ]);
    expect(capped).toMatchObject({ max_pairs: 2, pairs_truncated: true });
    // Four cases with three raters: Pᵢ 1, 1/3, 1, 1 → P̄ 5/6; classes 4/12, 5/12, 3/12 → P̄ₑ 25/72; κ 35/47
    expect(out.shared_cases).toBe(4);
    expect(out.fleiss_kappa).toBeCloseTo(35 / 47, 12);
    expect(out.disputed.map((d: { query_id: string }) => d.query_id)).toEqual([A[2].query_id, A[3].query_id]);
    expect(
      out.disputed[0].labels.map((l: { annotator: string; error_type: string }) => [
        l.annotator,
        l.error_type,
      ]),
    ).toEqual([
      ['ann', 'RetrievalError'],
      ['bob', 'ResponseError'],
      ['counterfactual', 'RetrievalError'],
    ]);
    expect(out.disputed[0].labels[1].reason).toBe("bob's reading");
  });

  it('--engine evidence makes the attributor one more annotator over the labelled cases', async () => {
    const r = await run('agreement', annFile, GRAPH, '--engine', 'evidence', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.annotators).toContain('engine:evidence');
    // Independently: the attributor's answers on ann's cases, from `memtrace attribute`.
    const attributed = await Promise.all(
      picked.map(
        async (a) => JSON.parse((await run('attribute', GRAPH, '--case', a.query_id, '--json')).stdout)[0],
      ),
    );
    const typeDiff = attributed.filter(
      (x, i) => (x.error_type ?? 'none') !== picked[i].final_error_type,
    ).length;
    const opDiff = attributed.filter((x, i) => x.op_id !== picked[i].final_op_id).length;
    const p = out.pairs.find((x: { a: string; b: string }) => x.a === 'ann' && x.b === 'engine:evidence');
    expect(p).toMatchObject({ n: 4, type_disagreement: typeDiff / 4, op_disagreement: opDiff / 4 });
    const all = out.pairs.filter(
      (x: { a: string; b: string }) => x.a === 'engine:evidence' || x.b === 'engine:evidence',
    );
    expect(all.reduce((n: number, x: { n: number }) => n + x.n, 0)).toBe(4 + A.length);
  });

  it('text output names the pairs; bad input exits 1 or 2 with one line', async () => {
    const text = await run('agreement', annFile, bobFile);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('ann × bob: n 4');
    const bad = join(tmp, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ annotations: [{ graph_id: 'g', query_id: 'q', final_error_type: 5 }] }),
    );
    // Among several files, the bad one is named with its place; the others are still read; exit 1.
    const r = await run('agreement', annFile, bad);
    expect(r.code).toBe(1);
    const place = `${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: annotations\\[0\\]\\.final_error_type: `;
    expect(r.stderr).toMatch(new RegExp(`^${place}`, 'm'));
    expect(r.stdout).toMatch(/^1 annotator\(s\): ann$/m);
    // Alone, it fails the command with that one line.
    const alone = await run('agreement', bad);
    expect(alone.code).toBe(1);
    expect(alone.stderr.trim()).toMatch(new RegExp(`^memtrace agreement: ${place}`));
    expect(alone.stderr.trim().split('\n')).toHaveLength(1);
    expect((await run('agreement')).code).toBe(2);
    expect((await run('agreement', annFile, '--engine', 'obs')).code).toBe(2);
    expect((await run('agreement', join(tmp, 'missing.json'))).code).toBe(1);
  });
});

describe('memtrace bench --label-source', () => {
  it("scores against the file's own labels by default, one source, or an annotator's labels from --labels", async () => {
    const byFile = JSON.parse((await run('bench', GRAPH, '--json')).stdout);
    expect(byFile).toMatchObject({ label_source: 'file', total_cases: A.length });
    const fi = JSON.parse((await run('bench', GRAPH, '--label-source', 'fault-injection', '--json')).stdout);
    expect(fi).toMatchObject({ label_source: 'source:fault-injection', total_cases: 1 });
    const bob = JSON.parse(
      (await run('bench', GRAPH, '--labels', bobFile, '--label-source', 'annotator:bob', '--json')).stdout,
    );
    expect(bob.total_cases).toBe(4);
    // bob's type differs from the file on one case; the attributor's type accuracy moves accordingly
    const attributed = await Promise.all(
      [A[0], A[2], A[3], A[11]].map(
        async (a) => JSON.parse((await run('attribute', GRAPH, '--case', a.query_id, '--json')).stdout)[0],
      ),
    );
    const bobTypes = ['ResponseError', 'ResponseError', 'RetrievalError', 'UpdateError'];
    expect(bob.error_type_accuracy).toBe(
      attributed.filter((x, i) => x.error_type === bobTypes[i]).length / 4,
    );
    expect((await run('bench', GRAPH, '--label-source', 'annotator:', '--json')).code).toBe(2);
  });
});
