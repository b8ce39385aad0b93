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
 * Only the writers of needed variables are visited (a max-heap by rank), so a case costs the
 * size of its cone, not of the trace.
 */
export function causalCone(g: TraceGraph, targets: Iterable<number>, untilRank: number): CausalCone {
  // pending: needed variables whose writer for that read is not found yet.
  const pending = new Set<number>();
  const vars = new Set<number>();
  const ops: number[] = [];
  const { position, writers } = graphIndexes(g);
  const queued = new Set<number>();
  const heap = new RankHeap();
  const previous = (v: number) => {
    const k = position[v];
    return k > 0 ? row(g.lineages, g.varLineage[v])[k - 1] : -1;
  };
  const written = (v: number) => g.varInEdges.offsets[v + 1] > g.varInEdges.offsets[v];
  // The latest op below `below` (a rank) that wrote v, queued to be visited.
  const queueWriter = (v: number, below: number) => {
    const o = latestWriter(g, writers(v), below);
    if (o >= 0 && !queued.has(o)) {
      queued.add(o);
      heap.push(g.opRank[o], o);
    }
  };
  const need = (v: number, below: number) => {
    // A version no op wrote (a non-strict change) still comes from the version before it.
    for (let w = v; w >= 0 && !pending.has(w); w = written(w) ? -1 : previous(w)) {
      pending.add(w);
      vars.add(w);
      queueWriter(w, below);
    }
  };
  const top = Math.min(untilRank, g.opOrder.length - 1);
  for (const v of targets) need(v, top + 1);
  for (let o = heap.pop(); o >= 0; o = heap.pop()) {
    const edges = row(g.opEdges, o);
    let writes = false;
    for (const e of edges) if (pending.has(g.edgeDst[e])) writes = true;
    if (!writes) continue;
    if (!isSentinelOp(g, o)) ops.push(o);
    const read = new Set<number>();
    for (const e of edges) read.add(g.edgeSrc[e]);
    const rank = g.opRank[o];
    for (const e of edges) {
      const v = g.edgeDst[e];
      if (!pending.has(v)) continue;
      pending.delete(v);
      // Written without reading its own previous version: that version still led here.
      const before = previous(v);
      if (before >= 0 && !read.has(before)) need(before, rank);
    }
    for (const e of edges) need(g.edgeSrc[e], rank);
  }
  ops.reverse();
  return { ops, vars };
}

/** The op of the highest rank below `below` among a variable's writers (ranks ascending); -1 when none. */
function latestWriter(g: TraceGraph, byRank: Int32Array, below: number): number {
  let lo = 0;
  let hi = byRank.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (g.opRank[byRank[mid]] < below) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? byRank[lo - 1] : -1;
}

/** A max-heap of ops by execution rank. */
class RankHeap {
  private readonly keys: number[] = [];
  private readonly items: number[] = [];
  push(key: number, item: number): void {
    const { keys, items } = this;
    let i = keys.length;
    keys.push(key);
    items.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p] >= key) break;
      keys[i] = keys[p];
      items[i] = items[p];
      i = p;
    }
    keys[i] = key;
    items[i] = item;
  }
  /** The item of the highest key, or -1 when empty. */
  pop(): number {
    const { keys, items } = this;
    if (!keys.length) return -1;
    const top = items[0];
    const key = keys.pop()!;
    const item = items.pop()!;
    if (keys.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= keys.length) break;
        const c = l + 1 < keys.length && keys[l + 1] > keys[l] ? l + 1 : l;
        if (keys[c] <= key) break;
        keys[i] = keys[c];
        items[i] = items[c];
        i = c;
      }
      keys[i] = key;
      items[i] = item;
    }
    return top;
  }
}

/** Per graph, computed once: each variable's place in its version chain, and its writers by rank. */
const INDEXES = new WeakMap<TraceGraph, { position: Int32Array; writers: (v: number) => Int32Array }>();

function graphIndexes(g: TraceGraph) {
  let x = INDEXES.get(g);
  if (!x) {
    const cache = new Map<number, Int32Array>();
    const writers = (v: number) => {
      let w = cache.get(v);
      if (!w) {
        w = Int32Array.from(producersOf(g, v)).sort((a, b) => g.opRank[a] - g.opRank[b]);
        cache.set(v, w);
      }
      return w;
    };
    x = { position: chainPositions(g), writers };
    INDEXES.set(g, x);
  }
  return x;
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
