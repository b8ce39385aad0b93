/**
 * The critical information of a failed question — what makes its golden answer
 * derivable — and the test of whether a memory unit still carries it.
 *
 * Not the evidence message's wording: an LLM writes "Caroline went camping in the
 * mountains with her kids in June 2023" for "we took the kids to the mountains and
 * slept in tents last month!". What must survive is
 *   - the answer as the evidence states it: the golden answer's words that the
 *     evidence holds (normalised: lemmas, stems, number words), or its time span
 *     when the golden answer is a date ("last month" said in July 2023 states
 *     "June 2023");
 *   - the anchors that tie it to the question: the names it asks about (the
 *     speaker of a first-person message counts as named) and its topic words,
 *     matched by meaning (word vectors) when the matcher has them.
 * When the evidence does not state the golden answer at all (inference, arithmetic
 * on dates), `supported` is false and callers fall back to following the evidence's
 * own words.
 */

import { type DaySpan, spanStates, temporalMentions } from '../text/temporal.ts';
import { contentTerms, type Term, termKey } from '../text/terms.ts';
import type { Said } from './said.ts';

/** How similar two terms are in meaning (0–1); exact keys are handled before it is asked. */
export interface TermSimilarity {
  similarity(a: Term, b: Term): number;
}

export interface CriticalOptions {
  /** Word meaning for topic anchors and answer words; absent = exact normalised keys only. */
  similar?: TermSimilarity | null;
  /** Similarity at which a topic word counts as present (default 0.5). */
  topicSimilarity?: number;
  /** Similarity at which the evidence counts as holding a question topic word (default 0.45: "camping" ~ "tents"). */
  supportSimilarity?: number;
  /** Similarity at which an answer word counts as present (default 0.8: near-synonyms only). */
  answerSimilarity?: number;
}

export interface CriticalInfo {
  /** The evidence states (part of) the golden answer. */
  supported: boolean;
  /** The golden answer is free text (a whole reply): follow the evidence's own words, and blame what loses them. */
  freeText: boolean;
  /** Golden-answer terms the evidence states (keys). */
  answerTerms: Term[];
  /** All content terms of the golden answer (for the share a long answer needs). */
  goldenTermCount: number;
  /** The golden answer's time span, when it is a time the evidence states. */
  answerSpan: DaySpan | null;
  /** The evidence's relative time words when its day is unknown ("yesterday"): a unit keeping them keeps the time. */
  answerRelative: string | null;
  /** Names the question asks about that the evidence holds (lower case). */
  entities: string[];
  /** Question topic terms the evidence holds. */
  topics: Term[];
  /** The evidence's day: relative dates of units without a day of their own are read against it. */
  day: number | null;
}

const TIME_WORDS = new Set(
  'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday week weeks weekend weekends month months year years day days before after ago last next'.split(
    ' ',
  ),
);
/** Default similarity at which an answer word counts as present (`CriticalOptions.answerSimilarity`). */
const ANSWER_SIMILARITY = 0.8;

/** Question words that name no topic: "what kind of…", light verbs ("go", "get", "do"). */
const QUESTION_WORDS = new Set(
  'kind type sort name names thing things say said mention mentioned tell told think like likely favorite favourite go goes going went get gets got do doing done make makes made take takes took come came have having'.split(
    ' ',
  ),
);

/** Capitalised words of a question other than its first word: the people and places it asks about. */
export function questionNames(question: string): string[] {
  const words = question.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
  const out: string[] = [];
  words.forEach((w, i) => {
    if (i === 0 || !/^\p{Lu}/u.test(w)) return;
    const name = w.replace(/['’]s$/u, '').toLowerCase();
    if (name.length >= 2 && !out.includes(name)) out.push(name);
  });
  return out;
}

/** "mel" and "melanie" name the same person; so do "caroline's" and "caroline". */
function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  return s.length >= 3 && l.startsWith(s);
}

function hasName(name: string, terms: Term[], speaker: string | null): boolean {
  if (speaker?.split(/\s+/).some((p) => sameName(name, p))) return true;
  return terms.some((t) => sameName(name, t.surface));
}

function termPresent(t: Term, terms: Term[], similar: TermSimilarity | null, min: number): boolean {
  for (const u of terms) if (u.key === t.key) return true;
  if (!similar || /^\d/.test(t.key)) return false;
  for (const u of terms) if (!/^\d/.test(u.key) && similar.similarity(t, u) >= min) return true;
  return false;
}

function daySpan(day: number): DaySpan {
  return { start: day, end: day, fuzz: 0 };
}

function goldenSpan(golden: string): DaySpan | null {
  for (const m of temporalMentions(golden, null)) if (m.span && m.relative === null) return m.span;
  return null;
}

/** The critical information one evidence text holds for a question. */
export function criticalInfo(
  evidence: Said,
  question: string,
  goldenAnswers: readonly string[],
  options: CriticalOptions = {},
): CriticalInfo {
  const similar = options.similar ?? null;
  const supportMin = options.supportSimilarity ?? 0.45;
  const answerMin = options.answerSimilarity ?? ANSWER_SIMILARITY;
  const evTerms = contentTerms(evidence.text);
  const names = questionNames(question);
  const nameSet = new Set(names);
  const mentions = temporalMentions(evidence.text, evidence.day);
  const questionTerms = contentTerms(question);
  const questionKeys = new Set(questionTerms.map((t) => t.key));

  let best: CriticalInfo | null = null;
  for (const golden of goldenAnswers) {
    const span = goldenSpan(golden);
    const gTerms = contentTerms(golden).filter(
      (t) =>
        !nameSet.has(t.surface) &&
        !(span && (TIME_WORDS.has(t.surface) || /^\d+(st|nd|rd|th)?$/.test(t.surface))),
    );
    const stated = gTerms.filter((t) => termPresent(t, evTerms, similar, answerMin));
    // Answer words the question already says ("dairy-free" in "dairy-free chocolate mousse" for
    // "Nate's favourite dairy-free treat?") tell nothing about whether a text holds the answer:
    // count only the new ones, when there are any.
    const novel = stated.filter((t) => !questionKeys.has(t.key));
    const answerTerms = novel.length ? novel : stated;
    let answerSpan: DaySpan | null = null;
    let answerRelative: string | null = null;
    if (span) {
      if (mentions.some((m) => m.span && spanStates(m.span, span))) answerSpan = span;
      else if (evidence.day === null) answerRelative = mentions.find((m) => m.relative)?.relative ?? null;
      // "I just got accepted for an internship!" said on 27 May: the day it was said is the answer.
      else if (mentions.length === 0 && spanStates(daySpan(evidence.day), { ...span, fuzz: 0 }))
        answerSpan = span;
    }
    const answerKeys = new Set(gTerms.map((t) => t.key));
    const questionTopics = questionTerms.filter(
      (t) =>
        !nameSet.has(t.surface) &&
        !answerKeys.has(t.key) &&
        !TIME_WORDS.has(t.surface) &&
        !QUESTION_WORDS.has(t.surface),
    );
    const topics = questionTopics.filter((t) => termPresent(t, evTerms, similar, supportMin));
    // A relative time with no day to read it against ("last week") states an unknown date:
    // it counts only when the message is about the question's topic.
    if (answerRelative !== null && questionTopics.length > 0 && topics.length === 0) answerRelative = null;
    const freeText = gTerms.length >= LONG_ANSWER;
    const supported = !freeText && (answerTerms.length > 0 || answerSpan !== null || answerRelative !== null);
    const info: CriticalInfo = {
      supported,
      freeText,
      answerTerms,
      goldenTermCount: gTerms.length,
      answerSpan,
      answerRelative,
      entities: names.filter((n) => hasName(n, evTerms, evidence.speaker)),
      topics,
      day: evidence.day,
    };
    const weight = (x: CriticalInfo) => (x.answerSpan || x.answerRelative ? 2 : 0) + x.answerTerms.length;
    if (!best || weight(info) > weight(best)) best = info;
  }
  return (
    best ?? {
      supported: false,
      freeText: false,
      answerTerms: [],
      goldenTermCount: 0,
      answerSpan: null,
      answerRelative: null,
      entities: names.filter((n) => hasName(n, evTerms, evidence.speaker)),
      topics: [],
      day: evidence.day,
    }
  );
}

/**
 * A free-text golden answer (an assistant's whole reply, as in RealMem) is no fact a memory
 * states: such evidence is followed by its own words (`freeText`).
 */
const LONG_ANSWER = 15;

/** Share of answer words a unit must keep: all of a short answer, two in three or half of longer ones. */
function answerNeed(c: CriticalInfo): number {
  const n = c.answerTerms.length;
  if (n <= 2) return n;
  return Math.max(2, Math.ceil(n * (c.goldenTermCount > 6 ? 0.5 : 0.67)));
}

/** Topic words a unit must keep: at least half (at least one). */
function topicNeed(c: CriticalInfo): number {
  return Math.ceil(c.topics.length / 2);
}

/**
 * A text that keeps every word of a several-word answer ("aerial yoga") ties it to the
 * question with one topic word: an LLM's memory keeps the fact, not the question's wording.
 */
function keepsWholeAnswer(terms: Term[], c: CriticalInfo, options: CriticalOptions): boolean {
  return c.answerTerms.length >= 2 && answerWordsKept(terms, c, options) === c.answerTerms.length;
}

/** How many of the answer's words the text keeps (near-synonyms by word meaning). */
function answerWordsKept(terms: Term[], c: CriticalInfo, options: CriticalOptions): number {
  const min = options.answerSimilarity ?? ANSWER_SIMILARITY;
  return c.answerTerms.filter((t) => termPresent(t, terms, options.similar ?? null, min)).length;
}

/** Does the text keep the answer: the time the evidence states, and enough of the answer's words? */
export function keepsAnswer(
  said: Said,
  c: CriticalInfo,
  options: CriticalOptions = {},
  terms = contentTerms(said.text),
): boolean {
  if (c.answerSpan || c.answerRelative) {
    const span = c.answerSpan;
    const ms = temporalMentions(said.text, said.day ?? c.day);
    const ok =
      ms.some(
        (m) =>
          (span && m.span && spanStates(m.span, span)) ||
          (c.answerRelative !== null && m.relative === c.answerRelative),
      ) ||
      // A unit with a day of its own and no time in its text happened that day.
      // (Strictly: the day a memory was written is not "the week before" it.)
      (span !== null &&
        said.day !== null &&
        ms.length === 0 &&
        spanStates(daySpan(said.day), { ...span, fuzz: 0 }));
    if (!ok) return false;
  }
  if (c.answerTerms.length && answerWordsKept(terms, c, options) < answerNeed(c)) return false;
  return true;
}

/**
 * Does one piece of text (a fact, a sentence window of a summary) state the critical
 * information — the names, the answer, and enough of the topic? `undecided` when it
 * has the names and the answer but too few topic words: the middle band a model may
 * decide (carry-judge.ts).
 */
export function judgeText(
  said: Said,
  c: CriticalInfo,
  options: CriticalOptions & { middleBand?: boolean } = {},
): 'yes' | 'no' | 'undecided' {
  const terms = contentTerms(said.text);
  // One named person suffices: "Caroline had a great time at the Pride fest" answers a question about Caroline and Melanie.
  if (c.entities.length && !c.entities.some((n) => hasName(n, terms, said.speaker))) return 'no';
  // Topic words before the answer: reading dates is the expensive check.
  let topical = true;
  if (c.topics.length) {
    const min = options.topicSimilarity ?? 0.5;
    const kept = c.topics.filter((t) => termPresent(t, terms, options.similar ?? null, min)).length;
    topical = kept >= topicNeed(c) || (kept > 0 && keepsWholeAnswer(terms, c, options));
  }
  if (!topical && !options.middleBand) return 'no';
  if (!keepsAnswer(said, c, options, terms)) return 'no';
  return topical ? 'yes' : 'undecided';
}

/** `judgeText` without a middle band. */
export function statesCritical(said: Said, c: CriticalInfo, options: CriticalOptions = {}): boolean {
  return judgeText(said, c, options) === 'yes';
}

/** The key of a word as `contentTerms` makes it (for callers holding a bare word). */
export function termOf(word: string): Term {
  const surface = word.toLowerCase();
  return { surface, key: termKey(surface) };
}
