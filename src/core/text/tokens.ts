/**
 * Token F1, the answer metric of SQuAD and of LoCoMo's evaluation: both texts lower-cased,
 * punctuation and the words "a", "an", "the", "and" dropped, then the F1 of their word
 * multisets. A judge that scores so reads every word, dates and times included ("9:16 am on 10
 * August, 2022" holds "9", "august" and "2022"). The benchmark generator's judge
 * (src/systems/text.ts) keeps its own copy on purpose: labels stay independent of the
 * attributor they score.
 */

/** A text's words as token F1 counts them. */
export function answerTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && w !== 'a' && w !== 'an' && w !== 'the' && w !== 'and');
}

/** Token F1 of two word lists (`answerTokens`), 0 when either is empty. */
export function tokenF1(text: readonly string[], golden: readonly string[]): number {
  if (text.length === 0 || golden.length === 0) return 0;
  const left = new Map<string, number>();
  for (const w of golden) left.set(w, (left.get(w) ?? 0) + 1);
  let same = 0;
  for (const w of text) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      same++;
      left.set(w, n - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / text.length;
  const recall = same / golden.length;
  return (2 * precision * recall) / (precision + recall);
}
