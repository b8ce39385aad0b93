/**
 * Spans → the rows of a span tree / waterfall, as columns (cheap to send from the engine
 * worker and to window over): one row per span in depth-first order, children after their
 * parent ordered by start time (file order breaking ties, untimed spans last). A span whose
 * parent is not in the file is a root marked `ORPHAN`; parent links that close a cycle are
 * refused: the cycle is cut at its earliest span, which becomes a root marked `CYCLE`.
 */

/** One span as the tree needs it (read from a graph by `spanInputs`, or built by hand in tests). */
export interface SpanInput {
  traceId: string;
  spanId: string;
  /** The parent's span id (same trace), null for a root. */
  parentSpanId: string | null;
  name: string;
  /** The convention's kind (`chat`, `LLM`, `RETRIEVER`, …) or '' when none. */
  kind: string;
  /** Nanoseconds since the epoch. */
  start: bigint | null;
  end: bigint | null;
  status: SpanStatus;
  /** The error said: status message, exception message, `error.type`; '' when none. */
  error: string;
  model: string;
  tokensIn: number | null;
  tokensOut: number | null;
  /** The op the span became ('' for a container span, which makes no op). */
  opId: string;
}

/** A span's status: unset, ok or error. */
export type SpanStatus = 0 | 1 | 2;
/** `SpanStatus` values by name. */
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;

/** Row flags: the parent is missing from the file; the parent link closed a cycle (refused). */
export const ORPHAN = 1;
/** See `ORPHAN`. */
export const CYCLE = 2;

/** The tree's rows in display order (depth-first), column by column. */
export interface SpanTable {
  count: number;
  spanId: string[];
  name: string[];
  kind: string[];
  model: string[];
  error: string[];
  opId: string[];
  /** Depth (0 for roots). */
  depth: Int32Array;
  /** The parent's row, -1 for a root. */
  parent: Int32Array;
  /** One past the last row of the span's subtree (a collapsed row skips to it). */
  end: Int32Array;
  /** Position among its siblings (1-based) and how many siblings (aria-posinset / setsize). */
  pos: Int32Array;
  size: Int32Array;
  /** Start, in ms after the earliest span's start (NaN when unknown), and duration in ms (NaN when unknown). */
  startMs: Float64Array;
  durMs: Float64Array;
  /** Latest known end, in ms after the earliest start (the time axis' length). */
  totalMs: number;
  status: Uint8Array;
  flags: Uint8Array;
  /** Token counts, NaN when unknown. */
  tokensIn: Float64Array;
  tokensOut: Float64Array;
}

/** Parent index per span (-1: root), flags for orphans; a repeated span key resolves to its last span. */
function parentLinks(spans: SpanInput[], flags: Uint8Array): Int32Array {
  const byKey = new Map<string, number>();
  spans.forEach((s, i) => {
    byKey.set(`${s.traceId}/${s.spanId}`, i);
  });
  const parent = new Int32Array(spans.length).fill(-1);
  spans.forEach((s, i) => {
    if (!s.parentSpanId) return;
    const p = byKey.get(`${s.traceId}/${s.parentSpanId}`);
    if (p === undefined) flags[i] |= ORPHAN;
    else parent[i] = p;
  });
  return parent;
}

/** Sibling order: start time, untimed spans last, file order breaking ties. */
function before(spans: SpanInput[]): (a: number, b: number) => number {
  return (a, b) => {
    const x = spans[a].start;
    const y = spans[b].start;
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return a - b;
  };
}

/** Cuts every cycle of parent links at its earliest span (which becomes a root flagged `CYCLE`). */
function cutCycles(spans: SpanInput[], parent: Int32Array, flags: Uint8Array): void {
  const state = new Uint8Array(spans.length); // 0 new, 1 on the current walk, 2 done
  const order = before(spans);
  const walk: number[] = [];
  for (let i = 0; i < spans.length; i++) {
    walk.length = 0;
    let p = i;
    while (p >= 0 && state[p] === 0) {
      state[p] = 1;
      walk.push(p);
      p = parent[p];
    }
    if (p >= 0 && state[p] === 1) {
      const cycle = walk.slice(walk.indexOf(p));
      const first = cycle.reduce((a, b) => (order(a, b) <= 0 ? a : b));
      parent[first] = -1;
      flags[first] |= CYCLE;
    }
    for (const w of walk) state[w] = 2;
  }
}

/** Children lists (sorted) and the sorted roots. */
function childrenOf(spans: SpanInput[], parent: Int32Array): { kids: number[][]; roots: number[] } {
  const kids: number[][] = spans.map(() => []);
  const roots: number[] = [];
  parent.forEach((p, i) => {
    (p < 0 ? roots : kids[p]).push(i);
  });
  const order = before(spans);
  for (const k of kids) if (k.length > 1) k.sort(order);
  roots.sort(order);
  return { kids, roots };
}

/** Span indices in depth-first order with their depth, parent row and sibling position. */
function depthFirst(kids: number[][], roots: number[], n: number) {
  const order = new Int32Array(n);
  const depth = new Int32Array(n);
  const parentRow = new Int32Array(n);
  const end = new Int32Array(n);
  const pos = new Int32Array(n);
  const size = new Int32Array(n);
  // Stack of [span, depth, parent row, position, set size]; pushed in reverse so the first child comes first.
  const stack: number[][] = [];
  for (let r = roots.length - 1; r >= 0; r--) stack.push([roots[r], 0, -1, r + 1, roots.length]);
  let row = 0;
  const open: number[] = []; // rows whose subtree is still being written
  while (stack.length) {
    const [s, d, pr, ps, sz] = stack.pop()!;
    while (open.length && depth[open[open.length - 1]] >= d) end[open.pop()!] = row;
    order[row] = s;
    depth[row] = d;
    parentRow[row] = pr;
    pos[row] = ps;
    size[row] = sz;
    open.push(row);
    const k = kids[s];
    for (let c = k.length - 1; c >= 0; c--) stack.push([k[c], d + 1, row, c + 1, k.length]);
    row++;
  }
  for (const o of open) end[o] = row;
  return { order, depth, parentRow, end, pos, size };
}

/** Builds the tree's rows (see the module comment). */
export function buildSpanTable(spans: SpanInput[]): SpanTable {
  const n = spans.length;
  const flags0 = new Uint8Array(n);
  const parent = parentLinks(spans, flags0);
  cutCycles(spans, parent, flags0);
  const { kids, roots } = childrenOf(spans, parent);
  const dfs = depthFirst(kids, roots, n);
  let t0: bigint | null = null;
  for (const s of spans) if (s.start !== null && (t0 === null || s.start < t0)) t0 = s.start;
  const ms = (t: bigint | null) => (t === null || t0 === null ? Number.NaN : Number(t - t0) / 1e6);
  const pick = <T>(f: (s: SpanInput) => T) => Array.from(dfs.order, (i) => f(spans[i]));
  const startMs = Float64Array.from(dfs.order, (i) => ms(spans[i].start));
  const endMs = Float64Array.from(dfs.order, (i) => ms(spans[i].end));
  let totalMs = 0;
  for (let r = 0; r < n; r++) totalMs = Math.max(totalMs, endMs[r] || 0, startMs[r] || 0);
  const num = (v: number | null) => (v === null ? Number.NaN : v);
  return {
    count: n,
    spanId: pick((s) => s.spanId),
    name: pick((s) => s.name),
    kind: pick((s) => s.kind),
    model: pick((s) => s.model),
    error: pick((s) => s.error),
    opId: pick((s) => s.opId),
    depth: dfs.depth,
    parent: dfs.parentRow,
    end: dfs.end,
    pos: dfs.pos,
    size: dfs.size,
    startMs,
    durMs: Float64Array.from(startMs, (s, r) => endMs[r] - s),
    totalMs,
    status: Uint8Array.from(dfs.order, (i) => spans[i].status),
    flags: Uint8Array.from(dfs.order, (i) => flags0[i]),
    tokensIn: Float64Array.from(dfs.order, (i) => num(spans[i].tokensIn)),
    tokensOut: Float64Array.from(dfs.order, (i) => num(spans[i].tokensOut)),
  };
}
