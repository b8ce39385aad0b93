/**
 * Line diff of two values (a memory unit before and after an op, two versions of a
 * prompt), with `diff` (jsdiff) doing the Myers diff. Lines are compared without a
 * trailing comma, so appending to a pretty-printed list or dict does not show its
 * previous last line as changed; common lines show the newer text.
 */
import { diffArrays } from 'diff';

/** One line of a line diff: kept, added or deleted. */
export interface DiffLine {
  kind: 'same' | 'add' | 'del';
  text: string;
}

interface LineDiff {
  lines: DiffLine[];
  /** True when the texts differ in more than `maxEdits` lines: the rest is one replaced block. */
  truncated: boolean;
}

const key = (line: string) => (line.endsWith(',') ? line.slice(0, -1) : line);

/** Diffs two texts line by line; past `maxEdits` differing lines, the differing middle is shown as one replaced block. */
export function diffLines(a: string, b: string, maxEdits = 2000): LineDiff {
  const A = a.split('\n');
  const B = b.split('\n');
  // Common head and tail first: cheap, and they keep a long mostly-equal value's diff small.
  let pre = 0;
  while (pre < A.length && pre < B.length && key(A[pre]) === key(B[pre])) pre++;
  let suf = 0;
  while (
    suf < A.length - pre &&
    suf < B.length - pre &&
    key(A[A.length - 1 - suf]) === key(B[B.length - 1 - suf])
  )
    suf++;
  const head: DiffLine[] = B.slice(0, pre).map((text) => ({ kind: 'same', text }));
  const tail: DiffLine[] = B.slice(B.length - suf).map((text) => ({ kind: 'same', text }));
  const a2 = A.slice(pre, A.length - suf);
  const b2 = B.slice(pre, B.length - suf);
  const changes = diffArrays(a2, b2, { comparator: (x, y) => key(x) === key(y), maxEditLength: maxEdits });
  if (!changes) {
    const block: DiffLine[] = [
      ...a2.map((text): DiffLine => ({ kind: 'del', text })),
      ...b2.map((text): DiffLine => ({ kind: 'add', text })),
    ];
    return { lines: [...head, ...block, ...tail], truncated: true };
  }
  const middle: DiffLine[] = changes.flatMap((c) =>
    c.value.map((text): DiffLine => ({ kind: c.added ? 'add' : c.removed ? 'del' : 'same', text })),
  );
  return { lines: [...head, ...middle, ...tail], truncated: false };
}
