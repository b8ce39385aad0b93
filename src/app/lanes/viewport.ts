/**
 * The lane view's camera: world units are columns (x) and rows (y); `sx`/`sy` are
 * CSS pixels per unit and (x0, y0) the world point at the top-left corner. Pure.
 */
export interface Viewport {
  x0: number;
  y0: number;
  sx: number;
  sy: number;
  /** Canvas size in CSS pixels. */
  width: number;
  height: number;
}

export interface Extent {
  columns: number;
  rows: number;
}

/** Largest zoom: a column or row never gets wider than this many pixels. */
export const MAX_SX = 240;
export const MAX_SY = 48;
/** Rows never drawn taller than this when the whole graph fits. */
const FIT_MAX_SY = 22;
const FIT_MAX_SX = 80;
/**
 * Rows are never drawn shorter than this at fit: every band's name gets its own line in the
 * gutter (the gutter's least room per label). More bands than fit in the height scroll.
 */
export const FIT_MIN_SY = 14;
/** Space kept left of column 0 for lane names, in px. */
export const MARGIN = 8;

/** The scales showing the whole extent (rows no shorter than `FIT_MIN_SY`). */
function fitScales(extent: Extent, width: number, height: number): { sx: number; sy: number } {
  const cols = Math.max(1, extent.columns) + 1;
  const rows = Math.max(1, extent.rows);
  return {
    sx: Math.min(FIT_MAX_SX, (width - 2 * MARGIN) / cols),
    sy: Math.max(FIT_MIN_SY, Math.min(FIT_MAX_SY, (height - 2 * MARGIN) / rows)),
  };
}

export function fit(extent: Extent, width: number, height: number): Viewport {
  const { sx, sy } = fitScales(extent, width, height);
  return { x0: -1 - MARGIN / sx, y0: -MARGIN / sy, sx, sy, width, height };
}

export const toScreenX = (v: Viewport, x: number) => (x - v.x0) * v.sx;
export const toScreenY = (v: Viewport, y: number) => (y - v.y0) * v.sy;
export const toWorldX = (v: Viewport, px: number) => px / v.sx + v.x0;
export const toWorldY = (v: Viewport, py: number) => py / v.sy + v.y0;

/** Smallest zoom: the fit's (zooming out further would only add blank space). */
function minScales(extent: Extent, v: Viewport): { sx: number; sy: number } {
  const f = fitScales(extent, v.width, v.height);
  return { sx: Math.min(MAX_SX, f.sx), sy: Math.min(MAX_SY, f.sy) };
}

/** Zooms by `fx`/`fy` keeping the world point under (px, py) in place (as far as the ends allow). */
export function zoomAt(
  v: Viewport,
  extent: Extent,
  px: number,
  py: number,
  fx: number,
  fy: number,
): Viewport {
  const min = minScales(extent, v);
  const sx = Math.max(min.sx, Math.min(MAX_SX, v.sx * fx));
  const sy = Math.max(min.sy, Math.min(MAX_SY, v.sy * fy));
  const wx = toWorldX(v, px);
  const wy = toWorldY(v, py);
  return clamp({ ...v, sx, sy, x0: wx - px / sx, y0: wy - py / sy }, extent);
}

/** Moves the view by (dx, dy) screen pixels (content follows the pointer). */
export function panBy(v: Viewport, extent: Extent, dx: number, dy: number): Viewport {
  return clamp({ ...v, x0: v.x0 - dx / v.sx, y0: v.y0 - dy / v.sy }, extent);
}

/**
 * One axis of `clamp`: the view (`visible` world units) stays on the content [lo, hi] — it
 * stops at either end; content shorter than the view stays at its start.
 */
function clampAxis(x0: number, visible: number, lo: number, hi: number): number {
  return hi - lo <= visible ? lo : Math.min(Math.max(x0, lo), hi - visible);
}

/** Keeps the view on the content: panning and zooming stop at its ends (a margin of `MARGIN` px). */
export function clamp(v: Viewport, extent: Extent): Viewport {
  const x0 = clampAxis(v.x0, v.width / v.sx, -1 - MARGIN / v.sx, Math.max(1, extent.columns) + MARGIN / v.sx);
  const y0 = clampAxis(v.y0, v.height / v.sy, -MARGIN / v.sy, Math.max(1, extent.rows) + MARGIN / v.sy);
  return { ...v, x0, y0 };
}

/** Centres (x, y) when it is outside the middle 80% of the view; otherwise unchanged. */
export function reveal(v: Viewport, extent: Extent, x: number, y: number): Viewport {
  const px = toScreenX(v, x);
  const py = toScreenY(v, y);
  if (px > 0.1 * v.width && px < 0.9 * v.width && py > 0.1 * v.height && py < 0.9 * v.height) return v;
  return clamp({ ...v, x0: x - v.width / 2 / v.sx, y0: y - v.height / 2 / v.sy }, extent);
}

/** Puts world point (x, y) in the middle of the view. */
export function centreOn(v: Viewport, extent: Extent, x: number, y: number): Viewport {
  return clamp({ ...v, x0: x - v.width / 2 / v.sx, y0: y - v.height / 2 / v.sy }, extent);
}

export function resize(v: Viewport, width: number, height: number): Viewport {
  return { ...v, width, height };
}
