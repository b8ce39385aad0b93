/**
 * The deterministic components of the offline mode — no model anywhere:
 * extractive facts (sentences with enough content), lexical boundaries (a topic shift
 * in content words, or the forced limits), extractive answers (the context sentence that
 * best matches the question), and a lexical sufficiency check.
 */
import { LexicalIndex } from './lexical.ts';
import { contentTokens, countTokens, overlap, sentences, tokens } from './text.ts';
import type { Turn } from './types.ts';

/** Offline fact extraction: the turn's sentences that carry ≥ 3 content words, as "Speaker: sentence". */
export function extractFacts(turn: Turn): string[] {
  return sentences(turn.text)
    .filter((s) => contentTokens(s).length >= 3 && !s.trim().endsWith('?'))
    .map((s) => `${turn.speaker}: ${s}`);
}

/** Offline boundary: the segment is long enough and the new turn shares almost no content words with its recent turns. */
export function lexicalBoundary(segment: Turn[], next: Turn): boolean {
  if (segment.length === 0) return false;
  if (segment.length >= 50) return true;
  if (countTokens(segment.map((t) => t.text).join('\n')) >= 8192) return true;
  if (segment.length < 6) return false;
  const recent = segment
    .slice(-3)
    .map((t) => t.text)
    .join(' ');
  return overlap(recent, next.text) < 0.04;
}

const WH = new Set([
  'what',
  'when',
  'where',
  'who',
  'whom',
  'which',
  'why',
  'how',
  'did',
  'does',
  'do',
  'is',
  'was',
]);

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Reads "1:56 pm on 8 May, 2023" / "8 May 2023" / "2023/05/20 (Sat) 02:21" / "2025-12-28 (Sunday)". */
export function parseLooseDate(text: string): Date | null {
  let m = /(\d{1,2})\s+([A-Z][a-z]+),?\s+(\d{4})/.exec(text);
  if (m) {
    const month = MONTHS.indexOf(m[2]);
    if (month >= 0) return new Date(Date.UTC(Number(m[3]), month, Number(m[1])));
  }
  m = /(\d{4})[/-](\d{1,2})[/-](\d{1,2})/.exec(text);
  if (m) return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return null;
}

const fmt = (d: Date) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

/** Resolves a relative time expression of a sentence against the date it was said; null when there is none. */
export function resolveRelativeDate(sentence: string, said: Date): string | null {
  const s = sentence.toLowerCase();
  const day = (n: number) => new Date(said.getTime() + n * 86_400_000);
  if (/\byesterday\b/.test(s)) return fmt(day(-1));
  if (/\btoday\b|\bthis morning\b|\btonight\b/.test(s)) return fmt(said);
  if (/\btomorrow\b/.test(s)) return fmt(day(1));
  if (/\blast year\b/.test(s)) return String(said.getUTCFullYear() - 1);
  if (/\bnext year\b/.test(s)) return String(said.getUTCFullYear() + 1);
  if (/\blast (week|weekend)\b|\bfew days ago\b/.test(s)) return `the week before ${fmt(said)}`;
  if (/\blast (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/.exec(s))
    return `the ${/\blast (\w+)/.exec(s)?.[1]} before ${fmt(said)}`;
  if (/\blast month\b/.test(s)) {
    const d = new Date(Date.UTC(said.getUTCFullYear(), said.getUTCMonth() - 1, 1));
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  }
  if (/\b(this|next) month\b/.test(s)) {
    const d = new Date(
      Date.UTC(said.getUTCFullYear(), said.getUTCMonth() + (/next month/.test(s) ? 1 : 0), 1),
    );
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  }
  return null;
}

/**
 * Offline answer: the sentence of the context most similar to the question (BM25 over
 * sentences, questions skipped), or "I don't know." when nothing matches. For "when"
 * questions a relative date in that sentence is resolved against the date of its context
 * item ("date | …" or "date: …"), and otherwise the item's date is appended.
 */
export function extractiveAnswer(question: string, context: string[]): string {
  const index = new LexicalIndex<number>();
  const all: { text: string; date: Date | null }[] = [];
  for (const c of context) {
    const head = /^(.{4,40}?)(?: \| |: )/.exec(c)?.[1] ?? '';
    const itemDate = parseLooseDate(head);
    for (const s of sentences(c)) {
      if (s.endsWith('?')) continue; // questions rarely hold answers
      const lineDate = parseLooseDate(/^(.{4,40}?) \| /.exec(s)?.[1] ?? '') ?? itemDate;
      index.set(all.length, s);
      all.push({ text: s, date: lineDate });
    }
  }
  const q = tokens(question)
    .filter((t) => !WH.has(t))
    .join(' ');
  const best = index.search(q, 1)[0];
  if (!best) return "I don't know.";
  const { text, date } = all[best.key];
  const sentence = text.replace(/^.*?\|\s*/, '').trim();
  if (/^\s*when\b/i.test(question) && date)
    return resolveRelativeDate(sentence, date) ?? `${sentence} (${fmt(date)})`;
  return sentence;
}

/** Offline sufficiency: the retrieved text covers at least 60 % of the question's content words. */
export function lexicallySufficient(question: string, context: string[]): boolean {
  const q = new Set(contentTokens(question));
  if (q.size === 0) return true;
  const have = new Set(contentTokens(context.join(' ')));
  let hit = 0;
  for (const t of q) if (have.has(t)) hit++;
  return hit / q.size >= 0.6;
}

/** Offline query rewriting: the question's content words, and a temporal variant. */
export function rewriteQueries(question: string): string[] {
  const content = contentTokens(question).join(' ');
  return [content, `${content} date time when`].filter((q) => q.trim().length > 0);
}
