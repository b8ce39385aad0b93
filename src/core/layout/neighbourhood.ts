/**
 * The graph around one op or variable (or a case's few seeds), as a small bipartite
 * graph of variables and ops ready for `layeredLayout`: input → op → output, and
 * version → next version where no shown op links them. Sentinels are left out.
 */
import { isSentinelOp, isSentinelVar, row, type TraceGraph } from '../graph/index.ts';
import { type LayeredLayout, type LayeredOptions, layeredLayout } from './layered.ts';

/** `Neighbourhood.kind` of a variable node. */
export const NODE_VAR = 0;
/** `Neighbourhood.kind` of an op node. */
export const NODE_OP = 1;
/** `Neighbourhood.edgeKind` of a recorded data edge (input → op → output). */
export const EDGE_DATA = 0;
/** `Neighbourhood.edgeKind` of a version → next-version link where no shown op connects them. */
export const EDGE_LINEAGE = 1;
/** A data edge the importer inferred (`metadata.inferred`, e.g. from OpenTelemetry spans), not recorded. */
export const EDGE_INFERRED = 2;

/** Where a neighbourhood starts: ops and/or variables (graph indices). */
export interface NeighbourhoodSeeds {
  ops?: Iterable<number>;
  vars?: Iterable<number>;
}

/**
 * Options of `neighbourhood`: hops, node limit, version chains, and when a shared constant stays
 * collapsed.
 */
export interface NeighbourhoodOptions {
  /** Hops from the seeds (op → its variable or variable → its op counts one). Default 2. */
  depth?: number;
  /** Stop adding nodes beyond this many (nearest first). Default 150. */
  maxNodes?: number;
  /** Step along version chains too (a version to the previous / next one). Default true. */
  lineage?: boolean;
  /**
   * A shared constant — a variable no op wrote, or a prompt / config, read by more than
   * this many ops — is drawn but not expanded (its readers would flood the drawing with
   * sibling ops). Default 4; Infinity expands everything.
   */
  sharedReaders?: number;
}

/**
 * A neighbourhood as a small local graph: per local node its kind, graph index, depth and time key; per
 * edge its ends and kind.
 */
export interface Neighbourhood {
  /** NODE_VAR or NODE_OP per local node. */
  kind: Uint8Array;
  /** Graph index (variable or op) of each local node. */
  index: Int32Array;
  /** Hops from the nearest seed. */
  depth: Int32Array;
  edgeSrc: Int32Array;
  edgeDst: Int32Array;
  /** EDGE_DATA, EDGE_LINEAGE or EDGE_INFERRED per edge. */
  edgeKind: Uint8Array;
  /** Execution-time key of each node (op rank; a variable just after its producer). */
  time: Float64Array;
  /** Ops reading each variable that was collapsed as a shared constant (0: not collapsed). */
  shared: Int32Array;
  /** True when maxNodes cut the neighbourhood. */
  truncated: boolean;
}

const CONSTANT_CATEGORIES = /(^|[\s&])(prompt|config|configuration|setting)s?($|[\s&])/i;

/** The nodes found by the search, in order of discovery, and where each graph index landed. */
interface Collected {
  kind: number[];
  index: number[];
  depth: number[];
  shared: number[];
  varLocal: Map<number, number>;
  opLocal: Map<number, number>;
  truncated: boolean;
}

/** Readers of v when it is a shared constant to leave unexpanded (more than `limit` of them), else 0. */
function constantReaders(g: TraceGraph, v: number, limit: number): number {
  const readers = new Set<number>();
  for (const e of row(g.varOutEdges, v)) readers.add(g.edgeOp[e]);
  if (readers.size <= limit) return 0;
  const written = g.varInEdges.offsets[v + 1] > g.varInEdges.offsets[v];
  return !written || CONSTANT_CATEGORIES.test(g.varCategory[v]) ? readers.size : 0;
}

/** Breadth-first from the seeds, nearest first, until `depth` hops or `maxNodes` nodes. */
function collectNodes(g: TraceGraph, seeds: NeighbourhoodSeeds, options: NeighbourhoodOptions): Collected {
  const maxDepth = options.depth ?? 2;
  const maxNodes = options.maxNodes ?? 150;
  const followLineage = options.lineage ?? true;
  const sharedReaders = options.sharedReaders ?? 4;
  const c: Collected = {
    kind: [],
    index: [],
    depth: [],
    shared: [],
    varLocal: new Map(),
    opLocal: new Map(),
    truncated: false,
  };
  const { kind, index, depth, shared } = c;
  const add = (k: number, i: number, d: number): void => {
    const map = k === NODE_VAR ? c.varLocal : c.opLocal;
    if (map.has(i)) return;
    if ((k === NODE_VAR && isSentinelVar(g, i)) || (k === NODE_OP && isSentinelOp(g, i))) return;
    if (kind.length >= maxNodes) {
      c.truncated = true;
      return;
    }
    map.set(i, kind.length);
    kind.push(k);
    index.push(i);
    depth.push(d);
    shared.push(0);
  };
  for (const o of seeds.ops ?? []) add(NODE_OP, o, 0);
  for (const v of seeds.vars ?? []) add(NODE_VAR, v, 0);
  for (let h = 0; h < kind.length; h++) {
    const d = depth[h];
    if (d >= maxDepth) continue;
    const i = index[h];
    if (kind[h] === NODE_OP) {
      for (const e of row(g.opEdges, i)) {
        add(NODE_VAR, g.edgeSrc[e], d + 1);
        add(NODE_VAR, g.edgeDst[e], d + 1);
      }
      continue;
    }
    // A shared constant that is not a seed is drawn but not expanded.
    if (d > 0) {
      shared[h] = constantReaders(g, i, sharedReaders);
      if (shared[h] > 0) continue;
    }
    for (const e of row(g.varInEdges, i)) add(NODE_OP, g.edgeOp[e], d + 1);
    for (const e of row(g.varOutEdges, i)) add(NODE_OP, g.edgeOp[e], d + 1);
    if (followLineage) {
      const chain = row(g.lineages, g.varLineage[i]);
      const k = chain.indexOf(i);
      if (k > 0) add(NODE_VAR, chain[k - 1], d + 1);
      if (k >= 0 && k + 1 < chain.length) add(NODE_VAR, chain[k + 1], d + 1);
    }
  }
  return c;
}

/**
 * Edges between the collected nodes: per shown op, inputs → op → outputs (intermediates count
 * as outputs); then version → next version where no shown op joins the pair.
 */
function localEdges(g: TraceGraph, c: Collected, followLineage: boolean) {
  const nv = g.varId.length;
  const src: number[] = [];
  const dst: number[] = [];
  const ek: number[] = [];
  const linked = new Set<number>(); // variable pairs joined by a shown op, as a * nv + b
  for (const [o, lo] of c.opLocal) {
    const bits = new Map<number, number>();
    const inferred = new Set<number>();
    for (const e of row(g.opEdges, o)) {
      if (g.edgeInferred[e]) inferred.add(g.edgeSrc[e]);
      bits.set(g.edgeSrc[e], (bits.get(g.edgeSrc[e]) ?? 0) | 1);
      bits.set(g.edgeDst[e], (bits.get(g.edgeDst[e]) ?? 0) | 2);
      linked.add(g.edgeSrc[e] * nv + g.edgeDst[e]);
    }
    for (const [v, b] of bits) {
      const lv = c.varLocal.get(v);
      if (lv === undefined) continue;
      const input = b === 1;
      src.push(input ? lv : lo);
      dst.push(input ? lo : lv);
      ek.push(input && inferred.has(v) ? EDGE_INFERRED : EDGE_DATA);
    }
  }
  if (followLineage) {
    for (const [v, lv] of c.varLocal) {
      const chain = row(g.lineages, g.varLineage[v]);
      const k = chain.indexOf(v);
      if (k < 0 || k + 1 >= chain.length) continue;
      const w = chain[k + 1];
      const lw = c.varLocal.get(w);
      if (lw === undefined || linked.has(v * nv + w)) continue;
      src.push(lv);
      dst.push(lw);
      ek.push(EDGE_LINEAGE);
    }
  }
  return { src, dst, ek };
}

/** Execution-time key of each node: an op's rank; a variable just after its producer (or before its reader). */
function timeKeys(g: TraceGraph, c: Collected): Float64Array {
  const time = new Float64Array(c.kind.length);
  for (let l = 0; l < c.kind.length; l++) {
    const i = c.index[l];
    if (c.kind[l] === NODE_OP) time[l] = g.opRank[i];
    else {
      let t = Number.POSITIVE_INFINITY;
      for (const e of row(g.varInEdges, i)) t = Math.min(t, g.opRank[g.edgeOp[e]] + 0.5);
      if (t === Number.POSITIVE_INFINITY)
        for (const e of row(g.varOutEdges, i)) t = Math.min(t, g.opRank[g.edgeOp[e]] - 0.5);
      time[l] = t === Number.POSITIVE_INFINITY ? -1 : t;
    }
  }
  return time;
}

/** Collects the neighbourhood of the seeds by breadth-first search (see the module comment). */
export function neighbourhood(g: TraceGraph, seeds: NeighbourhoodSeeds, options: NeighbourhoodOptions = {}) {
  const c = collectNodes(g, seeds, options);
  const { src, dst, ek } = localEdges(g, c, options.lineage ?? true);
  return {
    kind: Uint8Array.from(c.kind),
    index: Int32Array.from(c.index),
    depth: Int32Array.from(c.depth),
    edgeSrc: Int32Array.from(src),
    edgeDst: Int32Array.from(dst),
    edgeKind: Uint8Array.from(ek),
    time: timeKeys(g, c),
    shared: Int32Array.from(c.shared),
    truncated: c.truncated,
  } satisfies Neighbourhood;
}

/** Short label of a neighbourhood node: op name (or category), variable full_node_id. */
export function neighbourhoodLabel(g: TraceGraph, nb: Neighbourhood, local: number): string {
  const i = nb.index[local];
  if (nb.kind[local] === NODE_OP) return g.opName[i] || g.opCategory[i] || g.opId[i];
  return g.varId[i];
}

/** Options of `neighbourhoodLayout`: the neighbourhood's and the layout's, plus how labels size the nodes. */
export interface NeighbourhoodLayoutOptions extends NeighbourhoodOptions, LayeredOptions {
  /** Width of one label character in px, for node sizes (default 6.6, 11px sans-serif). */
  charWidth?: number;
  /** Longest label shown in a node, in characters (default 28). */
  maxLabelChars?: number;
}

/** The neighbourhood and its layered layout, node sizes estimated from the labels. */
export function neighbourhoodLayout(
  g: TraceGraph,
  seeds: NeighbourhoodSeeds,
  options: NeighbourhoodLayoutOptions = {},
): { nb: Neighbourhood; layout: LayeredLayout; labels: string[] } {
  const nb = neighbourhood(g, seeds, options);
  const labels = Array.from({ length: nb.kind.length }, (_, l) => neighbourhoodLabel(g, nb, l));
  return { nb, layout: layOut(nb, labels, null, options), labels };
}

/** Layered layout of a neighbourhood, each node as wide as its longest line (label or value). */
function layOut(
  nb: Neighbourhood,
  labels: string[],
  values: string[] | null,
  options: NeighbourhoodLayoutOptions,
): LayeredLayout {
  const charWidth = options.charWidth ?? 6.6;
  const maxChars = options.maxLabelChars ?? 28;
  const n = nb.kind.length;
  const width = new Float64Array(n);
  const height = new Float64Array(n);
  for (let l = 0; l < n; l++) {
    const chars = Math.max(Math.min(labels[l].length, maxChars), values?.[l].length ?? 0);
    width[l] = Math.max(48, chars * charWidth + 20);
    height[l] = nb.kind[l] === NODE_OP ? 26 : 34; // variables show a second line (the value)
  }
  return layeredLayout(
    { nodes: n, edgeSrc: nb.edgeSrc, edgeDst: nb.edgeDst, width, height, priority: nb.time },
    options,
  );
}

/** One line of at most `n` characters: whitespace folded, an ellipsis when cut. */
export function previewText(text: string, n: number): string {
  // Only the head matters; folding a multi-megabyte value whole would be wasted work.
  const head = text.slice(0, 4 * n + 64);
  const one = head.replace(/\s+/g, ' ');
  if (one.length <= n) return head.length < text.length ? `${one}…` : one;
  return `${one.slice(0, n - 1)}…`;
}

/**
 * What a version changed, in one line: `+ added text` (or `− removed text`) around the
 * first place it differs from the version before, so versions of one unit read apart.
 */
export function changePreview(before: string, after: string, n: number): string {
  let p = 0;
  const max = Math.min(before.length, after.length);
  while (p < max && before.charCodeAt(p) === after.charCodeAt(p)) p++;
  if (p === before.length && p === after.length) return previewText(after, n);
  let sb = before.length;
  let sa = after.length;
  while (sb > p && sa > p && before.charCodeAt(sb - 1) === after.charCodeAt(sa - 1)) {
    sb--;
    sa--;
  }
  // Start a little before the change, at a word boundary when there is one.
  const from = (text: string) => Math.max(0, text.lastIndexOf(' ', Math.max(0, p - 4)) + 1);
  return sa > p
    ? `+ ${previewText(after.slice(from(after), sa + 4 * n), n - 2)}`
    : `− ${previewText(before.slice(from(before), sb + 4 * n), n - 2)}`;
}

/** Options of `neighbourhoodDrawing`: those of the layout, value previews, and a panel to fit. */
export interface NeighbourhoodDrawingOptions extends NeighbourhoodLayoutOptions {
  /** Longest value preview of a variable, in characters (default maxLabelChars + 2). */
  previewChars?: number;
  /**
   * The panel it is drawn in (px): with a fit, fewer hops and nodes are shown until the
   * drawing fits at full size (text readable, nothing clipped). Default: no fit.
   */
  fit?: { width: number; height: number };
}

/**
 * Everything a drawing of the neighbourhood needs, so it never touches the graph (the
 * engine worker computes it; the page only draws): the layout, and per local node
 * its id (op_id or full_node_id), label, category and value preview ('' for ops).
 * `seeds` lists the local indices of the seeds (depth 0).
 */
export interface NeighbourhoodDrawing {
  nb: Neighbourhood;
  layout: LayeredLayout;
  labels: string[];
  ids: string[];
  seeds: number[];
  categories: string[];
  /** One line per variable: its value, or for a later version what changed. */
  values: string[];
  /** Longer text per node for its tooltip (name, category, value head). */
  tips: string[];
  /** Hops shown (less than asked when the drawing was reduced to fit). */
  depth: number;
  /** Fewer hops or nodes than asked, to fit the panel. */
  reduced: boolean;
}

/** Fits at full size in the panel, with the view's padding (24 px a side). */
function fits(layout: LayeredLayout, fit: { width: number; height: number }): boolean {
  return layout.totalWidth + 48 <= fit.width && layout.totalHeight + 48 <= fit.height;
}

/**
 * The drawing of a seeds' neighbourhood; with `fit`, retried with shorter labels, then fewer hops, then
 * fewer nodes until it fits the panel (`reduced` says so).
 */
export function neighbourhoodDrawing(
  g: TraceGraph,
  seeds: NeighbourhoodSeeds,
  options: NeighbourhoodDrawingOptions = {},
): NeighbourhoodDrawing {
  const asked = { depth: options.depth ?? 2, maxNodes: options.maxNodes ?? 150 };
  let attempt = drawingOf(g, seeds, { ...options, ...asked });
  const fit = options.fit;
  if (fit) {
    // Fewer hops, then fewer nodes (nearest kept), until it fits or only the seeds and their neighbours remain.
    // Labels are shortened a little first (narrower nodes), and to 14 characters last.
    let depth = asked.depth;
    let maxNodes = asked.maxNodes;
    let chars = options.maxLabelChars ?? 28;
    while (!fits(attempt.layout, fit) && (depth > 1 || maxNodes > 6 || chars > 14)) {
      if (chars > 20) chars -= 4;
      else if (depth > 1) depth--;
      else if (maxNodes > 6) maxNodes = Math.max(6, Math.floor(maxNodes * 0.7));
      else chars -= 3;
      attempt = drawingOf(g, seeds, {
        ...options,
        depth,
        maxNodes,
        maxLabelChars: chars,
        previewChars: chars + 2,
      });
      attempt.depth = depth;
      attempt.reduced = true;
    }
  }
  return attempt;
}

function drawingOf(
  g: TraceGraph,
  seeds: NeighbourhoodSeeds,
  options: NeighbourhoodDrawingOptions,
): NeighbourhoodDrawing {
  const nb = neighbourhood(g, seeds, options);
  const previewChars = options.previewChars ?? (options.maxLabelChars ?? 28) + 2;
  const n = nb.kind.length;
  const labels = Array.from({ length: n }, (_, l) => neighbourhoodLabel(g, nb, l));
  const ids: string[] = new Array(n);
  const categories: string[] = new Array(n);
  const values: string[] = new Array(n);
  const tips: string[] = new Array(n);
  const seedLocals: number[] = [];
  for (let l = 0; l < n; l++) {
    const i = nb.index[l];
    const op = nb.kind[l] === NODE_OP;
    ids[l] = op ? g.opId[i] : g.varId[i];
    categories[l] = op ? g.opCategory[i] : g.varCategory[i];
    if (op) values[l] = '';
    else {
      const chain = row(g.lineages, g.varLineage[i]);
      const k = chain.indexOf(i);
      values[l] =
        k > 0
          ? changePreview(g.varValue[chain[k - 1]], g.varValue[i], previewChars)
          : previewText(g.varValue[i], previewChars);
    }
    const kind = op ? `op · ${categories[l]}` : `variable · ${categories[l]}`;
    const extra = nb.shared[l] ? `\nshared: read by ${nb.shared[l]} ops (not expanded)` : '';
    tips[l] = `${labels[l]}\n${kind}${extra}${op ? '' : `\n${previewText(g.varValue[i], 200)}`}`;
    if (nb.depth[l] === 0) seedLocals.push(l);
  }
  const layout = layOut(nb, labels, values, options);
  return {
    nb,
    layout,
    labels,
    ids,
    seeds: seedLocals,
    categories,
    values,
    tips,
    depth: options.depth ?? 2,
    reduced: false,
  };
}
