/**
 * The whole-graph time-ordered lane layout.
 *
 * x is execution order: an op sits at column `opRank[op]`. y is a lane per logical
 * variable (a lineage: all versions of one `full_name`), so a version chain is one
 * line. An op is a vertical connector at its column joining the lanes of its
 * variables. Sentinel variables and ops are hidden (row / column -1).
 *
 * Everything is numeric and typed so the layout can be computed in a worker and
 * transferred (`laneLayoutTransferables`). O(V + E + L log L) for L lanes.
 */
import { isSentinelOp, isSentinelVar, row, type TraceGraph } from '../graph/graph.ts';

/** Role bits of a variable inside one op: 1 input, 2 output, 3 intermediate. */
export const ROLE_INPUT = 1;
export const ROLE_OUTPUT = 2;
export const ROLE_INTERMEDIATE = 3;

export interface LaneLayoutOptions {
  /**
   * Share a row between lanes whose lifetimes do not overlap (greedy interval
   * packing, lowest free row first). Keeps a lane per logical variable but makes
   * the drawing far shorter on graphs with many short-lived variables. Default false.
   */
  pack?: boolean;
  /** Columns of empty space required between two lanes packed into one row. Default 1. */
  packGap?: number;
}

export interface LaneLayout {
  /** x extent: columns 0 .. columns-1 (one per op, in execution order). */
  columns: number;
  /** Visible lanes (logical variables). */
  lanes: number;
  /** Drawn rows (= lanes unless packed). */
  rows: number;

  /** Column of each op (its execution rank), -1 for hidden (sentinel) ops. */
  opColumn: Int32Array;
  /** Op at each column, -1 when the op there is hidden. */
  columnOp: Int32Array;
  /** Vertical extent of each op's connector in rows; -1 when it touches no visible variable. */
  opRowMin: Int32Array;
  opRowMax: Int32Array;
  /** Visible variables of each op (unique, first appearance), CSR with a role per item. */
  opVarOffsets: Int32Array;
  opVarItems: Int32Array;
  opVarRole: Uint8Array;
  opCategory: Uint16Array;

  /** Lane of each variable, -1 when hidden. */
  varLane: Int32Array;
  /** Row of each variable, -1 when hidden. */
  varRow: Int32Array;
  /** Where a version starts and ends on its lane, in columns (halves allowed). */
  varX0: Float64Array;
  varX1: Float64Array;
  varCategory: Uint16Array;

  /** Lineage index shown on each lane, in lane order (lanes sorted by first appearance). */
  laneLineage: Int32Array;
  laneRow: Int32Array;
  laneX0: Float64Array;
  laneX1: Float64Array;

  /** Variables of each row sorted by x (x0 and x1 both non-decreasing), for culling. */
  rowVarOffsets: Int32Array;
  rowVarItems: Int32Array;

  /** Category names indexed by opCategory / varCategory. */
  categories: string[];
  /** Labels and ids, so a transferred layout can be drawn and hit-tested alone. */
  laneName: string[];
  opId: string[];
  opName: string[];
  varId: string[];
}

/** Column a record created at `createdAt` falls before, by binary search over op times. */
function columnOfTime(g: TraceGraph, createdAt: string): number {
  let lo = 0;
  let hi = g.opOrder.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (g.opCreatedAt[g.opOrder[mid]] < createdAt) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function categoryTable(): { names: string[]; code: (name: string) => number } {
  const names: string[] = [];
  const index = new Map<string, number>();
  return {
    names,
    code(name) {
      let c = index.get(name);
      if (c === undefined) {
        c = names.length;
        index.set(name, c);
        names.push(name);
      }
      return c;
    },
  };
}

/** Lays out the whole graph as time-ordered lanes (see the module comment). */
export function laneLayout(g: TraceGraph, options: LaneLayoutOptions = {}): LaneLayout {
  const nv = g.varId.length;
  const no = g.opId.length;
  const cats = categoryTable();

  // Ops: column = execution rank, sentinels hidden.
  const opColumn = new Int32Array(no);
  const columnOp = new Int32Array(no);
  const opCategory = new Uint16Array(no);
  for (let c = 0; c < no; c++) {
    const o = g.opOrder[c];
    const hidden = isSentinelOp(g, o);
    opColumn[o] = hidden ? -1 : c;
    columnOp[c] = hidden ? -1 : o;
    opCategory[o] = cats.code(g.opCategory[o]);
  }

  // Variables: first producing column, first / last column touching it.
  const hiddenVar = new Uint8Array(nv);
  const varCategory = new Uint16Array(nv);
  const x0 = new Float64Array(nv);
  const x1 = new Float64Array(nv);
  const useMax = new Float64Array(nv);
  for (let v = 0; v < nv; v++) {
    hiddenVar[v] = isSentinelVar(g, v) ? 1 : 0;
    varCategory[v] = cats.code(g.varCategory[v]);
    let prod = Number.POSITIVE_INFINITY;
    let cons = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const e of row(g.varInEdges, v)) {
      const c = opColumn[g.edgeOp[e]];
      if (c < 0) continue;
      if (c < prod) prod = c;
      if (c > last) last = c;
    }
    for (const e of row(g.varOutEdges, v)) {
      const c = opColumn[g.edgeOp[e]];
      if (c < 0) continue;
      if (c < cons) cons = c;
      if (c > last) last = c;
    }
    // A produced version starts at its producer; an input-only one just before its first reader;
    // one no op touches at the place its timestamp falls.
    x0[v] = prod !== Number.POSITIVE_INFINITY ? prod : cons !== Number.POSITIVE_INFINITY ? cons - 0.5 : 0;
    if (prod === Number.POSITIVE_INFINITY && cons === Number.POSITIVE_INFINITY) {
      x0[v] = columnOfTime(g, g.varCreatedAt[v]) - 0.5;
    }
    useMax[v] = last;
  }

  // Lanes: one per lineage with a visible version; versions made monotone along the chain.
  const nl = g.lineageNames.length;
  const lineageLane = new Int32Array(nl).fill(-1);
  const laneLineageTmp: number[] = [];
  const laneStart: number[] = [];
  const laneEnd: number[] = [];
  for (let l = 0; l < nl; l++) {
    const chain = row(g.lineages, l);
    let prev = -1;
    for (let k = 0; k < chain.length; k++) {
      const v = chain[k];
      if (hiddenVar[v]) continue;
      if (prev >= 0) {
        if (x0[v] < x0[prev]) x0[v] = x0[prev];
        x1[prev] = x0[v];
      }
      prev = v;
    }
    if (prev < 0) continue;
    x1[prev] = Math.max(useMax[prev], x0[prev] + 0.5);
    let first = -1;
    for (let k = 0; k < chain.length && first < 0; k++) if (!hiddenVar[chain[k]]) first = chain[k];
    lineageLane[l] = laneLineageTmp.length;
    laneLineageTmp.push(l);
    laneStart.push(x0[first]);
    laneEnd.push(x1[prev]);
  }

  // Lane order: first appearance, lineage index breaking ties (keys are exact in a double).
  const lanes = laneLineageTmp.length;
  const keys = new Float64Array(lanes);
  for (let i = 0; i < lanes; i++) keys[i] = (laneStart[i] * 2 + 2) * 2 ** 22 + i;
  keys.sort();
  const laneLineage = new Int32Array(lanes);
  const laneX0 = new Float64Array(lanes);
  const laneX1 = new Float64Array(lanes);
  for (let k = 0; k < lanes; k++) {
    const i = keys[k] % 2 ** 22;
    laneLineage[k] = laneLineageTmp[i];
    laneX0[k] = laneStart[i];
    laneX1[k] = laneEnd[i];
    lineageLane[laneLineage[k]] = k;
  }

  const laneRow = options.pack ? packRows(laneX0, laneX1, options.packGap ?? 1) : identityRows(lanes);
  let rows = 0;
  for (let k = 0; k < lanes; k++) if (laneRow[k] + 1 > rows) rows = laneRow[k] + 1;

  const varLane = new Int32Array(nv).fill(-1);
  const varRow = new Int32Array(nv).fill(-1);
  for (let v = 0; v < nv; v++) {
    if (hiddenVar[v]) continue;
    varLane[v] = lineageLane[g.varLineage[v]];
    varRow[v] = laneRow[varLane[v]];
  }

  // Row index: lanes in lane order are sorted by start and never overlap inside a row, so
  // appending each lane's chain in order keeps every row sorted by x.
  const rowVarOffsets = new Int32Array(rows + 1);
  for (let v = 0; v < nv; v++) if (varRow[v] >= 0) rowVarOffsets[varRow[v] + 1]++;
  for (let r = 0; r < rows; r++) rowVarOffsets[r + 1] += rowVarOffsets[r];
  const fill = rowVarOffsets.slice(0, rows);
  const rowVarItems = new Int32Array(rowVarOffsets[rows]);
  for (let k = 0; k < lanes; k++) {
    const r = laneRow[k];
    for (const v of row(g.lineages, laneLineage[k])) if (!hiddenVar[v]) rowVarItems[fill[r]++] = v;
  }

  // Op connectors: unique visible variables with their role, and the rows they span.
  const opVarOffsets = new Int32Array(no + 1);
  const items: number[] = [];
  const roles: number[] = [];
  const opRowMin = new Int32Array(no).fill(-1);
  const opRowMax = new Int32Array(no).fill(-1);
  const slot = new Int32Array(nv).fill(-1); // position in `items` for the current op
  for (let o = 0; o < no; o++) {
    const begin = items.length;
    const add = (v: number, bit: number) => {
      if (hiddenVar[v]) return;
      if (slot[v] >= begin) {
        roles[slot[v]] |= bit;
        return;
      }
      slot[v] = items.length;
      items.push(v);
      roles.push(bit);
    };
    for (const e of row(g.opEdges, o)) {
      add(g.edgeSrc[e], ROLE_INPUT);
      add(g.edgeDst[e], ROLE_OUTPUT);
    }
    opVarOffsets[o + 1] = items.length;
    if (opColumn[o] < 0) continue;
    for (let i = begin; i < items.length; i++) {
      const r = varRow[items[i]];
      if (opRowMin[o] < 0 || r < opRowMin[o]) opRowMin[o] = r;
      if (r > opRowMax[o]) opRowMax[o] = r;
    }
  }

  const laneName = new Array<string>(lanes);
  for (let k = 0; k < lanes; k++) laneName[k] = g.lineageNames[laneLineage[k]];

  return {
    columns: no,
    lanes,
    rows,
    opColumn,
    columnOp,
    opRowMin,
    opRowMax,
    opVarOffsets,
    opVarItems: Int32Array.from(items),
    opVarRole: Uint8Array.from(roles),
    opCategory,
    varLane,
    varRow,
    varX0: x0,
    varX1: x1,
    varCategory,
    laneLineage,
    laneRow,
    laneX0,
    laneX1,
    rowVarOffsets,
    rowVarItems,
    categories: cats.names,
    laneName,
    opId: g.opId,
    opName: g.opName,
    varId: g.varId,
  };
}

function identityRows(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * Greedy interval packing of lanes (sorted by start) into rows: each lane takes the
 * lowest-numbered row that is free by its start. Two binary heaps; O(L log L).
 */
export function packRows(start: Float64Array, end: Float64Array, gap: number): Int32Array {
  const n = start.length;
  const rowOf = new Int32Array(n);
  const busy = new MinHeap(); // key: end of the lane occupying the row
  const free = new MinHeap(); // key: row number
  let rows = 0;
  for (let i = 0; i < n; i++) {
    while (busy.size > 0 && busy.peekKey() + gap < start[i]) free.push(busy.peekValue(), busy.pop());
    const r = free.size > 0 ? free.pop() : rows++;
    rowOf[i] = r;
    busy.push(end[i], r);
  }
  return rowOf;
}

/** A binary min-heap of (key, value) pairs; pop returns the value. */
class MinHeap {
  private keys: number[] = [];
  private values: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  peekKey(): number {
    return this.keys[0];
  }
  peekValue(): number {
    return this.values[0];
  }
  push(key: number, value: number): void {
    const k = this.keys;
    const v = this.values;
    let i = k.length;
    k.push(key);
    v.push(value);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (k[p] <= key) break;
      k[i] = k[p];
      v[i] = v[p];
      i = p;
    }
    k[i] = key;
    v[i] = value;
  }
  pop(): number {
    const k = this.keys;
    const v = this.values;
    const top = v[0];
    const lastK = k.pop()!;
    const lastV = v.pop()!;
    const n = k.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && k[c + 1] < k[c]) c++;
      if (k[c] >= lastK) break;
      k[i] = k[c];
      v[i] = v[c];
      i = c;
    }
    k[i] = lastK;
    v[i] = lastV;
    return top;
  }
}

/** The buffers of a layout, for `postMessage(layout, transferables)` / comlink `transfer`. */
export function laneLayoutTransferables(l: LaneLayout): ArrayBuffer[] {
  const arrays = [
    l.opColumn,
    l.columnOp,
    l.opRowMin,
    l.opRowMax,
    l.opVarOffsets,
    l.opVarItems,
    l.opVarRole,
    l.opCategory,
    l.varLane,
    l.varRow,
    l.varX0,
    l.varX1,
    l.varCategory,
    l.laneLineage,
    l.laneRow,
    l.laneX0,
    l.laneX1,
    l.rowVarOffsets,
    l.rowVarItems,
  ];
  return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** Rows of the lanes spanned by an op's connector, or null when it is hidden. */
export function opSpan(l: LaneLayout, op: number): { column: number; rowMin: number; rowMax: number } | null {
  if (l.opColumn[op] < 0 || l.opRowMin[op] < 0) return null;
  return { column: l.opColumn[op], rowMin: l.opRowMin[op], rowMax: l.opRowMax[op] };
}

/** Index of the first variable in row r (a position in rowVarItems) whose x1 ≥ x. */
export function firstInRow(l: LaneLayout, r: number, x: number): number {
  let lo = l.rowVarOffsets[r];
  let hi = l.rowVarOffsets[r + 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (l.varX1[l.rowVarItems[mid]] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
