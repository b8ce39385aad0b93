/**
 * A small layered (Sugiyama-lite) layout for graphs of up to a few hundred nodes,
 * drawn left to right: cycles broken by DFS, longest-path layering (sources pulled
 * next to their first consumer), dummy nodes on long edges, barycentre crossing
 * reduction (best of alternating sweeps), then y positions pulled towards neighbours
 * with a minimum gap. Pure and synchronous; a deadline bounds the sweeps.
 */

/** A directed graph for `layeredLayout`: node count, edges, optional node sizes and a preferred order. */
export interface LayeredInput {
  /** Number of nodes 0 .. nodes-1. */
  nodes: number;
  edgeSrc: ArrayLike<number>;
  edgeDst: ArrayLike<number>;
  /** Node sizes in px (default 120 × 24). */
  width?: ArrayLike<number>;
  height?: ArrayLike<number>;
  /** Preferred order (e.g. execution time); lower first. Default: node index. */
  priority?: ArrayLike<number>;
}

/** Options of `layeredLayout`: gaps, sweeps, and a clock with a deadline. */
export interface LayeredOptions {
  /** Horizontal space between layers (px). Default 48. */
  layerGap?: number;
  /** Vertical space between nodes of a layer (px). Default 12. */
  nodeGap?: number;
  /** Crossing-reduction sweeps (each one down + one up). Default 12. */
  sweeps?: number;
  /** Clock in ms and a deadline on it; sweeps stop once it has passed. */
  now?: () => number;
  deadline?: number;
}

/**
 * A layered drawing: each node's layer, order and centre, each edge's polyline, the extent, and the
 * crossings left.
 */
export interface LayeredLayout {
  layers: number;
  /** Layer and position inside the layer of each node. */
  layer: Int32Array;
  order: Int32Array;
  /** Centre of each node (px), and its size. */
  x: Float64Array;
  y: Float64Array;
  width: Float64Array;
  height: Float64Array;
  /** Extent of the drawing (px). */
  totalWidth: number;
  totalHeight: number;
  /** Edges turned around to break a cycle (drawn in their own direction anyway). */
  edgeReversed: Uint8Array;
  /** Polyline of each edge from its source to its target: points (x, y) in edgePoints[2*off ..). */
  edgePointOffsets: Int32Array;
  edgePoints: Float64Array;
  /** Crossings between adjacent layers after reduction. */
  crossings: number;
  /** True when the deadline cut the crossing reduction short. */
  timedOut: boolean;
}

/** Marks the edges that close a cycle (DFS back edges and self loops), visiting by priority. */
function feedbackEdges(n: number, src: ArrayLike<number>, dst: ArrayLike<number>, prio: number[]) {
  const m = src.length;
  const out: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < m; e++) out[src[e]].push(e);
  for (const list of out) list.sort((a, b) => prio[dst[a]] - prio[dst[b]] || a - b);
  const reversed = new Uint8Array(m);
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const roots = Array.from({ length: n }, (_, i) => i).sort((a, b) => prio[a] - prio[b] || a - b);
  const stack: number[] = [];
  const next: number[] = new Array(n).fill(0);
  for (const r of roots) {
    if (state[r]) continue;
    stack.push(r);
    state[r] = 1;
    while (stack.length) {
      const v = stack[stack.length - 1];
      if (next[v] < out[v].length) {
        const e = out[v][next[v]++];
        const w = dst[e];
        if (state[w] === 1) reversed[e] = 1;
        else if (state[w] === 0) {
          state[w] = 1;
          stack.push(w);
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  return reversed;
}

/** Edges oriented acyclic: `from → to` is each edge turned around when it closes a cycle. */
interface Oriented {
  reversed: Uint8Array;
  from: Int32Array;
  to: Int32Array;
}

function orient(input: LayeredInput, prio: number[]): Oriented {
  const m = input.edgeSrc.length;
  const reversed = feedbackEdges(input.nodes, input.edgeSrc, input.edgeDst, prio);
  const from = new Int32Array(m);
  const to = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    const s = input.edgeSrc[e];
    const t = input.edgeDst[e];
    from[e] = reversed[e] ? t : s;
    to[e] = reversed[e] ? s : t;
  }
  return { reversed, from, to };
}

/** Longest-path layering (Kahn), then sources pulled right next to their first successor. */
function layerNodes(n: number, { from, to }: Oriented): { layer: Int32Array; layers: number } {
  const indeg = new Int32Array(n);
  const succ: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < from.length; e++) {
    if (from[e] === to[e]) continue;
    indeg[to[e]]++;
    succ[from[e]].push(to[e]);
  }
  const layer = new Int32Array(n);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (indeg[v] === 0) queue.push(v);
  const isSource = new Uint8Array(n);
  for (const v of queue) isSource[v] = 1;
  for (let h = 0; h < queue.length; h++) {
    const v = queue[h];
    for (const w of succ[v]) {
      if (layer[v] + 1 > layer[w]) layer[w] = layer[v] + 1;
      if (--indeg[w] === 0) queue.push(w);
    }
  }
  for (let v = 0; v < n; v++) {
    if (!isSource[v] || succ[v].length === 0) continue;
    let min = Number.POSITIVE_INFINITY;
    for (const w of succ[v]) if (layer[w] < min) min = layer[w];
    layer[v] = min - 1;
  }
  let layers = 0;
  for (let v = 0; v < n; v++) if (layer[v] + 1 > layers) layers = layer[v] + 1;
  return { layer, layers };
}

/**
 * The graph with dummy nodes (indexes n ..): every long edge becomes a chain of unit segments,
 * with the neighbours above (`up`, the previous layer) and below (`down`) of every node.
 */
interface Segmented {
  nodeLayer: number[];
  /** Nodes along each edge, in layered direction; a self loop keeps one point and is not drawn. */
  edgeChain: number[][];
  up: number[][];
  down: number[][];
}

function segment(layer: Int32Array, { from, to }: Oriented): Segmented {
  const nodeLayer: number[] = Array.from(layer);
  const segFrom: number[] = [];
  const segTo: number[] = [];
  const edgeChain: number[][] = [];
  for (let e = 0; e < from.length; e++) {
    const chain = [from[e]];
    if (from[e] !== to[e]) {
      let prev = from[e];
      for (let l = layer[from[e]] + 1; l < layer[to[e]]; l++) {
        const d = nodeLayer.length;
        nodeLayer.push(l);
        segFrom.push(prev);
        segTo.push(d);
        chain.push(d);
        prev = d;
      }
      segFrom.push(prev);
      segTo.push(to[e]);
      chain.push(to[e]);
    }
    edgeChain.push(chain);
  }
  const total = nodeLayer.length;
  const up: number[][] = Array.from({ length: total }, () => []);
  const down: number[][] = Array.from({ length: total }, () => []);
  for (let s = 0; s < segFrom.length; s++) {
    down[segFrom[s]].push(segTo[s]);
    up[segTo[s]].push(segFrom[s]);
  }
  return { nodeLayer, edgeChain, up, down };
}

/** The nodes of each layer in order, each node's position in its layer, and the crossings left. */
interface LayerOrder {
  byLayer: number[][];
  pos: Float64Array;
  crossings: number;
  timedOut: boolean;
}

/** Order inside layers: by priority (dummies next to their source's), then barycentre sweeps keeping the best. */
function orderLayers(s: Segmented, layers: number, prio: number[], options: LayeredOptions): LayerOrder {
  const n = prio.length;
  const total = s.nodeLayer.length;
  const sweeps = options.sweeps ?? 12;
  const now = options.now;
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const byLayer: number[][] = Array.from({ length: layers }, () => []);
  for (let v = 0; v < total; v++) byLayer[s.nodeLayer[v]].push(v);
  const startPrio = new Float64Array(total);
  for (let v = 0; v < total; v++) startPrio[v] = v < n ? prio[v] : Number.POSITIVE_INFINITY;
  for (const chain of s.edgeChain)
    for (let k = 1; k < chain.length - 1; k++) startPrio[chain[k]] = prio[chain[0]];
  for (const list of byLayer) list.sort((a, b) => startPrio[a] - startPrio[b] || a - b);
  const pos = new Float64Array(total);
  const setPos = () => {
    for (const list of byLayer) for (let i = 0; i < list.length; i++) pos[list[i]] = i;
  };
  setPos();
  let best = byLayer.map((l) => l.slice());
  let bestCrossings = countCrossings(byLayer, s.down, pos);
  let timedOut = false;
  for (let k = 0; k < sweeps && bestCrossings > 0; k++) {
    if (now && now() > deadline) {
      timedOut = true;
      break;
    }
    for (let l = 1; l < layers; l++) sortByBarycentre(byLayer[l], s.up, pos);
    for (let l = layers - 2; l >= 0; l--) sortByBarycentre(byLayer[l], s.down, pos);
    const c = countCrossings(byLayer, s.down, pos);
    if (c < bestCrossings) {
      bestCrossings = c;
      best = byLayer.map((l) => l.slice());
    }
  }
  for (let l = 0; l < layers; l++) byLayer[l] = best[l];
  setPos();
  return { byLayer, pos, crossings: bestCrossings, timedOut };
}

/**
 * Centre y of every node (dummies included), from 0: stacked in order, then pulled to the
 * neighbours' mean with order and gaps kept; and the drawing's height.
 */
function yCoordinates(s: Segmented, byLayer: number[][], h: (v: number) => number, nodeGap: number) {
  const total = s.nodeLayer.length;
  const layers = byLayer.length;
  const y = new Float64Array(total);
  for (const list of byLayer) {
    let cursor = 0;
    for (const v of list) {
      y[v] = cursor + h(v) / 2;
      cursor += h(v) + nodeGap;
    }
  }
  for (let it = 0; it < 8; it++) {
    const forward = it % 2 === 0;
    for (let k = 0; k < layers; k++) {
      const list = byLayer[forward ? k : layers - 1 - k];
      const nb = forward ? s.up : s.down;
      const want = list.map((v) => (nb[v].length ? mean(nb[v].map((w) => y[w])) : y[v]));
      place(list, want, y, h, nodeGap);
    }
  }
  let minY = Number.POSITIVE_INFINITY;
  let maxY = 0;
  for (let v = 0; v < total; v++) {
    minY = Math.min(minY, y[v] - h(v) / 2);
    maxY = Math.max(maxY, y[v] + h(v) / 2);
  }
  if (total === 0) minY = 0;
  for (let v = 0; v < total; v++) y[v] -= minY;
  return { y, height: total ? maxY - minY : 0 };
}

/** Left x of each layer's column (and one past the last): the widest node of the layer plus the gap. */
function layerColumns(byLayer: number[][], width: Float64Array, layerGap: number): Float64Array {
  const n = width.length;
  const layerX = new Float64Array(byLayer.length + 1);
  for (let l = 0; l < byLayer.length; l++) {
    let w = 0;
    for (const v of byLayer[l]) if (v < n && width[v] > w) w = width[v];
    layerX[l + 1] = layerX[l] + w + layerGap;
  }
  return layerX;
}

/** Edge polylines from the source's right side to the target's left side (source → target). */
function edgePolylines(
  s: Segmented,
  reversed: Uint8Array,
  width: Float64Array,
  at: { x: (v: number) => number; y: Float64Array },
) {
  const n = width.length;
  const m = reversed.length;
  const edgePointOffsets = new Int32Array(m + 1);
  const points: number[] = [];
  for (let e = 0; e < m; e++) {
    const chain = reversed[e] ? s.edgeChain[e].slice().reverse() : s.edgeChain[e];
    for (let k = 0; k < chain.length; k++) {
      const v = chain[k];
      let px = at.x(v);
      if (v < n && k === 0 && chain.length > 1) px += (reversed[e] ? -1 : 1) * (width[v] / 2);
      if (v < n && k === chain.length - 1 && chain.length > 1) px -= (reversed[e] ? -1 : 1) * (width[v] / 2);
      points.push(px, at.y[v]);
    }
    edgePointOffsets[e + 1] = points.length / 2;
  }
  return { edgePointOffsets, edgePoints: Float64Array.from(points) };
}

/** Lays out a directed graph in layers, left to right (see the module comment). */
export function layeredLayout(input: LayeredInput, options: LayeredOptions = {}): LayeredLayout {
  const n = input.nodes;
  const layerGap = options.layerGap ?? 48;
  const nodeGap = options.nodeGap ?? 12;
  const prio = Array.from({ length: n }, (_, i) => (input.priority ? input.priority[i] : i));
  const width = Float64Array.from({ length: n }, (_, i) => (input.width ? input.width[i] : 120));
  const height = Float64Array.from({ length: n }, (_, i) => (input.height ? input.height[i] : 24));

  const oriented = orient(input, prio);
  const { layer, layers } = layerNodes(n, oriented);
  const segmented = segment(layer, oriented);
  const { byLayer, pos, crossings, timedOut } = orderLayers(segmented, layers, prio, options);
  // Layers are columns; a dummy node is a 2 px point.
  const { y, height: totalHeight } = yCoordinates(
    segmented,
    byLayer,
    (v) => (v < n ? height[v] : 2),
    nodeGap,
  );
  const layerX = layerColumns(byLayer, width, layerGap);
  const nodeLayer = segmented.nodeLayer;
  const cx = (v: number) => (layerX[nodeLayer[v]] + layerX[nodeLayer[v] + 1] - layerGap) / 2;

  const order = new Int32Array(n);
  for (let v = 0; v < n; v++) order[v] = pos[v];
  const x = new Float64Array(n);
  const yOut = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    x[v] = cx(v);
    yOut[v] = y[v];
  }
  const { edgePointOffsets, edgePoints } = edgePolylines(segmented, oriented.reversed, width, { x: cx, y });

  return {
    layers,
    layer,
    order,
    x,
    y: yOut,
    width,
    height,
    totalWidth: Math.max(0, layerX[layers] - layerGap),
    totalHeight,
    edgeReversed: oriented.reversed,
    edgePointOffsets,
    edgePoints,
    crossings,
    timedOut,
  };
}

function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function sortByBarycentre(list: number[], nb: number[][], pos: Float64Array): void {
  const key = new Map<number, number>();
  for (const v of list) key.set(v, nb[v].length ? mean(nb[v].map((w) => pos[w])) : pos[v]);
  list.sort((a, b) => key.get(a)! - key.get(b)! || pos[a] - pos[b]);
  for (let i = 0; i < list.length; i++) pos[list[i]] = i;
}

/** Crossings between consecutive layers: inversions of target positions (Fenwick tree). */
function countCrossings(byLayer: number[][], down: number[][], pos: Float64Array): number {
  let crossings = 0;
  for (let l = 0; l + 1 < byLayer.length; l++) {
    const size = byLayer[l + 1].length;
    const tree = new Int32Array(size + 1);
    let seen = 0;
    const sources = byLayer[l].slice().sort((a, b) => pos[a] - pos[b]);
    for (const v of sources) {
      const targets = down[v].map((w) => pos[w]).sort((a, b) => a - b);
      for (const t of targets) {
        // edges already seen whose target is right of t cross this one
        let le = 0;
        for (let i = t + 1; i > 0; i -= i & -i) le += tree[i];
        crossings += seen - le;
      }
      for (const t of targets) {
        for (let i = t + 1; i <= size; i += i & -i) tree[i]++;
        seen++;
      }
    }
  }
  return crossings;
}

/**
 * Places a layer's nodes as near their wanted centres as the order and gaps allow:
 * pushed down from the top, then up from the bottom, and the two averaged.
 */
function place(list: number[], want: number[], y: Float64Array, h: (v: number) => number, gap: number): void {
  const k = list.length;
  if (k === 0) return;
  const a = new Float64Array(k);
  const b = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    a[i] = want[i];
    if (i > 0) a[i] = Math.max(a[i], a[i - 1] + (h(list[i - 1]) + h(list[i])) / 2 + gap);
  }
  for (let i = k - 1; i >= 0; i--) {
    b[i] = want[i];
    if (i < k - 1) b[i] = Math.min(b[i], b[i + 1] - (h(list[i + 1]) + h(list[i])) / 2 - gap);
  }
  for (let i = 0; i < k; i++) y[list[i]] = (a[i] + b[i]) / 2;
  // Averaging keeps order but can break the gap; push down once more to restore it.
  for (let i = 1; i < k; i++) {
    const min = y[list[i - 1]] + (h(list[i - 1]) + h(list[i])) / 2 + gap;
    if (y[list[i]] < min) y[list[i]] = min;
  }
}
