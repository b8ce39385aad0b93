/**
 * The indexed in-memory graph: struct-of-arrays over the document's records.
 * Variables, operations and edges are numbered in file order; every query
 * ("ops touching v", "inputs of op", "versions of X") is an array lookup.
 * Values are the document's own strings — nothing large is copied; values stored as cuts of a
 * shared text are read through to their records.
 */
import {
  type EdgeRecord,
  fullNameOf,
  fullNodeIdOf,
  hasSharedValue,
  type JsonObject,
  type OperationRecord,
  SENTINEL,
  type SessionRecord,
  type TraceDocument,
  type VariableRecord,
} from '../trace/index.ts';

/** Compressed sparse rows: the items of row r are `items[offsets[r] .. offsets[r+1])`. */
export interface Csr {
  offsets: Int32Array;
  items: Int32Array;
}

/**
 * A trace indexed for queries (`buildGraph`): per-variable and per-op columns in file order, id → index
 * maps, edges as CSR rows per op and variable, execution and creation order, and version chains.
 */
export interface TraceGraph {
  doc: TraceDocument;
  sessions: SessionRecord[];
  // Variables (file order).
  vars: VariableRecord[];
  varId: string[]; // full_node_id, built from fields
  varFullName: string[];
  varValue: string[]; // always a string
  varCategory: string[];
  varCreatedAt: string[];
  varIndex: Map<string, number>;
  // Operations (file order).
  ops: OperationRecord[];
  opId: string[];
  opName: string[]; // op_name, '' when null
  opCategory: string[];
  opCreatedAt: string[];
  opIndex: Map<string, number>;
  // Edges that connect known records (file order); edges with dangling references are left out.
  edges: EdgeRecord[];
  edgeOp: Int32Array;
  edgeSrc: Int32Array;
  edgeDst: Int32Array;
  /** 1 for an edge an importer inferred rather than the trace recording it (`metadata.inferred`). */
  edgeInferred: Uint8Array;
  opEdges: Csr; // edges of each op
  varOutEdges: Csr; // edges leaving each variable
  varInEdges: Csr; // edges entering each variable
  /** Op indices in execution order: created_at, then file order. */
  opOrder: Int32Array;
  /** Position of each op in opOrder. */
  opRank: Int32Array;
  /** Variable indices in creation order. */
  varOrder: Int32Array;
  varRank: Int32Array;
  /** Version chains: each lineage lists variable indices by version, then file order. */
  lineages: Csr;
  lineageNames: string[];
  lineageIndex: Map<string, number>;
  varLineage: Int32Array;
}

function text(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : v == null ? fallback : JSON.stringify(v);
}

function isRecord<T>(v: unknown): v is T {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Groups `count` items into `rows` rows by `rowOf(item)`; keeps item order inside a row. */
function buildCsr(rows: number, count: number, rowOf: (item: number) => number): Csr {
  const offsets = new Int32Array(rows + 1);
  for (let i = 0; i < count; i++) {
    const r = rowOf(i);
    if (r >= 0) offsets[r + 1]++;
  }
  for (let r = 0; r < rows; r++) offsets[r + 1] += offsets[r];
  const fill = offsets.slice(0, rows);
  const items = new Int32Array(offsets[rows]);
  for (let i = 0; i < count; i++) {
    const r = rowOf(i);
    if (r >= 0) items[fill[r]++] = i;
  }
  return { offsets, items };
}

/** The items of row `r` of a CSR, as a view (no copy). */
export function row(csr: Csr, r: number): Int32Array {
  return csr.items.subarray(csr.offsets[r], csr.offsets[r + 1]);
}

/** Sorts indices 0..n-1 by key string, file order breaking ties (a stable sort on indices). */
function orderBy(keys: string[]): Int32Array {
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] <= keys[i];
  if (sorted) return Int32Array.from({ length: keys.length }, (_, i) => i);
  const idx = Array.from({ length: keys.length }, (_, i) => i);
  idx.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
  return Int32Array.from(idx);
}

function rankOf(order: Int32Array): Int32Array {
  const rank = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) rank[order[i]] = i;
  return rank;
}

/** Builds the graph of a validated document (see validateDocument). */
export function buildGraph(doc: TraceDocument): TraceGraph {
  const data = doc.data;
  const sessions = (data.sessions ?? []).filter((s) => isRecord<SessionRecord>(s));
  const vars = (data.nodes ?? []).filter((n) => isRecord<VariableRecord>(n));
  const ops = (data.operations ?? []).filter((o) => isRecord<OperationRecord>(o));
  const rawEdges = (data.edges ?? []).filter((e) => isRecord<EdgeRecord>(e));
  const v = varColumns(vars);
  const o = opColumns(ops);
  const e = edgeColumns(rawEdges, o.opIndex, v.varIndex);
  const lineage = lineageColumns(vars, v.varFullName);
  const nv = vars.length;
  const ne = e.edges.length;
  const opOrder = orderBy(o.opCreatedAt);
  const varOrder = orderBy(v.varCreatedAt);
  return {
    doc,
    sessions,
    vars,
    ...v,
    ops,
    ...o,
    ...e,
    opEdges: buildCsr(ops.length, ne, (i) => e.edgeOp[i]),
    varOutEdges: buildCsr(nv, ne, (i) => e.edgeSrc[i]),
    varInEdges: buildCsr(nv, ne, (i) => e.edgeDst[i]),
    opOrder,
    opRank: rankOf(opOrder),
    varOrder,
    varRank: rankOf(varOrder),
    ...lineage,
  };
}

type VarColumns = Pick<
  TraceGraph,
  'varId' | 'varFullName' | 'varValue' | 'varCategory' | 'varCreatedAt' | 'varIndex'
>;

/** The per-variable columns and the full_node_id → index map. */
function varColumns(vars: VariableRecord[]): VarColumns {
  const nv = vars.length;
  const c: VarColumns = {
    varId: new Array<string>(nv),
    varFullName: new Array<string>(nv),
    varValue: new Array<string>(nv),
    varCategory: new Array<string>(nv),
    varCreatedAt: new Array<string>(nv),
    varIndex: new Map<string, number>(),
  };
  let shared: Uint8Array | null = null;
  for (let i = 0; i < nv; i++) {
    const v = vars[i];
    c.varFullName[i] = fullNameOf(v.name, v.class_name);
    c.varId[i] = fullNodeIdOf(v.name, v.class_name, v.version);
    if (hasSharedValue(v)) {
      shared ??= new Uint8Array(nv);
      shared[i] = 1;
      c.varValue[i] = '';
    } else c.varValue[i] = text(v.value);
    c.varCategory[i] = text(v.category, 'variable');
    c.varCreatedAt[i] = text(v.created_at);
    c.varIndex.set(c.varId[i], i);
  }
  if (shared) c.varValue = readThrough(c.varValue, vars, shared);
  return c;
}

/**
 * The values column when some records' values are cuts of a shared text (`shareVersionTexts`):
 * those are read from the record at each access, never held here — a column of whole strings
 * would keep a copy of each (the long-context windows of a 100 MB trace: 88 MiB).
 */
function readThrough(values: string[], vars: VariableRecord[], shared: Uint8Array): string[] {
  return new Proxy(values, {
    get(target, key, receiver) {
      if (typeof key === 'string') {
        const i = Number(key);
        if (shared[i] === 1) return text(vars[i].value);
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

type OpColumns = Pick<TraceGraph, 'opId' | 'opName' | 'opCategory' | 'opCreatedAt' | 'opIndex'>;

/** The per-op columns and the op_id → index map. */
function opColumns(ops: OperationRecord[]): OpColumns {
  const no = ops.length;
  const c: OpColumns = {
    opId: new Array<string>(no),
    opName: new Array<string>(no),
    opCategory: new Array<string>(no),
    opCreatedAt: new Array<string>(no),
    opIndex: new Map<string, number>(),
  };
  for (let i = 0; i < no; i++) {
    const o = ops[i];
    c.opId[i] = o.op_id;
    c.opName[i] = text(o.op_name);
    c.opCategory[i] = text(o.category, 'operation');
    c.opCreatedAt[i] = text(o.created_at);
    c.opIndex.set(o.op_id, i);
  }
  return c;
}

/** The edges whose op and both variables exist, as columns of indices. */
function edgeColumns(
  rawEdges: EdgeRecord[],
  opIndex: Map<string, number>,
  varIndex: Map<string, number>,
): Pick<TraceGraph, 'edges' | 'edgeOp' | 'edgeSrc' | 'edgeDst' | 'edgeInferred'> {
  const edges: EdgeRecord[] = [];
  const eo: number[] = [];
  const es: number[] = [];
  const ed: number[] = [];
  const ei: number[] = [];
  for (const e of rawEdges) {
    const o = opIndex.get(e.op_id);
    const s = varIndex.get(e.source_full_node_id);
    const t = varIndex.get(e.target_full_node_id);
    if (o === undefined || s === undefined || t === undefined) continue;
    edges.push(e);
    eo.push(o);
    es.push(s);
    ed.push(t);
    ei.push(isRecord<Record<string, unknown>>(e.metadata) && e.metadata.inferred ? 1 : 0);
  }
  return {
    edges,
    edgeOp: Int32Array.from(eo),
    edgeSrc: Int32Array.from(es),
    edgeDst: Int32Array.from(ed),
    edgeInferred: Uint8Array.from(ei),
  };
}

/** Version chains: variables grouped by full name, each chain by version, then file order. */
function lineageColumns(
  vars: VariableRecord[],
  varFullName: string[],
): Pick<TraceGraph, 'lineages' | 'lineageNames' | 'lineageIndex' | 'varLineage'> {
  const nv = vars.length;
  const lineageIndex = new Map<string, number>();
  const lineageNames: string[] = [];
  const varLineage = new Int32Array(nv);
  for (let i = 0; i < nv; i++) {
    let l = lineageIndex.get(varFullName[i]);
    if (l === undefined) {
      l = lineageNames.length;
      lineageIndex.set(varFullName[i], l);
      lineageNames.push(varFullName[i]);
    }
    varLineage[i] = l;
  }
  const lineages = buildCsr(lineageNames.length, nv, (i) => varLineage[i]);
  for (let l = 0; l < lineageNames.length; l++) {
    const chain = row(lineages, l);
    // Already in file order; sort by version only when the file lists versions out of order.
    for (let k = 1; k < chain.length; k++) {
      if (vars[chain[k]].version < vars[chain[k - 1]].version) {
        chain.sort((a, b) => vars[a].version - vars[b].version || a - b);
        break;
      }
    }
  }
  return { lineages, lineageNames, lineageIndex, varLineage };
}

/**
 * Whether variable `v` is the toolkit's sentinel (category `sentinel` or `COMMENT:NONE@1`), which carries
 * no data.
 */
export function isSentinelVar(g: TraceGraph, v: number): boolean {
  return g.varCategory[v] === SENTINEL.category || g.varId[v] === SENTINEL.variable;
}

/**
 * Whether op `o` is the toolkit's sentinel op (category `sentinel` or `__none_op__`), which does no work
 * of the memory system.
 */
export function isSentinelOp(g: TraceGraph, o: number): boolean {
  return g.opCategory[o] === SENTINEL.category || g.opId[o] === SENTINEL.operation;
}

/** A variable's metadata object (`{}` when it is missing or not an object). */
export function varMetadata(g: TraceGraph, v: number): JsonObject {
  const m = g.vars[v].metadata;
  return isRecord<JsonObject>(m) ? m : {};
}

/** An op's metadata object (`{}` when it is missing or not an object). */
export function opMetadata(g: TraceGraph, o: number): JsonObject {
  const m = g.ops[o].metadata;
  return isRecord<JsonObject>(m) ? m : {};
}
