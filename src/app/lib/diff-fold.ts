/**
 * A line diff folded for reading: changed lines with a little context each side, long
 * runs of unchanged lines folded into one "N unchanged lines" piece that can be opened.
 */
import type { DiffLine } from '../../../workers/api.ts';
import { appendAll } from '../../core/arrays.ts';

type DiffPiece = { kind: 'lines'; lines: DiffLine[] } | { kind: 'fold'; lines: DiffLine[] };

/** Pieces of a diff: unchanged runs longer than 2 × context + 1 are folded, keeping `context` lines next to changes. */
export function foldDiff(lines: DiffLine[], context = 2): DiffPiece[] {
  const out: DiffPiece[] = [];
  const push = (kind: DiffPiece['kind'], part: DiffLine[]) => {
    if (part.length === 0) return;
    const last = out.at(-1);
    if (last && last.kind === kind && kind === 'lines') appendAll(last.lines, part);
    else out.push({ kind, lines: part });
  };
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== 'same') {
      let j = i;
      while (j < lines.length && lines[j].kind !== 'same') j++;
      push('lines', lines.slice(i, j));
      i = j;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j].kind === 'same') j++;
    const run = lines.slice(i, j);
    const before = i > 0 ? context : 0; // context after the previous change
    const after = j < lines.length ? context : 0; // context before the next change
    if (run.length <= before + after + 1) push('lines', run);
    else {
      push('lines', run.slice(0, before));
      push('fold', run.slice(before, run.length - after));
      push('lines', run.slice(run.length - after));
    }
    i = j;
  }
  return out;
}

/** How many lines changed (added or deleted). */
export function changedLines(lines: DiffLine[]): number {
  return lines.reduce((n, l) => n + (l.kind === 'same' ? 0 : 1), 0);
}
