/** Line diff (Myers, O((N+M)·D)) with common prefix/suffix trimmed and a cap on D. */
import type { DiffLine } from './api.ts';

export interface LineDiff {
  lines: DiffLine[];
  truncated: boolean;
}

/** Diffs two texts line by line. Past `maxEdits` differing lines, the rest is shown as one replaced block. */
export function diffLines(a: string, b: string, maxEdits = 2000): LineDiff {
  // Lines are compared without a trailing comma, so appending to a pretty-printed list or dict
  // does not show its previous last line as changed; the newer text is shown.
  const key = (line: string) => (line.endsWith(',') ? line.slice(0, -1) : line);
  const Atext = a.split('\n');
  const Btext = b.split('\n');
  const A = Atext.map(key);
  const B = Btext.map(key);
  let pre = 0;
  while (pre < A.length && pre < B.length && A[pre] === B[pre]) pre++;
  let suf = 0;
  while (suf < A.length - pre && suf < B.length - pre && A[A.length - 1 - suf] === B[B.length - 1 - suf])
    suf++;
  const a1 = A.slice(pre, A.length - suf);
  const b1 = B.slice(pre, B.length - suf);
  const head: DiffLine[] = Btext.slice(0, pre).map((text) => ({ kind: 'same', text }));
  const tail: DiffLine[] = Btext.slice(B.length - suf).map((text) => ({ kind: 'same', text }));
  const a2 = Atext.slice(pre, A.length - suf);
  const b2 = Btext.slice(pre, B.length - suf);
  const middle = myers(a1, b1, maxEdits);
  if (middle) {
    // Put the real text back (keys dropped trailing commas).
    let i = 0;
    let j = 0;
    for (const l of middle) {
      if (l.kind === 'del') l.text = a2[i++];
      else if (l.kind === 'add') l.text = b2[j++];
      else {
        i++;
        l.text = b2[j++];
      }
    }
    return { lines: [...head, ...middle, ...tail], truncated: false };
  }
  const block: DiffLine[] = [
    ...a2.map((text): DiffLine => ({ kind: 'del', text })),
    ...b2.map((text): DiffLine => ({ kind: 'add', text })),
  ];
  return { lines: [...head, ...block, ...tail], truncated: true };
}

function myers(a: string[], b: string[], maxD: number): DiffLine[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const off = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, off);
    }
    v = next;
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], D: number, off: number): DiffLine[] {
  const out: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = D; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]);
    const pk = down ? k + 1 : k - 1;
    const px = v[off + pk];
    const py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) {
      out.push({ kind: 'same', text: a[--x] });
      y--;
    }
    if (down) out.push({ kind: 'add', text: b[--y] });
    else out.push({ kind: 'del', text: a[--x] });
  }
  while (x > 0 && y > 0) {
    out.push({ kind: 'same', text: a[--x] });
    y--;
  }
  return out.reverse();
}
