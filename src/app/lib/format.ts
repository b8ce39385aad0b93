/** Small formatting helpers for the views. */

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Short form of a long id for tight places (the full id stays in the title). */
export function shortId(id: string, keep = 14): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id;
}

/** First line of a text, cut to `max` characters. */
export function preview(text: string, max = 140): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** 0.8723 → "87.2 %" (the e2e tests read it back). */
export function percent(x: number): string {
  return `${(100 * x).toFixed(1)} %`;
}

/** Seconds as milliseconds with one decimal. */
export function millis(seconds: number): string {
  return `${(1000 * seconds).toFixed(1)} ms`;
}

/** A snippet cut into plain and marked pieces (`marks`: sorted [start, length] pairs). */
export function markPieces(
  text: string,
  marks: readonly [number, number][],
): { text: string; mark: boolean }[] {
  const out: { text: string; mark: boolean }[] = [];
  let at = 0;
  for (const [start, length] of marks) {
    if (start < at || start + length > text.length) continue;
    if (start > at) out.push({ text: text.slice(at, start), mark: false });
    out.push({ text: text.slice(start, start + length), mark: true });
    at = start + length;
  }
  if (at < text.length) out.push({ text: text.slice(at), mark: false });
  return out;
}
