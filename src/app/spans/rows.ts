/**
 * The span tree's visible rows and keyboard moves, as plain functions over the engine's
 * `SpanTable` columns: a collapsed row hides its subtree (`end` is one past it), so the
 * visible rows are one sweep, increasing, and a row's place among them a binary search.
 */

import type { SpanTable } from '../../../workers/api.ts';
import { findCell } from '../../core/spans/index.ts';

/** What the moves need of the table. */
export type TreeShape = Pick<SpanTable, 'count' | 'end' | 'parent'>;

/** The rows shown: every row not inside a collapsed row's subtree, in order. */
export function visibleRows(t: TreeShape, collapsed: Uint8Array): Int32Array {
  const out = new Int32Array(t.count);
  let n = 0;
  for (let r = 0; r < t.count; r = collapsed[r] ? t.end[r] : r + 1) out[n++] = r;
  return out.subarray(0, n);
}

/** The position of `row` among the visible rows, or -1 when it is hidden. */
export function placeOf(visible: Int32Array, row: number): number {
  let lo = 0;
  let hi = visible.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (visible[mid] === row) return mid;
    if (visible[mid] < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Whether a row has children. */
export const hasChildren = (t: TreeShape, row: number): boolean => t.end[row] > row + 1;

/** A key's effect: the row to make active, and a row to collapse or expand first. */
export interface Move {
  row: number;
  collapse?: number;
  expand?: number;
}

/**
 * The tree keys (WAI-ARIA tree pattern): ↑ / ↓ move, → opens a closed row or steps into an open
 * one, ← closes an open row or steps to the parent, Home / End, Page Up / Down by `page` rows.
 * Null for any other key.
 */
export function keyMove(
  key: string,
  row: number,
  t: TreeShape,
  collapsed: Uint8Array,
  visible: Int32Array,
  page = 20,
): Move | null {
  if (!visible.length) return null;
  const at = Math.max(0, placeOf(visible, row));
  const to = (i: number) => ({ row: visible[Math.min(visible.length - 1, Math.max(0, i))] });
  switch (key) {
    case 'ArrowDown':
      return to(at + 1);
    case 'ArrowUp':
      return to(at - 1);
    case 'Home':
      return to(0);
    case 'End':
      return to(visible.length - 1);
    case 'PageDown':
      return to(at + page);
    case 'PageUp':
      return to(at - page);
    case 'ArrowRight':
      if (!hasChildren(t, row)) return { row };
      return collapsed[row] ? { row, expand: row } : { row: row + 1 };
    case 'ArrowLeft':
      if (hasChildren(t, row) && !collapsed[row]) return { row, collapse: row };
      return { row: t.parent[row] >= 0 ? t.parent[row] : row };
    default:
      return null;
  }
}

/** A duration for people: `850 µs`, `12.4 ms`, `3.21 s`, `2 min 5 s`; '' when unknown. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Input → output tokens (`42 → 7`), one side when only one is known, '' when neither. */
export function tokens(inTokens: number, outTokens: number): string {
  const f = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : '?');
  if (!Number.isFinite(inTokens) && !Number.isFinite(outTokens)) return '';
  return `${f(inTokens)} → ${f(outTokens)}`;
}

/** A span's bar on the time axis, in percent of the axis: left and width (at least a sliver). */
export function bar(startMs: number, durMs: number, totalMs: number): { left: number; width: number } | null {
  if (!Number.isFinite(startMs) || totalMs <= 0) return null;
  const left = (startMs / totalMs) * 100;
  const width = Number.isFinite(durMs) ? (Math.max(0, durMs) / totalMs) * 100 : 0;
  return { left: Math.min(left, 99.7), width: Math.max(width, 0.3) };
}

/** The span id an op's metadata (the JSON `OpDetail.metadata`) names, when the op was made from a span. */
export function spanIdOf(metadata: string): string | null {
  try {
    const m = JSON.parse(metadata) as { span_id?: unknown } | null;
    return typeof m?.span_id === 'string' && m.span_id ? m.span_id : null;
  } catch {
    return null;
  }
}

/** The row a selection names: by op id first, else by span id; -1 when neither is there. */
export function rowOf(t: Pick<SpanTable, 'opId' | 'spanId'>, op: string | null, span: string | null): number {
  const byOp = op ? findCell(t.opId, op) : -1;
  return byOp >= 0 || !span ? byOp : findCell(t.spanId, span);
}
