/**
 * What used to load without a word now says so: edge cycles (a warning naming an edge, and
 * attribution shown to cut the cycle where it goes back in time), keys given twice with
 * different values (a second top-level `data` is an error naming its line), annotation
 * fields of the wrong type, and `source_evidence_ids` naming no variable.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attributeEvidenceFlow } from '../../src/core/attribution/index.ts';
import { casePath, listCases } from '../../src/core/cases/index.ts';
import { buildGraph, openTrace } from '../../src/core/graph/index.ts';
import { exportSmartcomment, parseTraceText, type TraceIssue } from '../../src/core/trace/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const py = (s: string) => `'${s}'`;

/** A small run: two messages → facts → store versions → search → answer → judge (the fact about the puppy was lost). */
function run() {
  const b = new DocBuilder();
  const m1 = b.variable('conv:D1:1', py('Caroline: I adopted a puppy named Biscuit'), {
    category: 'message',
  });
  const m2 = b.variable('conv:D1:2', py('Melanie: I ran a marathon'), { category: 'message' });
  const f1 = b.variable('facts-1', "['Caroline adopted a pet']", { category: 'facts' });
  b.op('extract', 'llm_call', [m1], [f1]);
  const f2 = b.variable('facts-2', "['Melanie ran a marathon']", { category: 'facts' });
  b.op('extract', 'llm_call', [m2], [f2]);
  const s1 = b.variable('store', "{'a': 'Caroline adopted a pet'}", { category: 'memory_store' });
  b.op('apply', 'mutation', [f1], [s1]);
  const s2 = b.variable('store', "{'a': 'Caroline adopted a pet', 'b': 'Melanie ran a marathon'}", {
    category: 'memory_store',
    version: 2,
  });
  b.op('apply', 'mutation', [s1, f2], [s2]);
  const q = b.variable('qa-1', py('What is the name of the puppy Caroline adopted?'), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: [m1] },
  });
  const hits = b.variable('hits', "['Caroline adopted a pet']", { category: 'retrieved' });
  b.op('search', 'search', [q, s2], [hits]);
  const pred = b.variable('pred-1', py('I do not know'), { className: 'prediction', category: 'answer' });
  b.op('answer', 'llm_call', [q, hits], [pred]);
  const gold = b.variable('gold-1', "['Biscuit']", { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  return { b, m1, f1, s1, s2, pred };
}

const issuesOf = (doc: unknown, code: string): TraceIssue[] =>
  parseTraceText(JSON.stringify(doc), { file: 't.json' }).issues.filter((i) => i.code === code);

describe('edge cycles', () => {
  it('a run without cycles has no warning; the real files have none', () => {
    expect(issuesOf(run().b.doc, 'edge-cycle')).toEqual([]);
    for (const f of smartcommentFiles())
      expect(issuesOf(JSON.parse(readFileSync(f, 'utf8')), 'edge-cycle'), f).toEqual([]);
  });

  it('a later op writing what an earlier op read: a warning naming the reversed edge and the cycle', () => {
    const r = run();
    // After the answer, an op reads the prediction and writes the first message: m1 → … → pred → m1.
    r.b.op('rewrite', 'mutation', [r.pred], [r.m1]);
    const [w, ...more] = issuesOf(r.b.doc, 'edge-cycle');
    expect(more).toEqual([]);
    expect(w.severity).toBe('warning');
    // The reversed edge: the extraction (edge 0, m1 → facts-1) reads m1, which only the later op writes.
    expect(w.path).toBe('data.edges[0]');
    expect(w.message).toMatch(
      /^op "op-1" reads "conv:D1:1@1", which only it or later ops write, and the edges lead back to it \(a cycle through "conv:D1:1@1", "facts-1@1", "store@1", … \(\d+ in all\)\)/,
    );
  });

  it('an op reading and writing a variable nothing wrote before: a self-loop warning', () => {
    const r = run();
    r.b.op('touch', 'mutation', [r.m1], [r.m1]);
    const [w] = issuesOf(r.b.doc, 'edge-cycle');
    expect(w.path).toBe(`data.edges[${r.b.doc.data.edges.length - 1}]`);
    expect(w.message).toMatch(
      /reads "conv:D1:1@1", which only it or later ops write.*a cycle through "conv:D1:1@1"\)/,
    );
  });

  it('cycles in time order (a content-named value written again later, a pass-through) are not reported', () => {
    const r = run();
    // facts-1 was written by the extraction: an op passing it through unchanged writes the same variable,
    // and a later op that makes the same store value again writes store@1 again.
    r.b.op('touch', 'mutation', [r.f1], [r.f1]);
    r.b.op('rebuild', 'mutation', [r.s2], [r.s1]);
    expect(issuesOf(r.b.doc, 'edge-cycle')).toEqual([]);
  });

  it('the case path cuts the cycle where it goes back in time; attribution still answers (and may differ, as the warning says)', async () => {
    const plain = run();
    const cyclic = run();
    cyclic.b.op('rewrite', 'mutation', [cyclic.pred], [cyclic.m1]);
    const results = [];
    for (const r of [plain, cyclic]) {
      const g = buildGraph(r.b.doc);
      const [c] = listCases(g);
      const path = casePath(g, c).ops.map((o) => g.opId[o]);
      const a = await attributeEvidenceFlow({ graph: g, case: c });
      results.push({ path, type: a.error_type, op: a.op_id });
    }
    expect(results[1].path).toEqual(results[0].path);
    expect(results[0]).toMatchObject({ type: 'ExtractionError', op: 'op-1' });
    // With the back edge the message reads as derived from the question (edges followed
    // forward without regard to time): still an ExtractionError here, but no longer at op-1.
    expect(results[1].type).toBe('ExtractionError');
    expect(results[1].op).not.toBe('op-1');
  });
});

describe('keys given twice', () => {
  const graph = (data: string) => `{\n  "graph_id": "g",\n  "data": ${data},\n  "metadata": {}\n}`;
  const full = JSON.stringify(run().b.doc.data);

  it('a second top-level "data" that would empty the graph: an error naming its line', () => {
    const text = `${graph(full).slice(0, -2)},\n  "data": {"nodes": [], "edges": [], "operations": [], "sessions": []}\n}`;
    const r = openTrace(text, { file: 'two.json' });
    expect(r.ok).toBe(false);
    const e = r.issues.find((i) => i.code === 'duplicate-key');
    expect(e).toMatchObject({ severity: 'error', path: 'data', line: 5 });
    expect(e?.message).toMatch(
      /"data" is given twice with different values \(lines 3 and 5\).*earlier graph would be lost/,
    );
  });

  it('a record list given twice inside data is an error; the same value twice, or in nested records, is not reported', () => {
    const lists = full.slice(0, -1);
    const twice = openTrace(graph(`${lists}, "nodes": []}`), { file: 'x.json' });
    expect(twice.ok).toBe(false);
    expect(twice.issues.find((i) => i.code === 'duplicate-key')?.path).toBe('data.nodes');
    const same = openTrace(graph(`${lists}, "edges": ${JSON.stringify(run().b.doc.data.edges)}}`), {
      file: 'y.json',
    });
    expect(same.issues.filter((i) => i.code === 'duplicate-key')).toEqual([]);
    expect(same.ok).toBe(true);
  });

  it('another top-level key repeated with a new value (also written with escapes) is a warning', () => {
    const text = `${graph(full).slice(0, -2)},\n  "m\\u0065tadata": {"x": 1}\n}`;
    const r = openTrace(text, { file: 'm.json' });
    expect(r.ok).toBe(true);
    expect(r.issues.find((i) => i.code === 'duplicate-key')).toMatchObject({
      severity: 'warning',
      path: '$.metadata',
      line: 5,
    });
  });
});

describe('annotations', () => {
  it('fields of the wrong type and evidence ids that name no variable are warned about, with their place', () => {
    const r = run();
    const q = r.b.doc.data.nodes.find((n) => n.class_name === 'query')!.full_node_id as string;
    r.b.doc.data.annotations = [
      {
        query_id: q,
        final_error_type: 'ExtractionError',
        final_op_id: r.b.doc.data.operations[0].op_id,
        reason: 42,
        annotator: { name: 'ann' },
        golden_answers: ['Biscuit', 7],
        source_evidence_ids: [r.m1, 'conv:D9:9@1'],
      } as never,
    ];
    const issues = parseTraceText(JSON.stringify(r.b.doc), { file: 'a.json' }).issues;
    const at = (path: string) => issues.find((i) => i.path === path);
    expect(at('data.annotations[0].reason')).toMatchObject({ severity: 'warning', code: 'wrong-type' });
    expect(at('data.annotations[0].annotator')?.message).toMatch(/annotator is an object; expected a string/);
    expect(at('data.annotations[0].golden_answers')?.message).toMatch(/expected a list of strings/);
    expect(at('data.annotations[0].source_evidence_ids')).toMatchObject({
      severity: 'warning',
      code: 'dangling-evidence',
    });
    expect(at('data.annotations[0].source_evidence_ids')?.message).toMatch(/names 1 id\(s\).*"conv:D9:9@1"/);
  });
});

describe('a cyclic file', () => {
  it('still exports the records as they were', () => {
    const r = run();
    r.b.op('touch', 'mutation', [r.f1], [r.f1]);
    const o = openTrace(JSON.stringify(r.b.doc), { file: 'c.json' });
    expect(o.ok).toBe(true);
    if (o.ok) expect(JSON.parse(exportSmartcomment(o.graph.doc))).toEqual(r.b.doc);
  });
});
