/**
 * Where a failed question sits in the graph: the query, the prediction and the
 * op that wrote it, what that op read (the context), the question-time ops
 * between the store and the answer, and the store they read. Found from edges,
 * classes and the `prompt` category only — never from op names.
 */
import type { TraceCase } from '../cases/cases.ts';
import { isSentinelVar, type TraceGraph } from '../graph/graph.ts';
import { closure, opStructure, producersOf } from '../graph/queries.ts';

export interface CaseContext {
  query: number;
  prediction: number;
  /** The op that wrote the prediction (-1 when none). */
  answerOp: number;
  /** Inputs of the answer op other than the query and prompts. */
  context: number[];
  /** Variables derived from the query (its downstream). */
  queryDerived: Set<number>;
  /** Ops upstream of the answer that read something derived from the query, in execution order (answer op excluded). */
  questionOps: number[];
  /** What the question-time ops (or the answer op) read that is not derived from the query: the memory at question time. */
  store: number[];
  /** Variables and ops upstream of the answer's inputs (with version chains). */
  coneVars: Set<number>;
  coneOps: number[];
  evidence: number[];
}

export function isPrompt(g: TraceGraph, v: number): boolean {
  return g.varCategory[v] === 'prompt' || g.varCategory[v].split(/\s*&\s*/).includes('prompt');
}

function findPrediction(g: TraceGraph, c: TraceCase, queryDerived: Set<number>): number {
  if (c.judgeOpId) {
    const op = g.opIndex.get(c.judgeOpId);
    if (op !== undefined) {
      const s = opStructure(g, op);
      const p = [...s.inputs, ...s.intermediates].find((v) => g.vars[v].class_name === 'prediction');
      if (p !== undefined) return p;
    }
  }
  for (const v of queryDerived) if (g.vars[v].class_name === 'prediction') return v;
  return -1;
}

export function caseContext(g: TraceGraph, c: TraceCase): CaseContext {
  const query = g.varIndex.get(c.queryId) ?? -1;
  const queryDerived = new Set(
    query >= 0 ? closure(g, [query], { direction: 'downstream', followLineage: false }).vars : [],
  );
  const prediction = findPrediction(g, c, queryDerived);
  const producers = prediction >= 0 ? producersOf(g, prediction) : [];
  const answerOp = producers.length ? producers.sort((a, b) => g.opRank[b] - g.opRank[a])[0] : -1;
  const answerInputs = answerOp >= 0 ? opStructure(g, answerOp).inputs : [];
  const context = answerInputs.filter((v) => v !== query && !isPrompt(g, v) && !isSentinelVar(g, v));
  const cone = closure(g, context, { direction: 'upstream' });
  const coneVars = new Set(cone.vars);
  // The answer op's rank bounds the cone in time: later versions reached through lineage do not count.
  const before = (op: number) => answerOp < 0 || g.opRank[op] < g.opRank[answerOp];
  const coneOps = cone.ops.filter(before);
  const questionOps: number[] = [];
  const store = new Set<number>();
  for (const v of context) if (!queryDerived.has(v)) store.add(v);
  for (const op of coneOps) {
    const s = opStructure(g, op);
    if (!s.inputs.some((v) => queryDerived.has(v))) continue;
    questionOps.push(op);
    for (const v of s.inputs)
      if (
        !queryDerived.has(v) &&
        !isPrompt(g, v) &&
        !isSentinelVar(g, v) &&
        g.varCategory[v] !== 'message & query'
      )
        store.add(v);
  }
  const evidence = c.evidenceIds.map((id) => g.varIndex.get(id)).filter((v): v is number => v !== undefined);
  return {
    query,
    prediction,
    answerOp,
    context,
    queryDerived,
    questionOps,
    store: [...store],
    coneVars,
    coneOps,
    evidence,
  };
}
