/** Small text utilities of the offline components: tokens, sentences, overlap, token counts. */

const STOP = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being am do does did ' +
    'have has had i me my mine we us our you your yours he him his she her hers it its they them their theirs ' +
    'this that these those there here what which who whom whose when where why how not no so than too very can ' +
    'will would should could just about into over also some any all more most such only own same then once ' +
    'yeah yes oh hey hi wow really thanks thank lol im ive its dont'
  ).split(' '),
);

/** Lower-cased `[a-z0-9]+` tokens (the paper's BM25 tokenisation, without `_`). */
export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

export function contentTokens(text: string): string[] {
  return tokens(text).filter((t) => !STOP.has(t));
}

/** Rough token count (≈4 characters a token) — the budget unit of buffers and windows. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Sentences of a text (splits on . ! ? and new lines, keeps the punctuation). */
export function sentences(text: string): string[] {
  return (text.match(/[^.!?\n]+[.!?]*/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Jaccard overlap of content-token sets. */
export function overlap(a: string, b: string): number {
  const A = new Set(contentTokens(a));
  const B = new Set(contentTokens(b));
  if (A.size === 0 || B.size === 0) return 0;
  let inter = 0;
  for (const t of A) if (B.has(t)) inter++;
  return inter / (A.size + B.size - inter);
}

/** SQuAD-style normalisation: lower case, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, ' ')
    .replace(/\b(a|an|the|and)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Token F1 between a prediction and a golden answer (normalised tokens). */
export function tokenF1(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  if (p.length === 0 || g.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}
