/**
 * Draws one frame of the lane view synchronously from a LaneLayout and its rows
 * (Perfetto's track contract: whatever is loaded is drawn now, every frame). Two levels
 * of detail:
 * - raster, when a row or column is thinner than a few pixels: lane segments and op
 *   connectors are accumulated with difference arrays into a pixel buffer and put in
 *   one call — O(visible items + pixels) whatever the zoom;
 * - vector, when zoomed in: batched paths per colour, dots for op inputs (hollow) and
 *   outputs (filled), lane names, op names and values with fillText.
 * A collapsed band is one row drawn as density (how many of its variables are alive at
 * each x). The part of a connector that reaches only inputs an importer inferred (not
 * recorded: `opVarInferred`) is dotted, in the same pass, in both levels. Marks (failed answers, labels, attributions) and highlights (hover,
 * selection) are drawn on top in both levels.
 */
import { firstInSlot, type LaneLayout, type LaneRows, ROLE_INPUT } from '../../core/layout/index.ts';
import type { LaneTheme } from './theme.ts';
import { toScreenX, toScreenY, toWorldX, toWorldY, type Viewport } from './viewport.ts';

export interface LaneLabels {
  lane(lane: number): string;
  op(op: number): string;
  /** A variable's value as text, or undefined to draw no values. */
  value?: (v: number) => string;
}

/** Ops to mark, by kind (op indices). */
export interface LaneMarkOps {
  answer: number[];
  label: number[];
  attribution: number[];
}

interface FrameInput {
  layout: LaneLayout;
  rows: LaneRows;
  view: Viewport;
  theme: LaneTheme;
  dpr: number;
  labels: LaneLabels;
  marks?: LaneMarkOps;
  hoverOp: number;
  hoverVar: number;
  selectedOp: number;
  selectedVar: number;
}

export interface FrameStats {
  mode: 'raster' | 'vector';
  /** Lane segments and connectors drawn. */
  items: number;
  ms: number;
}

/** Pixels per row / column below which the raster level of detail is used. */
const VECTOR_MIN_SY = 3;
const VECTOR_MIN_SX = 1.5;

const FONT = '11px system-ui, sans-serif';
/** Dash pattern of inferred connectors and input rings (the neighbourhood view dots them too). */
const INFERRED_DASH = [2, 3];
const CHAR_W = 6.2;

/** Reusable buffers of the raster level, kept between frames. */
export class RasterBuffers {
  image: ImageData | null = null;
  lanes = new Int32Array(0);
  ops = new Int32Array(0);
  column = new Int32Array(0);
  /** Per pixel line: the line whose lane counts it shows (-1: none), and whether as density. */
  source = new Int32Array(0);
  dense = new Uint8Array(0);
  ensure(ctx: CanvasRenderingContext2D, w: number, h: number): ImageData {
    if (!this.image || this.image.width !== w || this.image.height !== h) {
      this.image = ctx.createImageData(w, h);
      this.lanes = new Int32Array((w + 1) * h);
      this.ops = new Int32Array(w * (h + 1));
      this.column = new Int32Array(w);
      this.source = new Int32Array(h);
      this.dense = new Uint8Array(h);
    } else {
      this.lanes.fill(0);
      this.ops.fill(0);
      this.column.fill(0);
    }
    this.source.fill(-1);
    this.dense.fill(0);
    return this.image;
  }
}

/** Columns and rows in view (clamped). */
function visibleRange(l: LaneLayout, rows: LaneRows, v: Viewport) {
  return {
    c0: Math.max(0, Math.floor(toWorldX(v, 0)) - 1),
    c1: Math.min(l.columns - 1, Math.ceil(toWorldX(v, v.width)) + 1),
    r0: Math.max(0, Math.floor(toWorldY(v, 0))),
    r1: Math.min(rows.rows - 1, Math.floor(toWorldY(v, v.height))),
  };
}

const isCollapsed = (rows: LaneRows, r: number) => !rows.expanded[rows.rowBand[r]];

export function drawFrame(ctx: CanvasRenderingContext2D, f: FrameInput, raster: RasterBuffers): FrameStats {
  const t0 = performance.now();
  const { view: v, dpr } = f;
  const vector = v.sy >= VECTOR_MIN_SY && v.sx >= VECTOR_MIN_SX;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  let items: number;
  if (vector) {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = f.theme.bg;
    ctx.fillRect(0, 0, v.width, v.height);
    items = drawVector(ctx, f);
  } else {
    const dotted = new Path2D();
    items = drawRaster(ctx, f, raster, dotted);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.strokeStyle = f.theme.op;
    ctx.lineWidth = 1;
    ctx.setLineDash(INFERRED_DASH);
    ctx.stroke(dotted);
    ctx.setLineDash([]);
  }
  drawBandEdges(ctx, f);
  drawMarks(ctx, f);
  drawHighlights(ctx, f);
  return { mode: vector ? 'vector' : 'raster', items, ms: performance.now() - t0 };
}

/** Adds the inferred parts of op o's connector (outside its recorded rows) to `path`, from y(row). */
function inferredParts(path: Path2D, rows: LaneRows, o: number, x: number, y: (r: number) => number) {
  const min = rows.opRowMin[o];
  const max = rows.opRowMax[o];
  const rmin = rows.opRecordedMin[o];
  const rmax = rows.opRecordedMax[o];
  if (rmin < 0) {
    path.moveTo(x, y(min));
    path.lineTo(x, y(max));
    return;
  }
  if (min < rmin) {
    path.moveTo(x, y(min));
    path.lineTo(x, y(rmin));
  }
  if (max > rmax) {
    path.moveTo(x, y(rmax));
    path.lineTo(x, y(max));
  }
}

/** What the raster level draws with: the frame, its pixel buffers and the visible range. */
interface RasterPass {
  f: FrameInput;
  buf: RasterBuffers;
  /** Canvas size in device pixels. */
  W: number;
  H: number;
  range: ReturnType<typeof visibleRange>;
  /** World x / row → device pixels. */
  sx: (x: number) => number;
  sy: (y: number) => number;
}

/**
 * Lane segments: +1 at the start pixel, -1 after the end pixel, in the row's pixel line.
 * A collapsed band's row is a band of lines showing the same counts (density). Returns the
 * segments counted.
 */
function rasterLanes(p: RasterPass): number {
  const { f, buf, W, H, sx, sy } = p;
  const { c0, c1, r0, r1 } = p.range;
  const l = f.layout;
  const rows = f.rows;
  const { lanes, source } = buf;
  const stride = W + 1;
  let items = 0;
  const rowPx = f.view.sy * f.dpr;
  const denseHalf = Math.max(0, Math.floor(rowPx * 0.3));
  const lineHalf = rowPx >= 8 ? 1 : 0; // lanes 3 px thick when rows are tall enough
  for (let r = r0; r <= r1; r++) {
    const py = Math.floor(sy(r + 0.5));
    if (py < 0 || py >= H) continue;
    const dense = isCollapsed(rows, r);
    const half = dense ? denseHalf : lineHalf;
    for (let y = Math.max(0, py - half); y <= Math.min(H - 1, py + half); y++)
      if (source[y] < 0) {
        source[y] = py;
        buf.dense[y] = dense ? 1 : 0;
      }
    for (let s = rows.rowSlot0[r]; s < rows.rowSlot1[r]; s++) {
      const end = l.slotVarOffsets[s + 1];
      for (let i = firstInSlot(l, s, c0 - 1); i < end; i++) {
        const x = l.slotVarItems[i];
        if (l.varX0[x] > c1 + 1) break;
        const a = Math.max(0, Math.floor(sx(l.varX0[x])));
        const b = Math.min(W - 1, Math.floor(sx(l.varX1[x])));
        if (b < a) continue;
        lanes[py * stride + a]++;
        lanes[py * stride + b + 1]--;
        items++;
      }
    }
  }
  return items;
}

/** Connectors: the same along each pixel column; inferred parts go to `dotted`. Returns the connectors counted. */
function rasterConnectors(p: RasterPass, dotted: Path2D): number {
  const { f, W, H, sx, sy } = p;
  const { c0, c1, r0, r1 } = p.range;
  const l = f.layout;
  const rows = f.rows;
  const ops = p.buf.ops;
  let items = 0;
  for (let c = c0; c <= c1; c++) {
    const o = l.columnOp[c];
    if (o < 0 || rows.opRowMin[o] < 0 || rows.opRowMax[o] < r0 || rows.opRowMin[o] > r1) continue;
    const px = Math.floor(sx(c));
    if (px < 0 || px >= W) continue;
    items++;
    const rmin = rows.opRecordedMin[o];
    if (rmin !== rows.opRowMin[o] || rows.opRecordedMax[o] !== rows.opRowMax[o])
      inferredParts(dotted, rows, o, (px + 0.5) / f.dpr, (r) => toScreenY(f.view, r + 0.5));
    if (rmin < 0) continue;
    const a = Math.max(0, Math.floor(sy(rmin + 0.5)));
    const b = Math.min(H - 1, Math.floor(sy(rows.opRecordedMax[o] + 0.5)));
    if (b < a) continue;
    ops[a * W + px]++;
    ops[(b + 1) * W + px]--;
  }
  return items;
}

/** Compose: running sums of the difference arrays, coloured by log2 bucket through small lookup tables. */
function composeRaster(p: RasterPass, img: ImageData): void {
  const { buf, W, H } = p;
  const { lanes, ops, source, column } = buf;
  const stride = W + 1;
  const table = colourTable(p.f.theme);
  const out = new Uint32Array(img.data.buffer);
  for (let y = 0; y < H; y++) {
    const src = source[y];
    const lr = src * stride;
    const orow = y * W;
    const t = buf.dense[y] ? 64 : 0;
    let run = 0;
    for (let x = 0; x < W; x++) {
      if (src >= 0) run += lanes[lr + x];
      column[x] += ops[orow + x];
      out[orow + x] = table[t + bucket(run) * 8 + bucket(column[x])];
    }
  }
}

/** The raster level; inferred connector parts go to `dotted` (CSS pixels) instead of the buffer. */
function drawRaster(
  ctx: CanvasRenderingContext2D,
  f: FrameInput,
  buf: RasterBuffers,
  dotted: Path2D,
): number {
  const W = ctx.canvas.width;
  const H = ctx.canvas.height;
  const img = buf.ensure(ctx, W, H);
  const p: RasterPass = {
    f,
    buf,
    W,
    H,
    range: visibleRange(f.layout, f.rows, f.view),
    sx: (x: number) => toScreenX(f.view, x) * f.dpr,
    sy: (y: number) => toScreenY(f.view, y) * f.dpr,
  };
  const items = rasterLanes(p) + rasterConnectors(p, dotted);
  composeRaster(p, img);
  ctx.putImageData(img, 0, 0);
  return items;
}

function bucket(n: number): number {
  return n <= 0 ? 0 : n >= 64 ? 7 : 32 - Math.clz32(n); // 1 → 1, 2-3 → 2, …
}

const tables = new WeakMap<LaneTheme, Uint32Array>();
/**
 * ImageData pixels (little-endian ABGR) for lane bucket × op bucket: lines (0..63) and
 * density of a collapsed band (64..127, fainter for few variables, solid for many).
 */
function colourTable(t: LaneTheme): Uint32Array {
  let table = tables.get(t);
  if (table) return table;
  table = new Uint32Array(128);
  const { bg, lane, op, dense } = t.rgba;
  for (let d = 0; d < 2; d++)
    for (let lb = 0; lb < 8; lb++)
      for (let ob = 0; ob < 8; ob++) {
        let c = bg;
        // Connectors are a faint haze (thousands can share a pixel column); lanes stand out.
        if (ob > 0) c = mix(c, op, Math.min(0.32, 0.06 + 0.04 * ob));
        if (lb > 0)
          c = d ? mix(c, dense, Math.min(1, 0.3 + 0.1 * lb)) : mix(c, lane, Math.min(1, 0.7 + 0.06 * lb));
        table[d * 64 + lb * 8 + ob] = (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0];
      }
  tables.set(t, table);
  return table;
}

function mix(a: [number, number, number], b: [number, number, number], k: number): [number, number, number] {
  return [
    Math.round(a[0] + (b[0] - a[0]) * k),
    Math.round(a[1] + (b[1] - a[1]) * k),
    Math.round(a[2] + (b[2] - a[2]) * k),
  ];
}

export function truncate(text: string, px: number): string {
  const n = Math.floor(px / CHAR_W);
  if (n <= 1) return '';
  const one = text.replace(/\s+/g, ' ');
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}

/** The vector level's visible range. */
type Range = ReturnType<typeof visibleRange>;

/** Lanes: one path; version starts as short ticks. Collapsed bands: density strips. Returns the items drawn. */
function vectorLanes(ctx: CanvasRenderingContext2D, f: FrameInput, range: Range): number {
  const l = f.layout;
  const rows = f.rows;
  const v = f.view;
  const { c0, c1, r0, r1 } = range;
  const X = (x: number) => toScreenX(v, x);
  let items = 0;
  const laneWidth = Math.max(1, Math.min(4, v.sy * 0.16));
  const lanes = new Path2D();
  const ticks = new Path2D();
  const tickH = Math.min(6, v.sy * 0.3);
  for (let r = r0; r <= r1; r++) {
    if (isCollapsed(rows, r)) {
      items += drawDensity(ctx, f, r, c0, c1);
      continue;
    }
    const y = toScreenY(v, r + 0.5);
    const s = rows.rowSlot0[r];
    const end = l.slotVarOffsets[s + 1];
    for (let i = firstInSlot(l, s, c0 - 1); i < end; i++) {
      const x = l.slotVarItems[i];
      if (l.varX0[x] > c1 + 1) break;
      const a = Math.max(-10, X(l.varX0[x]));
      const b = Math.min(v.width + 10, X(l.varX1[x]));
      lanes.moveTo(a, y);
      lanes.lineTo(Math.max(b, a + 1), y);
      if (v.sx >= 4) {
        ticks.moveTo(a, y - tickH);
        ticks.lineTo(a, y + tickH);
      }
      items++;
    }
  }
  ctx.lineCap = 'butt';
  ctx.strokeStyle = f.theme.lane;
  ctx.lineWidth = laneWidth;
  ctx.stroke(lanes);
  ctx.lineWidth = 1;
  ctx.stroke(ticks);
  return items;
}

/** The paths of one connector colour: recorded lines, inferred (dotted) parts, output dots, input rings, inferred inputs. */
interface ConnectorPaths {
  line: Path2D;
  dotted: Path2D;
  dots: Path2D;
  rings: Path2D;
  inferred: Path2D;
}

/**
 * Connectors grouped by category colour, with input / output dots when `dots`; returns the
 * paths per colour and the connectors counted.
 */
function connectorPaths(f: FrameInput, range: Range, dots: boolean) {
  const l = f.layout;
  const rows = f.rows;
  const v = f.view;
  const { c0, c1, r0, r1 } = range;
  const Y = (r: number) => toScreenY(v, r + 0.5);
  const paths = new Map<string, ConnectorPaths>();
  const dotR = Math.min(4.5, Math.min(v.sx, v.sy) * 0.22);
  let items = 0;
  for (let c = c0; c <= c1; c++) {
    const o = l.columnOp[c];
    if (o < 0 || rows.opRowMin[o] < 0 || rows.opRowMax[o] < r0 || rows.opRowMin[o] > r1) continue;
    const colour = f.theme.category.get(l.categories[l.opCategory[o]]) ?? f.theme.op;
    let p = paths.get(colour);
    if (!p) {
      p = {
        line: new Path2D(),
        dotted: new Path2D(),
        dots: new Path2D(),
        rings: new Path2D(),
        inferred: new Path2D(),
      };
      paths.set(colour, p);
    }
    const x = toScreenX(v, c);
    const clip = (r: number) => Math.min(v.height + 10, Math.max(-10, Y(r)));
    const rmin = rows.opRecordedMin[o];
    if (rmin >= 0) {
      p.line.moveTo(x, clip(rmin));
      p.line.lineTo(x, clip(rows.opRecordedMax[o]));
    }
    if (rmin !== rows.opRowMin[o] || rows.opRecordedMax[o] !== rows.opRowMax[o])
      inferredParts(p.dotted, rows, o, x, clip);
    items++;
    if (!dots) continue;
    for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
      const r = rows.varRow[l.opVarItems[i]];
      if (r < r0 || r > r1) continue;
      const target = l.opVarInferred[i] ? p.inferred : l.opVarRole[i] === ROLE_INPUT ? p.rings : p.dots;
      target.moveTo(x + dotR, Y(r));
      target.arc(x, Y(r), dotR, 0, Math.PI * 2);
    }
  }
  return { paths, items };
}

function strokeConnectors(
  ctx: CanvasRenderingContext2D,
  f: FrameInput,
  paths: Map<string, ConnectorPaths>,
  dots: boolean,
): void {
  const connectorWidth = Math.max(1, Math.min(3, f.view.sx * 0.12));
  for (const [colour, p] of paths) {
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = connectorWidth;
    ctx.stroke(p.line);
    ctx.setLineDash(INFERRED_DASH);
    ctx.stroke(p.dotted);
    ctx.setLineDash([]);
    if (!dots) continue;
    ctx.fill(p.dots);
    ctx.fillStyle = f.theme.bg;
    ctx.fill(p.rings);
    ctx.fill(p.inferred);
    ctx.lineWidth = 1.5;
    ctx.stroke(p.rings);
    ctx.setLineDash(INFERRED_DASH);
    ctx.stroke(p.inferred);
    ctx.setLineDash([]);
  }
}

function drawVector(ctx: CanvasRenderingContext2D, f: FrameInput): number {
  const v = f.view;
  const range = visibleRange(f.layout, f.rows, v);
  const laneItems = vectorLanes(ctx, f, range);
  const dots = v.sx >= 5 && v.sy >= 5;
  const { paths, items } = connectorPaths(f, range, dots);
  strokeConnectors(ctx, f, paths, dots);
  drawLabels(ctx, f, range.c0, range.c1, range.r0, range.r1);
  return laneItems + items;
}

/** A collapsed band's row: per pixel column, how many of its variables are alive, as shade. */
function drawDensity(
  ctx: CanvasRenderingContext2D,
  f: FrameInput,
  r: number,
  c0: number,
  c1: number,
): number {
  const l = f.layout;
  const v = f.view;
  const W = Math.ceil(v.width);
  const diff = new Int32Array(W + 2);
  let items = 0;
  for (let s = f.rows.rowSlot0[r]; s < f.rows.rowSlot1[r]; s++) {
    const end = l.slotVarOffsets[s + 1];
    for (let i = firstInSlot(l, s, c0 - 1); i < end; i++) {
      const x = l.slotVarItems[i];
      if (l.varX0[x] > c1 + 1) break;
      const a = Math.max(0, Math.floor(toScreenX(v, l.varX0[x])));
      const b = Math.min(W, Math.max(a, Math.floor(toScreenX(v, l.varX1[x]))));
      if (a > W) continue;
      diff[a]++;
      diff[b + 1]--;
      items++;
    }
  }
  const y = toScreenY(v, r + 0.5);
  const h = Math.max(2, v.sy * 0.6);
  // Runs of equal shade as one rect each; shade = log2 bucket of the count.
  let run = 0;
  let start = 0;
  let level = 0;
  ctx.fillStyle = f.theme.dense;
  const flush = (end: number) => {
    if (level > 0 && end > start) {
      ctx.globalAlpha = Math.min(1, 0.18 + 0.12 * level);
      ctx.fillRect(start, y - h / 2, end - start, h);
    }
  };
  for (let x = 0; x <= W; x++) {
    run += diff[x];
    const b = bucket(run);
    if (b !== level) {
      flush(x);
      level = b;
      start = x;
    }
  }
  flush(W + 1);
  ctx.globalAlpha = 1;
  return items;
}

function drawLabels(
  ctx: CanvasRenderingContext2D,
  f: FrameInput,
  c0: number,
  c1: number,
  r0: number,
  r1: number,
) {
  const l = f.layout;
  const rows = f.rows;
  const v = f.view;
  const X = (x: number) => toScreenX(v, x);
  const Y = (r: number) => toScreenY(v, r + 0.5);
  ctx.font = FONT;
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = f.theme.text;
  // Lane names above their line, kept in view at the left edge while the lane is visible.
  if (v.sy >= 13) {
    for (let r = r0; r <= r1; r++) {
      if (isCollapsed(rows, r)) continue;
      const s = rows.rowSlot0[r];
      let lastLane = -1;
      const end = l.slotVarOffsets[s + 1];
      for (let i = firstInSlot(l, s, c0 - 1); i < end; i++) {
        const x = l.slotVarItems[i];
        if (l.varX0[x] > c1 + 1) break;
        const lane = l.varLane[x];
        if (lane === lastLane) continue;
        lastLane = lane;
        const left = Math.max(X(l.laneX0[lane]) + 3, 4);
        const text = truncate(f.labels.lane(lane), X(l.laneX1[lane]) - left);
        if (text) ctx.fillText(text, left, Y(r) - Math.min(5, v.sy * 0.2));
      }
    }
  }
  // Values under each version when versions are wide enough.
  const value = f.labels.value;
  if (value && v.sy >= 26 && v.sx >= 20) {
    ctx.fillStyle = f.theme.muted;
    for (let r = r0; r <= r1; r++) {
      if (isCollapsed(rows, r)) continue;
      const s = rows.rowSlot0[r];
      const end = l.slotVarOffsets[s + 1];
      for (let i = firstInSlot(l, s, c0 - 1); i < end; i++) {
        const x = l.slotVarItems[i];
        if (l.varX0[x] > c1 + 1) break;
        const left = Math.max(X(l.varX0[x]) + 6, 4);
        const text = truncate(value(x), X(l.varX1[x]) - left - 4);
        if (text) ctx.fillText(text, left, Y(r) + 12);
      }
    }
  }
  // Op names above the connector's top when columns are wide.
  if (v.sx >= 48) {
    ctx.fillStyle = f.theme.text;
    ctx.textAlign = 'center';
    for (let c = c0; c <= c1; c++) {
      const o = l.columnOp[c];
      if (o < 0 || rows.opRowMin[o] < 0 || rows.opRowMax[o] < r0 || rows.opRowMin[o] > r1) continue;
      const text = truncate(f.labels.op(o), v.sx - 6);
      if (text) ctx.fillText(text, X(c), Math.max(12, Y(rows.opRowMin[o]) - Math.max(8, v.sy * 0.35)));
    }
    ctx.textAlign = 'start';
  }
}

/** A thin line between bands, so each band reads as one group. */
function drawBandEdges(ctx: CanvasRenderingContext2D, f: FrameInput) {
  const v = f.view;
  ctx.fillStyle = f.theme.edge;
  for (let b = 1; b < f.layout.bands; b++) {
    const y = Math.round(toScreenY(v, f.rows.bandRow[b]));
    if (y < 0 || y > v.height) continue;
    ctx.fillRect(0, y, v.width, 1);
  }
}

/** Marks at the top of the marked ops' connectors: ▼ failed answer, ◆ label, ○ attribution. */
function drawMarks(ctx: CanvasRenderingContext2D, f: FrameInput) {
  const m = f.marks;
  if (!m) return;
  const l = f.layout;
  const rows = f.rows;
  const v = f.view;
  const kinds: [number[], string, (x: number, y: number) => void][] = [
    [
      m.answer,
      f.theme.markAnswer,
      (x, y) => {
        ctx.moveTo(x - 5, y - 9);
        ctx.lineTo(x + 5, y - 9);
        ctx.lineTo(x, y - 1);
        ctx.closePath();
      },
    ],
    [
      m.label,
      f.theme.markLabel,
      (x, y) => {
        ctx.moveTo(x, y - 13);
        ctx.lineTo(x + 5, y - 8);
        ctx.lineTo(x, y - 3);
        ctx.lineTo(x - 5, y - 8);
        ctx.closePath();
      },
    ],
    [
      m.attribution,
      f.theme.markAttribution,
      (x, y) => {
        ctx.moveTo(x + 6, y - 8);
        ctx.arc(x, y - 8, 6, 0, Math.PI * 2);
      },
    ],
  ];
  for (const [ops, colour, shape] of kinds) {
    ctx.beginPath();
    for (const o of ops) {
      const c = l.opColumn[o];
      if (c < 0 || rows.opRowMin[o] < 0) continue;
      const x = toScreenX(v, c);
      if (x < -8 || x > v.width + 8) continue;
      const y = Math.max(14, toScreenY(v, rows.opRowMin[o] + 0.5));
      if (y > v.height + 14) continue;
      shape(x, y);
    }
    if (colour === f.theme.markAttribution) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2;
      ctx.stroke();
    } else {
      ctx.fillStyle = colour;
      ctx.fill();
    }
  }
}

/** Hover and selection on top: the op's connector and its variables, or the variable's lane. */
function drawHighlights(ctx: CanvasRenderingContext2D, f: FrameInput) {
  const items: [number, number, string, number][] = [
    [f.hoverOp, f.hoverVar, f.theme.hover, 2],
    [f.selectedOp, f.selectedVar, f.theme.accent, 3],
  ];
  const l = f.layout;
  const rows = f.rows;
  const v = f.view;
  const X = (x: number) => toScreenX(v, x);
  const Y = (r: number) => toScreenY(v, r + 0.5);
  for (const [op, va, colour, width] of items) {
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = width;
    if (op >= 0 && l.opColumn[op] >= 0 && rows.opRowMin[op] >= 0) {
      const x = X(l.opColumn[op]);
      ctx.beginPath();
      ctx.moveTo(x, Y(rows.opRowMin[op]));
      ctx.lineTo(x, Y(rows.opRowMax[op]));
      ctx.stroke();
      for (let i = l.opVarOffsets[op]; i < l.opVarOffsets[op + 1]; i++) {
        ctx.beginPath();
        ctx.arc(x, Y(rows.varRow[l.opVarItems[i]]), 3.5, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    if (va >= 0 && rows.varRow[va] >= 0) {
      const y = Y(rows.varRow[va]);
      const a = X(l.varX0[va]);
      const b = Math.max(X(l.varX1[va]), a + 3);
      ctx.beginPath();
      ctx.moveTo(a, y);
      ctx.lineTo(b, y);
      ctx.lineWidth = width + 1;
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(a, y, 3.5, 0, Math.PI * 2);
      ctx.fill();
    }
  }
}
