/**
 * The lane view's frame around the drawing, drawn in the same animation frame from the
 * same viewport: the step / time ruler above it, the gutter of band and lane names on
 * its left (readable at every zoom: labels never overlap, bands first), and the
 * minimap of the whole graph below it with the part in view outlined.
 */
import { firstInSlot, type LaneLayout, type LaneRows } from '../../core/layout/index.ts';
import type { LaneMarkOps } from './draw.ts';
import { truncate } from './draw.ts';
import type { LaneTheme } from './theme.ts';
import { toScreenX, toScreenY, toWorldX, toWorldY, type Viewport } from './viewport.ts';

export const GUTTER_WIDTH = 200;
export const RULER_HEIGHT = 32;
export const MINIMAP_HEIGHT = 44;
/** Least vertical room for one label in the gutter, in px. */
const LABEL_GAP = 14;

/** The smallest 1 / 2 / 5 × 10^k at least `min`. */
function niceStep(min: number): number {
  const m = Math.max(1, min);
  const p = 10 ** Math.floor(Math.log10(m));
  for (const k of [1, 2, 5, 10]) if (k * p >= m) return k * p;
  return 10 * p;
}

/** A time difference as people read it: `850 ms`, `12.3 s`, `4:05`, `1:02:03`. */
export function formatSpan(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(whole / 3600);
  const m = Math.floor(whole / 60) % 60;
  return h > 0 ? `${h}:${two(m)}:${two(whole % 60)}` : `${m}:${two(whole % 60)}`;
}

function firstTime(l: LaneLayout): number {
  for (let c = 0; c < l.columns; c++) if (Number.isFinite(l.columnTime[c])) return l.columnTime[c];
  return Number.NaN;
}

/** Sets up a frame canvas for CSS-pixel drawing and paints its panel with one edge line; its size in CSS px. */
function panel(ctx: CanvasRenderingContext2D, theme: LaneTheme, dpr: number, edge: 'bottom' | 'right') {
  const w = ctx.canvas.width / dpr;
  const h = ctx.canvas.height / dpr;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = theme.panel;
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = theme.edge;
  if (edge === 'bottom') ctx.fillRect(0, h - 1, w, 1);
  else ctx.fillRect(w - 1, 0, 1, h);
  return { w, h };
}

/** Step numbers (1-based, the op's place in execution order) and time since the first op. */
export function drawRuler(
  ctx: CanvasRenderingContext2D,
  l: LaneLayout,
  view: Viewport,
  theme: LaneTheme,
  dpr: number,
  marks: LaneMarkOps | undefined,
): void {
  const { w, h } = panel(ctx, theme, dpr, 'bottom');
  const v = { ...view, width: w };
  const step = niceStep(90 / v.sx);
  const c0 = Math.max(0, Math.ceil(toWorldX(v, 0) / step) * step);
  const c1 = Math.min(l.columns - 1, Math.floor(toWorldX(v, w)));
  const t0 = firstTime(l);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'alphabetic';
  for (let c = c0; c <= c1; c += step) {
    const x = Math.round(toScreenX(v, c)) + 0.5;
    ctx.fillStyle = theme.edge;
    ctx.fillRect(x, h - 8, 1, 7);
    ctx.fillStyle = theme.text;
    ctx.fillText(`step ${(c + 1).toLocaleString('en-US')}`, x + 3, 12);
    const t = l.columnTime[c] - t0;
    if (Number.isFinite(t)) {
      ctx.fillStyle = theme.muted;
      ctx.fillText(`+${formatSpan(t)}`, x + 3, 25);
    }
  }
  // The marked answers as ticks, so they show even at fit.
  if (marks) {
    ctx.fillStyle = theme.markAnswer;
    for (const o of marks.answer) {
      const c = l.opColumn[o];
      if (c < 0) continue;
      const x = toScreenX(v, c);
      if (x >= 0 && x <= w) ctx.fillRect(Math.round(x) - 1, h - 5, 2, 4);
    }
  }
}

/** The text of a gutter row: its band's header on the band's first row, else the lane in view. */
function rowLabel(
  l: LaneLayout,
  rows: LaneRows,
  view: Viewport,
  r: number,
): { text: string; header: boolean } {
  const b = rows.rowBand[r];
  if (rows.bandRow[b] === r) {
    const lanes = l.bandLaneCount[b];
    const mark = lanes > 1 ? (rows.expanded[b] ? '▾ ' : '▸ ') : '';
    const count = lanes > 1 ? ` (${lanes.toLocaleString('en-US')})` : '';
    const name = lanes === 1 ? laneOfRow(l, rows, view, r) : l.bandName[b];
    return { text: `${mark}${name}${count}`, header: lanes > 1 };
  }
  return { text: laneOfRow(l, rows, view, r), header: false };
}

/** Name and category of the lane of row r that is in view at the left edge (or its first). */
function laneOfRow(l: LaneLayout, rows: LaneRows, view: Viewport, r: number): string {
  const s = rows.rowSlot0[r];
  let i = firstInSlot(l, s, toWorldX(view, 0));
  if (i >= l.slotVarOffsets[s + 1]) i = l.slotVarOffsets[s + 1] - 1;
  if (i < l.slotVarOffsets[s]) return '';
  const v = l.slotVarItems[i];
  return `${l.laneName[l.varLane[v]]} · ${l.categories[l.varCategory[v]]}`;
}

/** Band headers first, then lane names where there is room; nothing overlaps. */
export function drawGutter(
  ctx: CanvasRenderingContext2D,
  l: LaneLayout,
  rows: LaneRows,
  view: Viewport,
  theme: LaneTheme,
  dpr: number,
  hoverRow: number,
): void {
  const { w, h } = panel(ctx, theme, dpr, 'right');
  const r0 = Math.max(0, Math.floor(toWorldY(view, 0)));
  const r1 = Math.min(rows.rows - 1, Math.floor(toWorldY(view, h)));
  const placed: number[] = [];
  const free = (y: number) => placed.every((p) => Math.abs(p - y) >= LABEL_GAP);
  const Y = (r: number) => toScreenY(view, r + 0.5);
  const draw = (r: number) => {
    const y = Y(r);
    if (y < 6 || y > h - 2 || !free(y)) return;
    const label = rowLabel(l, rows, view, r);
    placed.push(y);
    ctx.font = label.header ? '600 11px system-ui, sans-serif' : '11px system-ui, sans-serif';
    ctx.fillStyle = r === hoverRow && label.header ? theme.hover : label.header ? theme.text : theme.muted;
    const indent = label.header || l.bandLaneCount[rows.rowBand[r]] === 1 ? 6 : 16;
    ctx.fillText(truncate(label.text, w - indent - 6), indent, y + 4);
  };
  ctx.textBaseline = 'alphabetic';
  // Headers of the bands in view (a band scrolled past its first row keeps its header at the top).
  for (let b = 0; b < l.bands; b++) {
    const first = rows.bandRow[b];
    const last = b + 1 < l.bands ? rows.bandRow[b + 1] - 1 : rows.rows - 1;
    if (last < r0 || first > r1) continue;
    draw(first);
  }
  for (let r = r0; r <= r1; r++) if (rows.bandRow[rows.rowBand[r]] !== r) draw(r);
}

/** The whole graph in a strip: band density, the part in view outlined, the marked answers as ticks. */
export class Minimap {
  #canvas: OffscreenCanvas | HTMLCanvasElement | null = null;
  #key: unknown[] = [];

  /** Redraws the cached overview when the layout, rows, theme or size changed. */
  #render(l: LaneLayout, rows: LaneRows, theme: LaneTheme, W: number, H: number) {
    const key = [l, rows, theme, W, H];
    if (this.#canvas && key.every((k, i) => k === this.#key[i])) return;
    this.#key = key;
    const canvas =
      typeof OffscreenCanvas !== 'undefined'
        ? new OffscreenCanvas(W, H)
        : Object.assign(document.createElement('canvas'), { width: W, height: H });
    const ctx = canvas.getContext('2d') as CanvasRenderingContext2D | null;
    if (!ctx) return;
    const img = ctx.createImageData(W, H);
    const counts = new Int32Array((W + 1) * H);
    const sx = W / Math.max(1, l.columns + 1);
    const sy = H / Math.max(1, rows.rows);
    for (let v = 0; v < l.varSlot.length; v++) {
      const r = rows.varRow[v];
      if (r < 0) continue;
      const y = Math.min(H - 1, Math.floor((r + 0.5) * sy));
      const a = Math.max(0, Math.floor((l.varX0[v] + 1) * sx));
      const b = Math.min(W - 1, Math.floor((l.varX1[v] + 1) * sx));
      counts[y * (W + 1) + a]++;
      counts[y * (W + 1) + b + 1]--;
    }
    const out = new Uint32Array(img.data.buffer);
    const [br, bg, bb] = theme.rgba.bg;
    const [dr, dg, db] = theme.rgba.dense;
    for (let y = 0; y < H; y++) {
      let run = 0;
      for (let x = 0; x < W; x++) {
        run += counts[y * (W + 1) + x];
        const k = run <= 0 ? 0 : Math.min(1, 0.35 + 0.1 * (32 - Math.clz32(run)));
        const r = Math.round(br + (dr - br) * k);
        const g = Math.round(bg + (dg - bg) * k);
        const b = Math.round(bb + (db - bb) * k);
        out[y * W + x] = (255 << 24) | (b << 16) | (g << 8) | r;
      }
    }
    ctx.putImageData(img, 0, 0);
    this.#canvas = canvas;
  }

  draw(
    ctx: CanvasRenderingContext2D,
    l: LaneLayout,
    rows: LaneRows,
    view: Viewport,
    theme: LaneTheme,
    dpr: number,
    marks: LaneMarkOps | undefined,
  ): void {
    const W = ctx.canvas.width;
    const H = ctx.canvas.height;
    this.#render(l, rows, theme, W, H);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (this.#canvas) ctx.drawImage(this.#canvas, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const w = W / dpr;
    const h = H / dpr;
    const mx = (x: number) => ((x + 1) / Math.max(1, l.columns + 1)) * w;
    const my = (r: number) => (r / Math.max(1, rows.rows)) * h;
    if (marks) {
      ctx.fillStyle = theme.markAnswer;
      for (const o of marks.answer)
        if (l.opColumn[o] >= 0) ctx.fillRect(Math.round(mx(l.opColumn[o])), 0, 1, 5);
    }
    const x0 = Math.max(0, mx(view.x0));
    const x1 = Math.min(w, mx(toWorldX(view, view.width)));
    const y0 = Math.max(0, my(view.y0));
    const y1 = Math.min(h, my(toWorldY(view, view.height)));
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0 + 0.75, y0 + 0.75, Math.max(3, x1 - x0 - 1.5), Math.max(3, y1 - y0 - 1.5));
    ctx.fillStyle = theme.edge;
    ctx.fillRect(0, 0, w, 1);
  }
}

/** The world point (column, row) under a point of the minimap. */
export function minimapToWorld(l: LaneLayout, rows: LaneRows, px: number, py: number, w: number, h: number) {
  return { x: (px / w) * (l.columns + 1) - 1, y: (py / h) * rows.rows };
}
