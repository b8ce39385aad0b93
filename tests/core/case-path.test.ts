/**
 * casePath(graph, case): only the causes of the judged answer, in execution order, then
 * the judge. Checked on a hand-built graph (exact list), on an offline run of each of the
 * four reference systems, and on the real smartcomment files (their exact labels must lie
 * on the path).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { casePath, listCases } from '../../src/core/cases/index.ts';
import { openTrace, opStructure, producersOf, type TraceGraph } from '../../src/core/graph/index.ts';
import { steppingClock, Tracer } from '../../src/sdk/index.ts';
import {
  type Conversation,
  createSystem,
  loadLocomo,
  runSystem,
  SYSTEM_NAMES,
} from '../../src/systems/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { SHARED_DATA, smartcommentFiles } from '../helpers/shared-data.ts';

function open(text: string, file = 'test.json'): TraceGraph {
  const r = openTrace(text, { file });
  if (!r.ok) throw new Error(`${file}: ${r.issues[0]?.message}`);
  return r.graph;
}

const names = (g: TraceGraph, ops: number[]) => ops.map((o) => g.opName[o]);

describe('casePath on a hand-built graph', () => {
  /**
   * Two questions share a content-named context (both searches write `ctx@1`); the memory
   * chain has a version no op wrote; another question's search and an ingest run between
   * q1's answer and its judge.
   */
  function build() {
    const b = new DocBuilder();
    const m1 = b.variable('m1', "'Caroline went to a support group'", { category: 'message' });
    const mem1 = b.variable('mem', "['support group']", { version: 1 });
    b.op('ingest', 'extraction', [m1], [mem1]);
    const mem2 = b.variable('mem', "['support group', 'new']", { version: 2 }); // non-strict: no op
    const q0 = b.variable('q0', "'warm-up?'", { className: 'query', category: 'message & query' });
    const ctx = b.variable('ctx', "'support group'");
    b.op('search-q0', 'retrieval', [q0, mem2], [ctx]);
    const q1 = b.variable('q1', "'What did Caroline do?'", {
      className: 'query',
      category: 'message & query',
    });
    b.op('search-q1', 'retrieval', [q1, mem2], [ctx]);
    const pred = b.variable('p1', "'painted'", { className: 'prediction', category: 'answer' });
    b.op('answer-q1', 'generation', [q1, ctx], [pred]);
    const q2 = b.variable('q2', "'later?'", { className: 'query', category: 'message & query' });
    b.op('search-q2', 'retrieval', [q2, mem2], [ctx]);
    const m2 = b.variable('m2', "'unrelated'", { category: 'message' });
    const mem3 = b.variable('mem', "['support group', 'new', 'unrelated']", { version: 3 });
    b.op('ingest-late', 'extraction', [m2, mem2], [mem3]);
    const gold = b.variable('g1', "['support group']", { className: 'golden_answers' });
    const resp = b.variable('r1', "'WRONG'", { className: 'judge_response' });
    const score = b.variable('s1', '0.0', { className: 'judge_score' });
    b.op('llm-judge', 'evaluation', [q1, pred, gold], [resp, score]);
    return open(b.text());
  }

  it('lists the causes in execution order, then the judge; nothing that ran after the answer', () => {
    const g = build();
    const [c] = listCases(g);
    const p = casePath(g, c);
    // ingest wrote mem@1, which mem@2 (no op wrote it) came from; search-q1 is the writer of
    // ctx that answer-q1 read — search-q0 wrote the same ctx earlier but for another read.
    expect(names(g, p.ops)).toEqual(['ingest', 'search-q1', 'answer-q1', 'llm-judge']);
    expect(g.opName[p.answerOp]).toBe('answer-q1');
    expect(g.opName[p.judgeOp]).toBe('llm-judge');
  });
});

/** conv-26, first 3 sessions, the questions whose evidence lies in them. */
const small: Conversation = (() => {
  const conv = loadLocomo(JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8')))[0];
  const turns = new Set(conv.sessions.slice(0, 3).flatMap((s) => s.turns.map((t) => t.id)));
  return {
    ...conv,
    sessions: conv.sessions.slice(0, 3),
    questions: conv.questions.filter((q) => q.evidence.every((e) => turns.has(e))).slice(0, 12),
  };
})();

/** Ids that never repeat (a counter): the path does not depend on them. */
function counterIds() {
  let n = 0;
  return () => (++n).toString(16).padStart(32, '0');
}

/** Properties every case path has, checked against the graph directly. */
function checkPath(g: TraceGraph, queryId: string, judgeOpId: string | null) {
  const p = casePath(g, { queryId, judgeOpId });
  const ranks = p.ops.map((o) => g.opRank[o]);
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  expect(p.answerOp).toBeGreaterThanOrEqual(0);
  expect(p.ops.at(-1)).toBe(p.judgeOp);
  expect(p.ops.at(-2)).toBe(p.answerOp);
  // Nothing between the answer and its judge, nothing after.
  for (const o of p.ops.slice(0, -1)) expect(g.opRank[o]).toBeLessThanOrEqual(g.opRank[p.answerOp]);
  // Every op the answer op read from (its latest writer before it) is on the path.
  for (const v of opStructure(g, p.answerOp).inputs) {
    const before = producersOf(g, v).filter((o) => g.opRank[o] < g.opRank[p.answerOp]);
    if (before.length === 0) continue;
    const latest = before.reduce((a, b) => (g.opRank[a] > g.opRank[b] ? a : b));
    expect(p.ops).toContain(latest);
  }
  // Every op before the answer wrote something a later op on the path read (or an earlier
  // version of it): a cause, not a bystander.
  const onPath = new Set(p.ops);
  for (const o of p.ops.slice(0, -2)) {
    const outs = new Set(opStructure(g, o).outputs.concat(opStructure(g, o).intermediates));
    const lineages = new Set([...outs].map((v) => g.varLineage[v]));
    const feeds = [...onPath].some(
      (later) =>
        g.opRank[later] > g.opRank[o] &&
        opStructure(g, later).inputs.some((v) => outs.has(v) || lineages.has(g.varLineage[v])),
    );
    expect(feeds, `${g.opName[o]} feeds a later op of the path`).toBe(true);
  }
  return p;
}

describe('casePath on each reference system (offline runs)', () => {
  for (const name of SYSTEM_NAMES)
    it(`${name}: every failed case's path holds causes only, the answer op and the judge last`, async () => {
      const tracer = new Tracer({
        clock: steppingClock(Date.UTC(2026, 0, 1), 1),
        ids: counterIds(),
        metadata: { system: name },
        filename: 'case-path.test.ts',
      });
      await runSystem(createSystem(name), small, { tracer });
      const g = open(JSON.stringify(tracer.document()), `${name}.json`);
      const cases = listCases(g, { includePassed: true });
      expect(cases.length).toBe(small.questions.length);
      for (const c of cases) {
        const p = checkPath(g, c.queryId, c.judgeOpId);
        // The conversation is in it: an op that read a raw message.
        expect(p.ops.some((o) => opStructure(g, o).inputs.some((v) => g.varCategory[v] === 'message'))).toBe(
          true,
        );
      }
    });
});

describe('casePath on the real smartcomment files', () => {
  for (const file of smartcommentFiles())
    it(`${file.split('/').pop()}: the labelled op of every case lies on its path`, () => {
      const g = open(readFileSync(file, 'utf8'), file);
      const labelled = listCases(g).filter((c) => c.label?.opId);
      expect(labelled.length).toBeGreaterThan(0);
      for (const c of labelled) {
        const p = checkPath(g, c.queryId, c.judgeOpId);
        expect(p.ops).toContain(g.opIndex.get(c.label!.opId!));
      }
    });
});
