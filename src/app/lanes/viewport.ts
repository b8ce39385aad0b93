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
/** Space kept left of column 0 for lane names, in px. */
export const MARGIN = 8;

export function fit(extent: Extent, width: number, height: number): Viewport {
  const cols = Math.max(1, extent.columns) + 1;
  const rows = Math.max(1, extent.rows);
  const sx = Math.min(FIT_MAX_SX, (width - 2 * MARGIN) / cols);
  const sy = Math.min(FIT_MAX_SY, (height - 2 * MARGIN) / rows);
  return { x0: -1 - MARGIN / sx, y0: -MARGIN / sy, sx, sy, width, height };
}

export const toScreenX = (v: Viewport, x: number) => (x - v.x0) * v.sx;
export const toScreenY = (v: Viewport, y: number) => (y - v.y0) * v.sy;
export const toWorldX = (v: Viewport, px: number) => px / v.sx + v.x0;
export const toWorldY = (v: Viewport, py: number) => py / v.sy + v.y0;

/** Smallest zoom: the whole extent fits with room to spare. */
function minScales(extent: Extent, v: Viewport): { sx: number; sy: number } {
  return {
    sx: Math.min(MAX_SX, v.width / (4 * (Math.max(1, extent.columns) + 1))),
    sy: Math.min(MAX_SY, v.height / (4 * Math.max(1, extent.rows))),
  };
}

/** Zooms by `fx`/`fy` keeping the world point under (px, py) in place. */
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

/** Keeps at least a quarter of the view on the content. */
export function clamp(v: Viewport, extent: Extent): Viewport {
  const w = v.width / v.sx;
  const h = v.height / v.sy;
  const x0 = Math.min(Math.max(v.x0, -1 - 0.75 * w), extent.columns - 0.25 * w);
  const y0 = Math.min(Math.max(v.y0, -0.75 * h), extent.rows - 0.25 * h);
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
