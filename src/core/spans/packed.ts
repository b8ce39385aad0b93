/**
 * A column of strings as one string and offsets: sent between threads as one copy instead of
 * one object per string (100k span names cost ~300 ms to clone one by one, a few ms packed).
 */

/** String `i` is `text.slice(at[i], at[i + 1])`. */
export interface PackedStrings {
  text: string;
  at: Int32Array;
}

/** Packs a list of strings. */
export function packStrings(list: string[]): PackedStrings {
  const at = new Int32Array(list.length + 1);
  for (let i = 0; i < list.length; i++) at[i + 1] = at[i] + list[i].length;
  return { text: list.join(''), at };
}

/** String `i` of a packed column. */
export function cell(p: PackedStrings, i: number): string {
  return p.text.slice(p.at[i], p.at[i + 1]);
}

/** The first index holding `value`, or -1. */
export function findCell(p: PackedStrings, value: string): number {
  const n = p.at.length - 1;
  for (let i = 0; i < n; i++)
    if (p.at[i + 1] - p.at[i] === value.length && p.text.startsWith(value, p.at[i])) return i;
  return -1;
}
