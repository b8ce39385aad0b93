/**
 * Does a stored value still carry a piece of evidence? Values are split into
 * units (list items, dict values — a memory store's entries — or lines of free
 * text), and a unit carries the evidence when it holds most of the evidence's
 * content words, including every answer word the evidence holds. Lexical on
 * purpose: deterministic, fast, and explainable in a sentence.
 */

import { tokenize } from '../retrieval/tokenize.ts';
import { parseValue } from '../trace/pyrepr.ts';

const STOPWORDS = new Set(
  'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its just me my no not of on or our she so than that the their them then there they this to too up us was we were what when where which who whom why will with would you your yes yeah oh wow hey hi ok okay really very much also about'.split(
    ' ',
  ),
);

/** Words that carry content: stop words and single letters out; numbers (days, counts) always in. */
export function contentTokens(text: string): string[] {
  return tokenize(text).filter((t) => (t.length > 1 || (t >= '0' && t <= '9')) && !STOPWORDS.has(t));
}

/** The human text of a value: message JSON → its `content` (or all string fields), repr string → unquoted. */
export function evidenceText(value: string): string {
  const v = parseValue(value);
  if (typeof v === 'string') {
    const inner = parseValue(v);
    if (inner && typeof inner === 'object' && !Array.isArray(inner) && typeof inner.content === 'string')
      return inner.content;
    return v;
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if (typeof v.content === 'string') return v.content;
    if (typeof v.text === 'string') return v.text;
  }
  return value;
}

/** Units of a stored value, keyed when the value is a dict (so a deleted entry can be told from a changed one). */
export interface ValueUnits {
  /** dict entries and list items are memory units; lines of free text are not (the text is one unit). */
  kind: 'dict' | 'list' | 'text';
  keyed: boolean;
  keys: string[];
  texts: string[];
}

function leaves(v: unknown, out: string[], depth = 0) {
  if (depth > 20) return;
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number' || typeof v === 'boolean') return;
  else if (Array.isArray(v)) for (const x of v) leaves(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) leaves(x, out, depth + 1);
}

export function splitUnits(value: string): ValueUnits {
  const v = parseValue(value);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const texts = keys.map((k) => {
      const parts: string[] = [];
      leaves(v[k], parts);
      return parts.join(' ');
    });
    return { kind: 'dict', keyed: true, keys, texts };
  }
  if (Array.isArray(v)) {
    const texts = v.map((x) => {
      const parts: string[] = [];
      leaves(x, parts);
      return parts.join(' ');
    });
    return { kind: 'list', keyed: false, keys: texts.map((_, i) => String(i)), texts };
  }
  const text = typeof v === 'string' ? v : value;
  const texts = text.split(/\n+/).filter((t) => t.trim() !== '');
  return { kind: 'text', keyed: false, keys: texts.map((_, i) => String(i)), texts };
}

export interface Evidence {
  /** Distinct content words of the evidence. */
  tokens: Set<string>;
  /** Runs of three consecutive content words: a verbatim or near-verbatim copy shares most of them. */
  shingles: Set<string>;
  /** Golden-answer words that the evidence itself contains: a carrier must keep them. */
  answerTokens: Set<string>;
  /**
   * Evidence words the question also uses — what links the evidence to the question.
   * A carrier keeps all of them when there are at most three, else three in four.
   */
  keyTokens: Set<string>;
  /** Content words in the evidence, with repeats (its length). */
  length: number;
}

function shinglesOf(words: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 2 < words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

/** Sentences (or lines) of a text, for picking the part of a long message that matters. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/**
 * The part of an evidence message that bears on the question: the sentences that
 * share the most words with the question and golden answer (golden words count
 * double). A message of several sentences is often stored as several facts; the
 * fact that matters holds this part. The whole text when no sentence overlaps.
 */
export function evidenceCore(text: string, question: string, goldenAnswers: readonly string[]): string {
  const parts = sentences(text);
  if (parts.length <= 1) return text;
  const q = new Set(contentTokens(question));
  const gold = new Set(goldenAnswers.flatMap((x) => contentTokens(x)));
  const scores = parts.map((p) => {
    let s = 0;
    for (const t of new Set(contentTokens(p))) s += (gold.has(t) ? 2 : 0) + (q.has(t) ? 1 : 0);
    return s;
  });
  const best = Math.max(...scores);
  if (best === 0) return text;
  return parts.filter((_, i) => scores[i] === best).join(' ');
}

export function makeEvidence(text: string, goldenAnswers: readonly string[], question = ''): Evidence {
  const words = contentTokens(text);
  const tokens = new Set(words);
  const answer = new Set(goldenAnswers.flatMap((g) => contentTokens(g)));
  const answerTokens = new Set([...answer].filter((t) => tokens.has(t)));
  const keyTokens = new Set(contentTokens(question).filter((t) => tokens.has(t) && !answerTokens.has(t)));
  return { tokens, shingles: shinglesOf(words), answerTokens, keyTokens, length: words.length };
}

export interface MatchOptions {
  /** Share of the evidence's content words a unit of comparable size must hold (default 0.5). */
  minRecall?: number;
  /** Share of the evidence's three-word runs a unit of any size must hold (default 0.5). */
  minContainment?: number;
}

/**
 * How well one unit carries the evidence, 0–1 (0 if an answer word is missing):
 * the share of the evidence's three-word runs found in the unit (copies, chunks and
 * windows that hold the message among others), or — for units not much longer than
 * the evidence, such as extracted facts that paraphrase it — the share of its words.
 * A long unit gets no credit for words alone: a chunk on the same topic shares many
 * words with the evidence without holding it.
 */
export function unitScore(unit: string, e: Evidence, options: Required<MatchOptions>): number {
  if (e.tokens.size === 0) return 0;
  const words = contentTokens(unit);
  const set = new Set(words);
  for (const t of e.answerTokens) if (!set.has(t)) return 0;
  if (e.keyTokens.size > 0) {
    let kept = 0;
    for (const t of e.keyTokens) if (set.has(t)) kept++;
    if (e.keyTokens.size <= 3 ? kept < e.keyTokens.size : kept < 0.75 * e.keyTokens.size) return 0;
  }
  let containment = 0;
  if (e.shingles.size > 0) {
    let hit = 0;
    for (const sh of shinglesOf(words)) if (e.shingles.has(sh)) hit++;
    containment = hit / e.shingles.size;
    if (containment >= options.minContainment) return containment;
  }
  if (words.length > 3 * e.length + 10) return 0;
  let hit = 0;
  for (const t of e.tokens) if (set.has(t)) hit++;
  const recall = hit / e.tokens.size;
  return recall >= options.minRecall ? recall : 0;
}

/** Caches unit splits per variable: one attribution run asks about the same values many times. */
export class Matcher {
  private units = new Map<number, ValueUnits>();
  private lower = new Map<number, string>();
  readonly options: Required<MatchOptions>;
  constructor(
    private readonly textOf: (v: number) => string,
    options: MatchOptions = {},
  ) {
    this.options = { minRecall: options.minRecall ?? 0.5, minContainment: options.minContainment ?? 0.5 };
  }
  unitsOf(v: number): ValueUnits {
    let u = this.units.get(v);
    if (!u) {
      u = splitUnits(this.textOf(v));
      this.units.set(v, u);
    }
    return u;
  }
  /** Index of the best carrying unit of v, or -1. */
  carrierUnit(v: number, e: Evidence): number {
    if (e.tokens.size === 0) return -1;
    let low = this.lower.get(v);
    if (low === undefined) {
      low = this.textOf(v).toLowerCase();
      // Only cache small values; a 20 kB window lower-cased per version would double memory.
      if (low.length < 4096) this.lower.set(v, low);
    }
    // Cheap necessary condition (no false negatives): every answer word and enough
    // evidence words must occur somewhere in the value as substrings.
    for (const t of e.answerTokens) if (!low.includes(t)) return -1;
    let present = 0;
    for (const t of e.tokens) if (low.includes(t)) present++;
    if (present < Math.min(this.options.minRecall, this.options.minContainment) * e.tokens.size) return -1;
    const u = this.unitsOf(v);
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < u.texts.length; i++) {
      const s = unitScore(u.texts[i], e, this.options);
      if (s > bestScore) {
        best = i;
        bestScore = s;
      }
    }
    return best;
  }
  carries(v: number, e: Evidence): boolean {
    return this.carrierUnit(v, e) >= 0;
  }
}
