/**
 * Table helpers for the lists (traces, cases): a text filter, a sort by column, and
 * pages, as pure functions over rows so the views stay thin and the rules are tested.
 */

/** How a column sorts: a number or a string per row (null sorts last either way). */
export type SortKey<T> = (row: T) => number | string | null;

/** Rows whose text (from `text`) holds every word of `q`, case-insensitive. */
export function filterRows<T>(rows: readonly T[], q: string, text: (row: T) => string): T[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return rows.slice();
  return rows.filter((r) => {
    const t = text(r).toLowerCase();
    return words.every((w) => t.includes(w));
  });
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** A stable sort by one column; rows without a value go last in both directions. */
export function sortRows<T>(rows: readonly T[], key: SortKey<T> | undefined, desc = false): T[] {
  if (!key) return rows.slice();
  const keyed = rows.map((row, i) => ({ row, i, k: key(row) }));
  keyed.sort((a, b) => {
    if (a.k === null || b.k === null) return a.k === b.k ? a.i - b.i : a.k === null ? 1 : -1;
    const c =
      typeof a.k === 'number' && typeof b.k === 'number'
        ? a.k - b.k
        : collator.compare(String(a.k), String(b.k));
    return (desc ? -c : c) || a.i - b.i;
  });
  return keyed.map((x) => x.row);
}

export interface Page<T> {
  rows: T[];
  /** 0-based page shown (clamped to the pages there are). */
  page: number;
  pages: number;
  /** Index of the first row shown, in the whole list. */
  first: number;
  total: number;
}

/** One page of `size` rows. */
export function pageOf<T>(rows: readonly T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const p = Math.min(Math.max(0, Math.floor(page)), pages - 1);
  return { rows: rows.slice(p * size, p * size + size), page: p, pages, first: p * size, total: rows.length };
}

/** The next sort after a click on a column header: new column ascending, same column flips. */
export function nextSort(
  current: { sort: string; desc: boolean },
  column: string,
): { sort: string; desc: boolean } {
  return current.sort === column ? { sort: column, desc: !current.desc } : { sort: column, desc: false };
}
