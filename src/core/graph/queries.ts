/** Structural queries over a TraceGraph. All return variable or op indices. */
import { row, type TraceGraph } from './graph.ts';

/** What a variable is to an op (see `opStructure`). */
export type Role = 'input' | 'output' | 'intermediate';

/** An op's variables by role, derived from its edges. */
export interface OpStructure {
  inputs: number[];
  intermediates: number[];
  outputs: number[];
}

/**
 * An op has no input/output lists: inputs are sources of its edges that are not
 * targets of its edges, outputs the reverse, the rest intermediate. File order of
 * first appearance is kept.
 */
export function opStructure(g: TraceGraph, op: number): OpStructure {
  const seen = new Map<number, number>(); // var → bit 1 source, bit 2 target
  for (const e of row(g.opEdges, op)) {
    seen.set(g.edgeSrc[e], (seen.get(g.edgeSrc[e]) ?? 0) | 1);
    seen.set(g.edgeDst[e], (seen.get(g.edgeDst[e]) ?? 0) | 2);
  }
  const out: OpStructure = { inputs: [], intermediates: [], outputs: [] };
  for (const [v, bits] of seen) {
    if (bits === 1) out.inputs.push(v);
    else if (bits === 2) out.outputs.push(v);
    else out.intermediates.push(v);
  }
  return out;
}

/** The role of variable `v` in an op, or null when the op does not touch it. */
export function roleOf(s: OpStructure, v: number): Role | null {
  if (s.inputs.includes(v)) return 'input';
  if (s.outputs.includes(v)) return 'output';
  if (s.intermediates.includes(v)) return 'intermediate';
  return null;
}

/** Every variable of an op (inputs, intermediates, outputs). */
export function opVariables(g: TraceGraph, op: number): number[] {
  const s = opStructure(g, op);
  return [...s.inputs, ...s.intermediates, ...s.outputs];
}

/** Ops with an edge at variable v, in execution order. */
export function opsTouching(g: TraceGraph, v: number): number[] {
  const ops = new Set<number>();
  for (const e of row(g.varOutEdges, v)) ops.add(g.edgeOp[e]);
  for (const e of row(g.varInEdges, v)) ops.add(g.edgeOp[e]);
  return [...ops].sort((a, b) => g.opRank[a] - g.opRank[b]);
}

/** Ops that write v (v is a target of one of their edges). */
export function producersOf(g: TraceGraph, v: number): number[] {
  return [...new Set(Array.from(row(g.varInEdges, v), (e) => g.edgeOp[e]))];
}

/** Ops that read v (v is a source of one of their edges). */
export function consumersOf(g: TraceGraph, v: number): number[] {
  return [...new Set(Array.from(row(g.varOutEdges, v), (e) => g.edgeOp[e]))];
}

/** The versions of v's logical variable, in version order. */
export function lineageOf(g: TraceGraph, v: number): Int32Array {
  return row(g.lineages, g.varLineage[v]);
}

/** The versions of a logical variable by full name (empty when unknown). */
export function versionsOf(g: TraceGraph, fullName: string): Int32Array {
  const l = g.lineageIndex.get(fullName);
  return l === undefined ? new Int32Array(0) : row(g.lineages, l);
}

/** The last variable inserted with this full name ("latest version" in the toolkit's sense). */
export function latestVersion(g: TraceGraph, fullName: string): number | undefined {
  const chain = versionsOf(g, fullName);
  if (chain.length === 0) return undefined;
  let last = chain[0];
  for (const v of chain) if (v > last) last = v;
  return last;
}

const lineagePositions = new WeakMap<TraceGraph, Int32Array>();

/** Each variable's position in its lineage, computed once per graph (a 50k-version chain made indexOf quadratic). */
function lineagePosition(g: TraceGraph): Int32Array {
  let pos = lineagePositions.get(g);
  if (!pos) {
    pos = new Int32Array(g.varValue.length).fill(-1);
    const { offsets, items } = g.lineages;
    for (let l = 0; l + 1 < offsets.length; l++)
      for (let i = offsets[l]; i < offsets[l + 1]; i++) pos[items[i]] = i - offsets[l];
    lineagePositions.set(g, pos);
  }
  return pos;
}

/** Next/previous version of v in its lineage, or -1. */
export function nextVersion(g: TraceGraph, v: number): number {
  const chain = lineageOf(g, v);
  const k = lineagePosition(g)[v];
  return k >= 0 && k + 1 < chain.length ? chain[k + 1] : -1;
}
/** Previous version of v in its lineage, or -1. */
export function previousVersion(g: TraceGraph, v: number): number {
  const chain = lineageOf(g, v);
  const k = lineagePosition(g)[v];
  return k > 0 ? chain[k - 1] : -1;
}

/** Options of `closure`: the direction, a depth limit, and whether version chains connect. */
export interface ClosureOptions {
  direction: 'downstream' | 'upstream';
  /** Hops (edges or version steps) to follow; Infinity for the whole closure. */
  maxDepth?: number;
  /**
   * Treat consecutive versions as connected even without an edge (non-strict
   * mutations leave none). Default true.
   */
  followLineage?: boolean;
}

/**
 * What `closure` reached: variables in BFS order (starts first), each one's depth, and the ops crossed in
 * execution order.
 */
export interface Closure {
  vars: number[]; // in BFS order, starts included
  depth: Map<number, number>;
  ops: number[]; // ops crossed, in execution order
}

/** Variables reachable from the start variables along edges (and version chains). */
export function closure(g: TraceGraph, start: Iterable<number>, options: ClosureOptions): Closure {
  const down = options.direction === 'downstream';
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const followLineage = options.followLineage ?? true;
  const depth = new Map<number, number>();
  const ops = new Set<number>();
  const queue: number[] = [];
  for (const v of start) {
    if (!depth.has(v)) {
      depth.set(v, 0);
      queue.push(v);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    const d = depth.get(v)!;
    if (d >= maxDepth) continue;
    const visit = (w: number) => {
      if (w >= 0 && !depth.has(w)) {
        depth.set(w, d + 1);
        queue.push(w);
      }
    };
    for (const e of row(down ? g.varOutEdges : g.varInEdges, v)) {
      ops.add(g.edgeOp[e]);
      visit(down ? g.edgeDst[e] : g.edgeSrc[e]);
    }
    if (followLineage) visit(down ? nextVersion(g, v) : previousVersion(g, v));
  }
  return { vars: queue, depth, ops: [...ops].sort((a, b) => g.opRank[a] - g.opRank[b]) };
}

const sessionNames = new WeakMap<TraceGraph, Map<string, string>>();

/** An op's session: its id ('' when it has none) and the session's name when the trace gives one. */
export function opSession(g: TraceGraph, o: number): { id: string; name: string | null } {
  let names = sessionNames.get(g);
  if (!names) {
    names = new Map();
    for (const s of g.sessions)
      if (typeof s.session_name === 'string' && s.session_name) names.set(s.session_id, s.session_name);
    sessionNames.set(g, names);
  }
  const id = typeof g.ops[o].session_id === 'string' ? g.ops[o].session_id : '';
  return { id, name: names.get(id) ?? null };
}

/** An op's own comment ("UPDATE mem-6"), null when it has none. */
export function opComment(g: TraceGraph, o: number): string | null {
  const c = g.ops[o].comment;
  return typeof c === 'string' && c ? c : null;
}

/** An op as every view names it: name, kind (category), step, session — the id for hover and copy. */
export interface OpSummary {
  id: string;
  name: string;
  category: string;
  createdAt: string;
  /** Position in execution order (the step shown is rank + 1). */
  rank: number;
  /** The op's session id ('' when it has none). */
  session: string;
  /** The session's name when the trace gives one. */
  sessionName: string | null;
  /** The op's own comment ("UPDATE mem-6"), when it has one. */
  comment: string | null;
}

/** An op's summary: its name, kind, step, session and comment. */
export function opSummary(g: TraceGraph, o: number): OpSummary {
  const session = opSession(g, o);
  return {
    id: g.opId[o],
    name: g.opName[o],
    category: g.opCategory[o],
    createdAt: g.opCreatedAt[o],
    rank: g.opRank[o],
    session: session.id,
    sessionName: session.name,
    comment: opComment(g, o),
  };
}
