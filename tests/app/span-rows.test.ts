/**
 * The span tree's visible rows and keys (src/app/spans/rows.ts) on a hand-built tree:
 *   0 R ─┬─ 1 A ── 2 A1
 *        ├─ 3 B
 *        └─ 4 C ── 5 C1
 *   6 S (a second root)
 */
import { describe, expect, it } from 'vitest';
import {
  bar,
  duration,
  keyMove,
  placeOf,
  rowOf,
  spanIdOf,
  tokens,
  visibleRows,
} from '../../src/app/spans/rows.ts';
import { packStrings } from '../../src/core/spans/index.ts';

const T = {
  count: 7,
  end: Int32Array.from([6, 3, 3, 4, 6, 6, 7]),
  parent: Int32Array.from([-1, 0, 1, 0, 0, 4, -1]),
};
const open = new Uint8Array(7);
const all = visibleRows(T, open);

describe('visibleRows / placeOf', () => {
  it('shows every row when nothing is collapsed, and hides a collapsed row’s subtree', () => {
    expect([...all]).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const c = new Uint8Array(7);
    c[1] = 1;
    c[4] = 1;
    expect([...visibleRows(T, c)]).toEqual([0, 1, 3, 4, 6]);
    c[0] = 1;
    expect([...visibleRows(T, c)]).toEqual([0, 6]);
  });
  it('finds a row’s place, -1 when hidden', () => {
    const v = Int32Array.from([0, 1, 3, 4, 6]);
    expect(placeOf(v, 4)).toBe(3);
    expect(placeOf(v, 2)).toBe(-1);
  });
});

describe('keyMove', () => {
  it('moves down and up through visible rows, clamped at the ends', () => {
    expect(keyMove('ArrowDown', 2, T, open, all)).toEqual({ row: 3 });
    expect(keyMove('ArrowUp', 0, T, open, all)).toEqual({ row: 0 });
    expect(keyMove('End', 0, T, open, all)).toEqual({ row: 6 });
    expect(keyMove('PageDown', 1, T, open, all, 3)).toEqual({ row: 4 });
  });
  it('← closes an open row, then steps to the parent; → opens a closed row, then steps into it', () => {
    expect(keyMove('ArrowLeft', 4, T, open, all)).toEqual({ row: 4, collapse: 4 });
    expect(keyMove('ArrowLeft', 5, T, open, all)).toEqual({ row: 4 });
    expect(keyMove('ArrowLeft', 6, T, open, all)).toEqual({ row: 6 });
    const c = new Uint8Array(7);
    c[4] = 1;
    expect(keyMove('ArrowRight', 4, T, c, visibleRows(T, c))).toEqual({ row: 4, expand: 4 });
    expect(keyMove('ArrowRight', 4, T, open, all)).toEqual({ row: 5 });
    expect(keyMove('ArrowRight', 3, T, open, all)).toEqual({ row: 3 });
  });
  it('skips a collapsed subtree going down', () => {
    const c = new Uint8Array(7);
    c[1] = 1;
    expect(keyMove('ArrowDown', 1, T, c, visibleRows(T, c))).toEqual({ row: 3 });
  });
  it('ignores other keys', () => {
    expect(keyMove('x', 0, T, open, all)).toBeNull();
  });
});

describe('formatting', () => {
  it('says durations, tokens and bars in people’s units', () => {
    expect(duration(0.25)).toBe('250 µs');
    expect(duration(12.44)).toBe('12.4 ms');
    expect(duration(3210)).toBe('3.21 s');
    expect(duration(125_000)).toBe('2 min 5 s');
    expect(duration(Number.NaN)).toBe('');
    expect(tokens(1200, 7)).toBe('1,200 → 7');
    expect(tokens(Number.NaN, 7)).toBe('? → 7');
    expect(tokens(Number.NaN, Number.NaN)).toBe('');
    expect(bar(25, 50, 100)).toEqual({ left: 25, width: 50 });
    expect(bar(Number.NaN, 5, 100)).toBeNull();
  });
  it('reads the span id of an op’s metadata, and finds a row by op id or span id', () => {
    expect(spanIdOf('{"span_id":"ab12","trace_id":"t"}')).toBe('ab12');
    expect(spanIdOf('{"x":1}')).toBeNull();
    expect(spanIdOf('not json')).toBeNull();
    const t = { opId: packStrings(['', 'op-b']), spanId: packStrings(['a', 'b']) };
    expect(rowOf(t, 'op-b', null)).toBe(1);
    expect(rowOf(t, 'op-zz', 'a')).toBe(0);
    expect(rowOf(t, null, null)).toBe(-1);
  });
});
