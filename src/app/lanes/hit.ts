/** What is under a point of the lane view: an op connector first, then a variable's segment. */
import { firstInSlot, type LaneLayout, type LaneRows } from '../../core/layout/index.ts';
import { toScreenX, toScreenY, toWorldX, toWorldY, type Viewport } from './viewport.ts';

export type LaneHit = { kind: 'op'; index: number } | { kind: 'var'; index: number } | null;

/** Most columns examined around the pointer when many share a pixel. */
const MAX_COLUMNS = 512;

export function hitTest(
  l: LaneLayout,
  rows: LaneRows,
  v: Viewport,
  px: number,
  py: number,
  tolerance = 5,
): LaneHit {
  // Ops: the nearest visible column whose connector passes the pointer.
  const centre = Math.round(toWorldX(v, px));
  const reach = Math.min(MAX_COLUMNS, Math.ceil(tolerance / v.sx));
  let best = -1;
  let bestDx = Number.POSITIVE_INFINITY;
  for (let d = 0; d <= reach; d++) {
    for (const c of d === 0 ? [centre] : [centre - d, centre + d]) {
      if (c < 0 || c >= l.columns) continue;
      const o = l.columnOp[c];
      if (o < 0 || rows.opRowMin[o] < 0) continue;
      const dx = Math.abs(toScreenX(v, c) - px);
      if (dx > tolerance || dx >= bestDx) continue;
      const top = toScreenY(v, rows.opRowMin[o] + 0.5) - tolerance;
      const bottom = toScreenY(v, rows.opRowMax[o] + 0.5) + tolerance;
      if (py < top || py > bottom) continue;
      best = o;
      bestDx = dx;
    }
    if (best >= 0 && d * v.sx > bestDx) break;
  }
  const onVar = varAt(l, rows, v, px, py, tolerance);
  // A connector crossing a lane it does not touch leaves the lane's variable clickable.
  if (best >= 0 && (onVar < 0 || touchesRow(l, rows, best, rows.varRow[onVar])))
    return { kind: 'op', index: best };
  return onVar >= 0 ? { kind: 'var', index: onVar } : null;
}

function touchesRow(l: LaneLayout, rows: LaneRows, op: number, r: number): boolean {
  for (let i = l.opVarOffsets[op]; i < l.opVarOffsets[op + 1]; i++)
    if (rows.varRow[l.opVarItems[i]] === r) return true;
  return false;
}

/** The variable whose segment is under the pointer in the nearest row (any slot of a collapsed band), or -1. */
function varAt(
  l: LaneLayout,
  rows: LaneRows,
  v: Viewport,
  px: number,
  py: number,
  tolerance: number,
): number {
  const wy = toWorldY(v, py);
  const r = Math.floor(wy);
  if (r < 0 || r >= rows.rows) return -1;
  if (Math.abs(toScreenY(v, r + 0.5) - py) > Math.max(tolerance, v.sy / 2)) return -1;
  const wx = toWorldX(v, px);
  const tx = tolerance / v.sx;
  let near = -1;
  for (let s = rows.rowSlot0[r]; s < rows.rowSlot1[r]; s++) {
    for (let i = firstInSlot(l, s, wx - tx); i < l.slotVarOffsets[s + 1]; i++) {
      const x = l.slotVarItems[i];
      if (l.varX0[x] > wx + tx) break;
      if (l.varX0[x] <= wx && wx <= l.varX1[x] && l.varX1[x] > l.varX0[x]) return x;
      if (near < 0 && l.varX1[x] >= wx - tx) near = x;
    }
  }
  return near;
}
