/** Sentences of a text and the windows of them where one fact is stated. */

/** Sentences (or lines) of a text, for picking the part of a long message that matters. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/**
 * Windows of one or two consecutive sentences: where a summary or a chunk states one fact.
 * A text of at most two sentences is its own only window.
 */
export function sentenceWindows(text: string): string[] {
  const parts = sentences(text);
  if (parts.length <= 2) return [text];
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    out.push(parts[i]);
    if (i + 1 < parts.length) out.push(`${parts[i]} ${parts[i + 1]}`);
  }
  return out;
}
