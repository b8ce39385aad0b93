/**
 * Draws one frame of the lane view synchronously from a LaneLayout (Perfetto's track
 * contract: whatever is loaded is drawn now, every frame). Two levels of detail:
 * - raster, when a row or column is thinner than a few pixels: lane segments and op
 *   connectors are accumulated with difference arrays into a pixel buffer and put in
 *   one call — O(visible items + pixels) whatever the zoom;
 * - vector, when zoomed in: batched paths per colour, dots for op inputs (hollow) and
 *   outputs (filled), lane names, op names and values with fillText.
 * Highlights (hover, selection) are drawn on top in both.
 */
import { firstInRow, type LaneLayout, ROLE_INPUT } from '../../core/layout/index.ts';
import type { LaneTheme } from './theme.ts';
import { toScreenX, toScreenY, toWorldX, toWorldY, type Viewport } from './viewport.ts';

export interface LaneLabels {
  lane(lane: number): string;
  op(op: number): string;
  /** A variable's value as text, or undefined to draw no values. */
  value?: (v: number) => string;
}

export interface FrameInput {
  layout: LaneLayout;
  view: Viewport;
  theme: LaneTheme;
  dpr: number;
  labels: LaneLabels;
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
export const VECTOR_MIN_SY = 3;
export const VECTOR_MIN_SX = 1.5;

const FONT = '11px system-ui, sans-serif';
const CHAR_W = 6.2;

/** Reusable buffers of the raster level, kept between frames. */
export class RasterBuffers {
  image: ImageData | null = null;
  lanes = new Int32Array(0);
  ops = new Int32Array(0);
  column = new Int32Array(0);
  ensure(ctx: CanvasRenderingContext2D, w: number, h: number): ImageData {
    if (!this.image || this.image.width !== w || this.image.height !== h) {
      this.image = ctx.createImageData(w, h);
      this.lanes = new Int32Array((w + 1) * h);
      this.ops = new Int32Array(w * (h + 1));
      this.column = new Int32Array(w);
    } else {
      this.lanes.fill(0);
      this.ops.fill(0);
      this.column.fill(0);
    }
    return this.image;
  }
}

function visibleRange(l: LaneLayout, v: Viewport) {
  return {
    c0: Math.max(0, Math.floor(toWorldX(v, 0)) - 1),
    c1: Math.min(l.columns - 1, Math.ceil(toWorldX(v, v.width)) + 1),
    r0: Math.max(0, Math.floor(toWorldY(v, 0))),
    r1: Math.min(l.rows - 1, Math.floor(toWorldY(v, v.height))),
  };
}

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
    items = drawRaster(ctx, f, raster);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  drawHighlights(ctx, f);
  return { mode: vector ? 'vector' : 'raster', items, ms: performance.now() - t0 };
}

function drawRaster(ctx: CanvasRenderingContext2D, f: FrameInput, buf: RasterBuffers): number {
  const l = f.layout;
  const dpr = f.dpr;
  const W = ctx.canvas.width;
  const H = ctx.canvas.height;
  const img = buf.ensure(ctx, W, H);
  const { c0, c1, r0, r1 } = visibleRange(l, f.view);
  const sx = (x: number) => toScreenX(f.view, x) * dpr;
  const sy = (y: number) => toScreenY(f.view, y) * dpr;
  const lanes = buf.lanes;
  const ops = buf.ops;
  const stride = W + 1;
  let items = 0;
  // Lane segments: +1 at the start pixel, -1 after the end pixel, in the row's pixel line.
  for (let r = r0; r <= r1; r++) {
    const py = Math.floor(sy(r + 0.5));
    if (py < 0 || py >= H) continue;
    const end = l.rowVarOffsets[r + 1];
    for (let i = firstInRow(l, r, c0 - 1); i < end; i++) {
      const x = l.rowVarItems[i];
      if (l.varX0[x] > c1 + 1) break;
      const a = Math.max(0, Math.floor(sx(l.varX0[x])));
      const b = Math.min(W - 1, Math.floor(sx(l.varX1[x])));
      if (b < a) continue;
      lanes[py * stride + a]++;
      lanes[py * stride + b + 1]--;
      items++;
    }
  }
  // Connectors: the same along each pixel column.
  for (let c = c0; c <= c1; c++) {
    const o = l.columnOp[c];
    if (o < 0 || l.opRowMin[o] < 0 || l.opRowMax[o] < r0 || l.opRowMin[o] > r1) continue;
    const px = Math.floor(sx(c));
    if (px < 0 || px >= W) continue;
    const a = Math.max(0, Math.floor(sy(l.opRowMin[o] + 0.5)));
    const b = Math.min(H - 1, Math.floor(sy(l.opRowMax[o] + 0.5)));
    ops[a * W + px]++;
    ops[(b + 1) * W + px]--;
    items++;
  }
  // Compose: colour by log2 bucket of the counts through a small lookup table.
  const table = colourTable(f.theme);
  const out = new Uint32Array(img.data.buffer);
  const column = buf.column;
  for (let y = 0; y < H; y++) {
    let run = 0;
    const lr = y * stride;
    const orow = y * W;
    for (let x = 0; x < W; x++) {
      run += lanes[lr + x];
      column[x] += ops[orow + x];
      out[orow + x] = table[bucket(run) * 8 + bucket(column[x])];
    }
  }
  ctx.putImageData(img, 0, 0);
  return items;
}

function bucket(n: number): number {
  return n <= 0 ? 0 : n >= 64 ? 7 : 32 - Math.clz32(n); // 1 → 1, 2-3 → 2, …
}

const tables = new WeakMap<LaneTheme, Uint32Array>();
/** ImageData pixels (little-endian ABGR) for lane bucket × op bucket. */
function colourTable(t: LaneTheme): Uint32Array {
  let table = tables.get(t);
  if (table) return table;
  table = new Uint32Array(64);
  const { bg, lane, op } = t.rgba;
  for (let lb = 0; lb < 8; lb++)
    for (let ob = 0; ob < 8; ob++) {
      let c = bg;
      // Connectors are a faint haze (a long-lived lane joins every column); lanes stand out.
      if (ob > 0) c = mix(c, op, Math.min(0.6, 0.1 + 0.07 * ob));
      if (lb > 0) c = mix(c, lane, Math.min(1, 0.7 + 0.06 * lb));
      table[lb * 8 + ob] = (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0];
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

function truncate(text: string, px: number): string {
  const n = Math.floor(px / CHAR_W);
  if (n <= 1) return '';
  const one = text.replace(/\s+/g, ' ');
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}

function drawVector(ctx: CanvasRenderingContext2D, f: FrameInput): number {
  const l = f.layout;
  const v = f.view;
  const { c0, c1, r0, r1 } = visibleRange(l, v);
  const X = (x: number) => toScreenX(v, x);
  const Y = (r: number) => toScreenY(v, r + 0.5);
  let items = 0;

  // Lanes: one path; version starts as short ticks.
  const laneWidth = Math.max(1, Math.min(4, v.sy * 0.16));
  const lanes = new Path2D();
  const ticks = new Path2D();
  const tickH = Math.min(6, v.sy * 0.3);
  for (let r = r0; r <= r1; r++) {
    const y = Y(r);
    const end = l.rowVarOffsets[r + 1];
    for (let i = firstInRow(l, r, c0 - 1); i < end; i++) {
      const x = l.rowVarItems[i];
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

  // Connectors grouped by category colour, with input / output dots when there is room.
  const paths = new Map<string, { line: Path2D; dots: Path2D; rings: Path2D }>();
  const dotR = Math.min(4.5, Math.min(v.sx, v.sy) * 0.22);
  const dots = v.sx >= 5 && v.sy >= 5;
  for (let c = c0; c <= c1; c++) {
    const o = l.columnOp[c];
    if (o < 0 || l.opRowMin[o] < 0 || l.opRowMax[o] < r0 || l.opRowMin[o] > r1) continue;
    const colour = f.theme.category.get(l.categories[l.opCategory[o]]) ?? f.theme.op;
    let p = paths.get(colour);
    if (!p) {
      p = { line: new Path2D(), dots: new Path2D(), rings: new Path2D() };
      paths.set(colour, p);
    }
    const x = X(c);
    p.line.moveTo(x, Math.max(-10, Y(l.opRowMin[o])));
    p.line.lineTo(x, Math.min(v.height + 10, Y(l.opRowMax[o])));
    items++;
    if (!dots) continue;
    for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
      const r = l.varRow[l.opVarItems[i]];
      if (r < r0 || r > r1) continue;
      const target = l.opVarRole[i] === ROLE_INPUT ? p.rings : p.dots;
      target.moveTo(x + dotR, Y(r));
      target.arc(x, Y(r), dotR, 0, Math.PI * 2);
    }
  }
  ctx.lineWidth = Math.max(1, Math.min(3, v.sx * 0.12));
  for (const [colour, p] of paths) {
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.stroke(p.line);
    if (!dots) continue;
    ctx.fill(p.dots);
    ctx.fillStyle = f.theme.bg;
    ctx.fill(p.rings);
    ctx.lineWidth = 1.5;
    ctx.stroke(p.rings);
    ctx.lineWidth = Math.max(1, Math.min(3, v.sx * 0.12));
  }

  drawLabels(ctx, f, c0, c1, r0, r1);
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
  const v = f.view;
  const X = (x: number) => toScreenX(v, x);
  const Y = (r: number) => toScreenY(v, r + 0.5);
  ctx.font = FONT;
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = f.theme.text;
  // Lane names above their line, kept in view at the left edge while the lane is visible.
  if (v.sy >= 11) {
    for (let r = r0; r <= r1; r++) {
      let lastLane = -1;
      const end = l.rowVarOffsets[r + 1];
      for (let i = firstInRow(l, r, c0 - 1); i < end; i++) {
        const x = l.rowVarItems[i];
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
      const end = l.rowVarOffsets[r + 1];
      for (let i = firstInRow(l, r, c0 - 1); i < end; i++) {
        const x = l.rowVarItems[i];
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
      if (o < 0 || l.opRowMin[o] < 0 || l.opRowMax[o] < r0 || l.opRowMin[o] > r1) continue;
      const text = truncate(f.labels.op(o), v.sx - 6);
      if (text) ctx.fillText(text, X(c), Math.max(12, Y(l.opRowMin[o]) - Math.max(8, v.sy * 0.35)));
    }
    ctx.textAlign = 'start';
  }
}

/** Hover and selection on top: the op's connector and its variables, or the variable's lane. */
function drawHighlights(ctx: CanvasRenderingContext2D, f: FrameInput) {
  const items: [number, number, string, number][] = [
    [f.hoverOp, f.hoverVar, f.theme.hover, 2],
    [f.selectedOp, f.selectedVar, f.theme.accent, 3],
  ];
  const l = f.layout;
  const v = f.view;
  const X = (x: number) => toScreenX(v, x);
  const Y = (r: number) => toScreenY(v, r + 0.5);
  for (const [op, va, colour, width] of items) {
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = width;
    if (op >= 0 && l.opColumn[op] >= 0 && l.opRowMin[op] >= 0) {
      const x = X(l.opColumn[op]);
      ctx.beginPath();
      ctx.moveTo(x, Y(l.opRowMin[op]));
      ctx.lineTo(x, Y(l.opRowMax[op]));
      ctx.stroke();
      for (let i = l.opVarOffsets[op]; i < l.opVarOffsets[op + 1]; i++) {
        ctx.beginPath();
        ctx.arc(x, Y(l.varRow[l.opVarItems[i]]), 3.5, 0, Math.PI * 2);
        ctx.fill();
      }
    }
    if (va >= 0 && l.varRow[va] >= 0) {
      const y = Y(l.varRow[va]);
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
