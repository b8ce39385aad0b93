/**
 * The case path: the ops that caused a judged answer — every op upstream of the
 * prediction along edges (and version chains), no later than the op that wrote the
 * answer, in execution order — then the judge. Upstream is walked in time: an op counts
 * only when it ran no later than the op that read what it wrote, so a variable written
 * again after the answer (a window read by every later question, a content-named value
 * shared by another question) never pulls later ops in.
 */
import { closure, isSentinelOp, opStructure, producersOf, row, type TraceGraph } from '../graph/index.ts';
import type { TraceCase } from './cases.ts';

/** A case's path (`casePath`): the ops that caused the judged answer, then the judge. */
export interface CasePath {
  /** Op indices in execution order: the causes of the answer, the answer op, then the judge. */
  ops: number[];
  /** The op that wrote the prediction (-1 when none is known). */
  answerOp: number;
  /** The judge op (-1 when the case has none). */
  judgeOp: number;
}

/** Where `predictionOf` looks when the judge op names no prediction. */
export interface PredictionOptions {
  /**
   * The variables downstream of the query, searched in order for class `prediction` — pass what the
   * caller already walked; null looks nowhere (only the judge op counts). Default: the query's
   * downstream closure (edges and version chains).
   */
  downstream?: Iterable<number> | null;
}

/**
 * The prediction variable of a case: class `prediction` among the judge op's inputs, else the first one
 * downstream of the query (see `PredictionOptions`); -1 when none.
 */
export function predictionOf(
  g: TraceGraph,
  c: Pick<TraceCase, 'queryId' | 'judgeOpId'>,
  options: PredictionOptions = {},
): number {
  const judge = c.judgeOpId ? g.opIndex.get(c.judgeOpId) : undefined;
  if (judge !== undefined) {
    const s = opStructure(g, judge);
    const p = [...s.inputs, ...s.intermediates].find((v) => g.vars[v].class_name === 'prediction');
    if (p !== undefined) return p;
  }
  if (options.downstream === null) return -1;
  let down = options.downstream;
  if (down === undefined) {
    const q = g.varIndex.get(c.queryId);
    if (q === undefined) return -1;
    down = closure(g, [q], { direction: 'downstream' }).vars;
  }
  for (const v of down) if (g.vars[v].class_name === 'prediction') return v;
  return -1;
}

/** The op that wrote a case's judged answer (-1 when none is known). */
export function answerOpOf(g: TraceGraph, c: Pick<TraceCase, 'queryId' | 'judgeOpId'>): number {
  const prediction = predictionOf(g, c);
  const judgeOp = c.judgeOpId ? (g.opIndex.get(c.judgeOpId) ?? -1) : -1;
  return prediction < 0 ? -1 : lastWriterBefore(g, prediction, judgeOp);
}

/** The last op that wrote v before op `before` ran (any time when `before` is -1); -1 when none. */
function lastWriterBefore(g: TraceGraph, v: number, before: number): number {
  const limit = before >= 0 ? g.opRank[before] : g.opOrder.length;
  let last = -1;
  for (const o of producersOf(g, v))
    if (g.opRank[o] < limit && (last < 0 || g.opRank[o] > g.opRank[last])) last = o;
  return last;
}

/**
 * The ops that caused a case's answer (see the module comment). O(ops + edges): one
 * sweep over the ops in decreasing execution order from the answer op, marking what
 * each cause read as needed.
 */
export function casePath(g: TraceGraph, c: Pick<TraceCase, 'queryId' | 'judgeOpId'>): CasePath {
  const judgeOp = c.judgeOpId ? (g.opIndex.get(c.judgeOpId) ?? -1) : -1;
  const prediction = predictionOf(g, c);
  const answerOp = prediction < 0 ? -1 : lastWriterBefore(g, prediction, judgeOp);
  const ops = answerOp >= 0 ? causalCone(g, [prediction], g.opRank[answerOp]).ops : [];
  if (judgeOp >= 0) ops.push(judgeOp);
  return { ops, answerOp, judgeOp };
}

/** What led to some variables: the ops that wrote them (and what those read, and so on), and those variables. */
export interface CausalCone {
  /** Op indices in execution order (sentinel ops left out). */
  ops: number[];
  /** Every variable a cause read or wrote toward the targets, the targets included. */
  vars: Set<number>;
}

/**
 * The causes of `targets` as they stood when the op of execution rank `untilRank` ran:
 * walking ops from that rank down, an op is a cause when it wrote a variable a later cause
 * (or the caller) needs, and the latest such writer is the one that counts — an earlier
 * writer of the same variable (a content-named value another question also produced) is not.
 */
export function causalCone(g: TraceGraph, targets: Iterable<number>, untilRank: number): CausalCone {
  // pending[v]: v is needed and the op that wrote it for that read is not found yet.
  const pending = new Uint8Array(g.varId.length);
  const vars = new Set<number>();
  const ops: number[] = [];
  const position = chainPositions(g);
  const previous = (v: number) => {
    const k = position[v];
    return k > 0 ? row(g.lineages, g.varLineage[v])[k - 1] : -1;
  };
  const written = (v: number) => g.varInEdges.offsets[v + 1] > g.varInEdges.offsets[v];
  const need = (v: number) => {
    // A version no op wrote (a non-strict change) still comes from the version before it.
    for (let w = v; w >= 0 && !pending[w]; w = written(w) ? -1 : previous(w)) {
      pending[w] = 1;
      vars.add(w);
    }
  };
  for (const v of targets) need(v);
  for (let rank = Math.min(untilRank, g.opOrder.length - 1); rank >= 0; rank--) {
    const o = g.opOrder[rank];
    const edges = row(g.opEdges, o);
    let writes = false;
    for (const e of edges) if (pending[g.edgeDst[e]]) writes = true;
    if (!writes) continue;
    if (!isSentinelOp(g, o)) ops.push(o);
    const read = new Set<number>();
    for (const e of edges) read.add(g.edgeSrc[e]);
    for (const e of edges) {
      const v = g.edgeDst[e];
      if (!pending[v]) continue;
      pending[v] = 0;
      // Written without reading its own previous version: that version still led here.
      const before = previous(v);
      if (before >= 0 && !read.has(before)) need(before);
    }
    for (const e of edges) need(g.edgeSrc[e]);
  }
  ops.reverse();
  return { ops, vars };
}

/** Position of every variable in its version chain. */
function chainPositions(g: TraceGraph): Int32Array {
  const out = new Int32Array(g.varId.length);
  for (let l = 0; l < g.lineageNames.length; l++) {
    const chain = row(g.lineages, l);
    for (let k = 0; k < chain.length; k++) out[chain[k]] = k;
  }
  return out;
}
