/**
 * Spans → the rows of a span tree / waterfall, as columns (cheap to send from the engine
 * worker and to window over): one row per span in depth-first order, children after their
 * parent ordered by start time (file order breaking ties, untimed spans last). A span whose
 * parent is not in the file is a root marked `ORPHAN`; parent links that close a cycle are
 * refused: the cycle is cut at its earliest span, which becomes a root marked `CYCLE`.
 */

import { type PackedStrings, packStrings } from './packed.ts';

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
  /** String columns, packed (read a row's with `cell`). */
  spanId: PackedStrings;
  name: PackedStrings;
  kind: PackedStrings;
  model: PackedStrings;
  error: PackedStrings;
  /** The op of each span ('' for a container span). */
  opId: PackedStrings;
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
  // Span ids by trace id (no joined keys to build and hash: one trace is the common case).
  const byTrace = new Map<string, Map<string, number>>();
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    let ids = byTrace.get(s.traceId);
    if (!ids) {
      ids = new Map();
      byTrace.set(s.traceId, ids);
    }
    ids.set(s.spanId, i);
  }
  const parent = new Int32Array(spans.length).fill(-1);
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    if (!s.parentSpanId) continue;
    const p = byTrace.get(s.traceId)?.get(s.parentSpanId);
    if (p === undefined) flags[i] |= ORPHAN;
    else parent[i] = p;
  }
  return parent;
}

/** Sibling order: start time (`at`, NaN when unknown: last), file order breaking ties. */
function before(at: Float64Array): (a: number, b: number) => number {
  return (a, b) => {
    const x = at[a];
    const y = at[b];
    if (x === y) return a - b;
    if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1;
    if (Number.isNaN(y)) return -1;
    return x < y ? -1 : 1;
  };
}

/** Cuts every cycle of parent links at its earliest span (which becomes a root flagged `CYCLE`). */
function cutCycles(at: Float64Array, parent: Int32Array, flags: Uint8Array): void {
  const state = new Uint8Array(at.length); // 0 new, 1 on the current walk, 2 done
  const order = before(at);
  const walk: number[] = [];
  for (let i = 0; i < at.length; i++) {
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
function childrenOf(at: Float64Array, parent: Int32Array): { kids: number[][]; roots: number[] } {
  const kids: number[][] = Array.from({ length: at.length }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < parent.length; i++) (parent[i] < 0 ? roots : kids[parent[i]]).push(i);
  const order = before(at);
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

/** Milliseconds after the earliest start (NaN when unknown); exact to the nanosecond for spans within 100 days. */
function relativeMs(times: (bigint | null)[], t0: bigint | null): Float64Array {
  const out = new Float64Array(times.length);
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    out[i] = t === null || t0 === null ? Number.NaN : Number(t - t0) / 1e6;
  }
  return out;
}

/** `column(order[r])` for each row r, packed. */
function permute(order: Int32Array, column: (i: number) => string): PackedStrings {
  const out: string[] = new Array(order.length);
  for (let r = 0; r < order.length; r++) out[r] = column(order[r]);
  return packStrings(out);
}

/** Builds the tree's rows (see the module comment). */
export function buildSpanTable(spans: SpanInput[]): SpanTable {
  const n = spans.length;
  let t0: bigint | null = null;
  for (const s of spans) if (s.start !== null && (t0 === null || s.start < t0)) t0 = s.start;
  const startAt = relativeMs(
    spans.map((s) => s.start),
    t0,
  );
  const endAt = relativeMs(
    spans.map((s) => s.end),
    t0,
  );
  const flags0 = new Uint8Array(n);
  const parent = parentLinks(spans, flags0);
  cutCycles(startAt, parent, flags0);
  const { kids, roots } = childrenOf(startAt, parent);
  const dfs = depthFirst(kids, roots, n);
  const o = dfs.order;
  const startMs = Float64Array.from(o, (i) => startAt[i]);
  const durMs = Float64Array.from(o, (i) => endAt[i] - startAt[i]);
  let totalMs = 0;
  for (let i = 0; i < n; i++) totalMs = Math.max(totalMs, endAt[i] || 0, startAt[i] || 0);
  return {
    count: n,
    spanId: permute(o, (i) => spans[i].spanId),
    name: permute(o, (i) => spans[i].name),
    kind: permute(o, (i) => spans[i].kind),
    model: permute(o, (i) => spans[i].model),
    error: permute(o, (i) => spans[i].error),
    opId: permute(o, (i) => spans[i].opId),
    depth: dfs.depth,
    parent: dfs.parentRow,
    end: dfs.end,
    pos: dfs.pos,
    size: dfs.size,
    startMs,
    durMs,
    totalMs,
    status: Uint8Array.from(o, (i) => spans[i].status),
    flags: Uint8Array.from(o, (i) => flags0[i]),
    tokensIn: Float64Array.from(o, (i) => spans[i].tokensIn ?? Number.NaN),
    tokensOut: Float64Array.from(o, (i) => spans[i].tokensOut ?? Number.NaN),
  };
}
