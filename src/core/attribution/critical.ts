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

import {
  contentTerms,
  type DaySpan,
  dayText,
  spanStates,
  spanText,
  type TemporalMention,
  type Term,
  temporalMentions,
  termKey,
} from '../nlp/index.ts';
import { answerTokens, sentences, sentenceWindows, tokenF1 } from '../text/index.ts';
import {
  type AnswerFeatures,
  type AnswerRule,
  type DateRelation,
  dateAccepted,
  PRIOR_ANSWER_RULE,
  readsDatesAsWords,
  type WordMatch,
  wordsNeeded,
} from './answer-rule.ts';
import type { Said } from './said.ts';

/** How similar two terms are in meaning (0–1); exact keys are handled before it is asked. */
interface TermSimilarity {
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
  /** When a text gives the answer (default: the prior; a trace's judge teaches another, `judge-fit.ts`). */
  rule?: AnswerRule;
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
  /** The golden answer's content words (keys), for F1 rules. */
  goldenKeys: string[];
  /** The golden answer's content words, for the judge's count of a memory standing in for this message (`keepsOwnShare`). */
  goldenTerms: Term[];
  /** The golden answer's time span, when it is a time the evidence states. */
  answerSpan: DaySpan | null;
  /** A dated golden answer's time words and numbers ("may", "7", "2023"), for rules reading dates as words. */
  dateTerms: Term[];
  /** The evidence's relative time words when its day is unknown ("yesterday"): a unit keeping them keeps the time. */
  answerRelative: string | null;
  /** Names the question asks about that the evidence holds (lower case). */
  entities: string[];
  /** Question topic terms the evidence holds. */
  topics: Term[];
  /** The evidence's day: relative dates of units without a day of their own are read against it. */
  day: number | null;
  /**
   * A question about time whose answer is no date ("How long did it take…", "six months"):
   * the times the evidence states (resolved against its day). A text keeps the evidence's
   * information only with one of them: "lost my job yesterday" stored as "lost his job on an
   * unspecified date" lost what the answer is computed from.
   */
  eventTimes: DaySpan[];
  /** The answer words in the golden answer's order (phrase rules). */
  phrase: string[];
  /** The part of a list answer the evidence was read against (`answerParts`); null: the whole answer. */
  part: string | null;
  /** The whole golden answer as written (token rules read it whole). */
  golden: string;
  /** The evidence message's content words (what a judge would read in it). */
  messageTerms: Term[];
  /**
   * The evidence's own words for answer terms it states in another form of the same lemma ("dance"
   * for the golden "dancing"), by the term's key: a text holding the evidence's word keeps the term
   * as well as the evidence does — no stage is blamed for a form its input never had.
   */
  forms: ReadonlyMap<string, readonly Term[]>;
  /**
   * The content words of each of the case's other evidence messages (`withOthers`): a judge
   * counting a share of the answer's words takes theirs with what a memory keeps of this one.
   */
  others: Term[][];
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
  'kind type sort name names thing things say said mention mentioned tell told think like likely favorite favourite go goes going went get gets got do doing done make makes made take takes took come came have having both start started starting begin began'.split(
    ' ',
  ),
);

/** Capitalised words of a question other than its first word: the people and places it asks about. */
function questionNames(question: string): string[] {
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

/** What may come right before a name the listener is addressed by: a sentence start, a comma, a greeting. */
const BEFORE_ADDRESS =
  /(?:^|[.!?,]\s*|\b(?:hey|hi|hello|yep|yeah|yes|no|thanks|oh|wow|well|sure|ok|okay|aww?|congrats)[,!]?\s+)$/i;

/**
 * Is the name only said to the listener ("Yep, Melanie! I've got a hand-painted bowl", "Hey
 * Mel!")? Then the message is not about that person, and a memory need not name them to keep
 * what it says.
 */
function onlyAddressed(name: string, text: string): boolean {
  let said = 0;
  for (const m of text.matchAll(/\p{L}[\p{L}'’-]*/gu)) {
    if (!sameName(name, m[0].toLowerCase())) continue;
    said++;
    const end = m.index + m[0].length;
    const addressed = BEFORE_ADDRESS.test(text.slice(0, m.index)) && /^\s*(?:[!?.,]|$)/.test(text.slice(end));
    if (!addressed) return false;
  }
  return said > 0;
}

/**
 * The question's names the evidence holds, which a memory keeping it names (one suffices). None
 * when the evidence only addresses them ("Yep, Melanie! My hand-painted bowl…" is not about
 * Melanie, whatever the question says).
 */
function namesAbout(names: readonly string[], evTerms: Term[], evidence: Said): string[] {
  const held = names.filter((n) => hasName(n, evTerms, evidence.speaker));
  const speaking = (n: string) => evidence.speaker?.split(/\s+/).some((p) => sameName(n, p)) ?? false;
  return held.every((n) => !speaking(n) && onlyAddressed(n, evidence.text)) ? [] : held;
}

function termPresent(t: Term, terms: Term[], similar: TermSimilarity | null, min: number): boolean {
  for (const u of terms) if (u.key === t.key) return true;
  if (!similar || /^\d/.test(t.key)) return false;
  for (const u of terms) if (!/^\d/.test(u.key) && similar.similarity(t, u) >= min) return true;
  return false;
}

/** One word is the other with a prefix or suffix ("destress" / "stress"): the same topic. */
function sharesStem(a: string, b: string): boolean {
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  return s.length >= 5 && s !== l && (l.startsWith(s) || l.endsWith(s));
}

/** A question topic word in a text: by lemma, by a shared stem, or by meaning. */
function topicPresent(t: Term, terms: Term[], similar: TermSimilarity | null, min: number): boolean {
  return termPresent(t, terms, similar, min) || terms.some((u) => sharesStem(t.key, u.key));
}

function daySpan(day: number): DaySpan {
  return { start: day, end: day, fuzz: 0 };
}

function goldenSpan(golden: string): DaySpan | null {
  for (const m of temporalMentions(golden, null)) if (m.span && m.relative === null) return m.span;
  return null;
}

/**
 * How a time stands to the golden span: outside it (beyond the looser slack of the two),
 * much coarser ("May 2023" for "7 May 2023"), much finer and inside it ("8 February" for
 * "February 2023"), else the same.
 */
function dateRelation(time: DaySpan, golden: DaySpan): DateRelation {
  if (!spanStates(time, golden)) {
    const fuzz = Math.max(time.fuzz, golden.fuzz);
    const overlaps = time.end + fuzz >= golden.start && time.start - fuzz <= golden.end;
    return overlaps ? 'coarser' : 'outside';
  }
  const len = (x: DaySpan) => x.end - x.start + 1;
  return 3 * len(time) <= len(golden) && time.start >= golden.start && time.end <= golden.end
    ? 'finer'
    : 'same';
}

const RELATION_RANK: Record<DateRelation, number> = { same: 3, finer: 2, coarser: 1, outside: 0 };

/** The best relation of a text's times to the golden span: its own time expressions, else the day it was written. */
function textDateRelation(said: Said, golden: DaySpan, fallbackDay: number | null): DateRelation | null {
  const ms = temporalMentions(said.text, said.day ?? fallbackDay);
  let best: DateRelation | null = null;
  for (const m of ms)
    if (m.span) {
      const r = dateRelation(m.span, golden);
      if (best === null || RELATION_RANK[r] > RELATION_RANK[best]) best = r;
    }
  // A unit with a day of its own and no time in its text happened that day.
  if (ms.length === 0 && said.day !== null) best = dateRelation(daySpan(said.day), { ...golden, fuzz: 0 });
  return best;
}

/** Questions about time: "when", "how long", "how many days / weeks / months / years", "what year". */
const TIME_QUESTION =
  /^\s*when\b|\bhow long\b|\bhow many (?:days|weeks|months|years)\b|\bwhat (?:year|month|date|day)\b|\bsince when\b/i;

/** The golden answer as every carrying test reads it: its answer words, their order, its span. */
interface GoldenAnswer {
  span: DaySpan | null;
  /** Answer words: content words that are no question name (nor, for a date, time words). */
  terms: Term[];
  /** A date's time words and numbers, left out of `terms`. */
  dateTerms: Term[];
  /** The answer words the question does not already say (all of them when it says every one). */
  novel: Term[];
}

/** Reads one golden answer against its question. */
function goldenAnswer(golden: string, question: string): GoldenAnswer {
  const span = goldenSpan(golden);
  const names = new Set(questionNames(question));
  const questionKeys = new Set(contentTerms(question).map((t) => t.key));
  const named = contentTerms(golden).filter((t) => !names.has(t.surface));
  const isDateWord = (t: Term) =>
    span !== null && (TIME_WORDS.has(t.surface) || /^\d+(st|nd|rd|th)?$/.test(t.surface));
  const terms = named.filter((t) => !isDateWord(t));
  // Answer words the question already says ("dairy-free" in "dairy-free chocolate mousse" for
  // "Nate's favourite dairy-free treat?") tell nothing about whether a text holds the answer.
  const novel = terms.filter((t) => !questionKeys.has(t.key));
  return { span, terms, dateTerms: named.filter(isDateWord), novel: novel.length ? novel : terms };
}

/** The golden answer with its date read as words: its time words and numbers are answer words too. */
function datedAsWords(g: GoldenAnswer): GoldenAnswer {
  const terms = [...g.terms, ...g.dateTerms];
  return { span: null, terms, dateTerms: [], novel: [...g.novel, ...g.dateTerms] };
}

/**
 * The words a text's times add when dates are read as words: the days its relative time
 * expressions resolve to (against the day it was written, else `fallbackDay`), also in the form
 * dated answers take, and the day it was written ("yesterday", written on 8 May 2023, adds "7 May
 * 2023", "before 8 May 2023" and "8 May 2023"). Given the answer's time (`near`), a relative time
 * outside it adds nothing: a date carries as a date.
 */
function dateWords(said: Said, fallbackDay: number | null, near: DaySpan | null = null): string[] {
  const relative = relativeReadings(said, said.day ?? fallbackDay, near);
  return said.day !== null ? [...relative, dayText(said.day)] : relative;
}

/**
 * The days a text's relative times name, each as a day or span and in the form dated answers
 * take ("yesterday" on 8 May 2023: "7 May 2023", "day before 8 May 2023"). An absolute date is
 * already in the text's words.
 */
function relativeReadings(said: Said, day: number | null, near: DaySpan | null = null): string[] {
  const out: string[] = [];
  for (const m of temporalMentions(said.text, day)) {
    // A date carries as a date: "three years ago" adds no words to "the week before 9 June 2023".
    if (near && m.span && dateRelation(m.span, near) === 'outside') continue;
    if (m.relative && m.span) out.push(spanText(m.span));
    if (m.relative && day !== null) out.push(relativeWords(m.relative, day));
  }
  return out;
}

/**
 * A relative time as dated answers write it: "last Friday" said on 15 July 2023 is "the Friday
 * before 15 July 2023", "next month" "the month after …" (LoCoMo's golden answers are so written).
 */
function relativeWords(relative: string, day: number): string {
  const past = /\b(?:last|previous|prior|past|ago|yesterday|earlier)\b/.test(relative);
  const unit = relative
    .replace(/\b(?:last|next|previous|prior|past|coming|upcoming|following|this|ago|a|few)\b/g, ' ')
    .trim();
  return `${unit} ${past ? 'before' : 'after'} ${dayText(day)}`;
}

function present(t: Term, terms: readonly Term[], level: WordMatch, o: CriticalOptions): boolean {
  if (level === 'surface') return terms.some((u) => u.surface === t.surface);
  if (level === 'lemma') return terms.some((u) => u.key === t.key);
  return termPresent(t, terms as Term[], o.similar ?? null, o.answerSimilarity ?? ANSWER_SIMILARITY);
}

/** Does a text hold answer term `t` as `level` reads words, or the evidence's own word for it (`CriticalInfo.forms`)? */
function keepsTerm(
  t: Term,
  terms: readonly Term[],
  level: WordMatch,
  c: CriticalInfo,
  o: CriticalOptions,
): boolean {
  return present(t, terms, level, o) || (c.forms.get(t.key) ?? []).some((f) => present(f, terms, level, o));
}

/** The evidence's words for answer terms it states only in another form of the same lemma (`CriticalInfo.forms`). */
function evidenceForms(stated: readonly Term[], evTerms: readonly Term[]): Map<string, Term[]> {
  const forms = new Map<string, Term[]>();
  for (const t of stated) {
    if (evTerms.some((u) => u.surface === t.surface)) continue;
    const own = evTerms.filter((u) => u.key === t.key);
    if (own.length) forms.set(t.key, own);
  }
  return forms;
}

/** Does `keys` (a text's words) hold `phrase` as a run, in order? */
function holdsRun(keys: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= keys.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (keys[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * What a text (a prediction, a memory) shows of one golden answer: the answer words it keeps
 * per kind of match, the whole answer in order, and its time against the golden span. What
 * `fitAnswerRule` learns a trace's judge from. `wholeAnswer`: the text is an answer a judge
 * read whole (a prediction), so its F1 against the whole golden answer is kept too.
 */
export function answerFeatures(
  said: Said,
  golden: string,
  question: string,
  options: CriticalOptions = {},
  wholeAnswer = false,
): AnswerFeatures {
  const g = goldenAnswer(golden, question);
  const goldenTerms = contentTerms(golden);
  const tokens = wholeAnswer
    ? tokenF1(answerTokens(said.text), answerTokens(golden))
    : windowTokenF1(said, golden, null);
  const f = { ...wordFeatures(said.text, g, goldenTerms, options, wholeAnswer), tokens };
  if (!g.span) return f;
  const withDates = [said.text, ...dateWords(said, null)].join('. ');
  return {
    ...f,
    date: textDateRelation(said, g.span, null),
    dated: true,
    asWords: { ...wordFeatures(withDates, datedAsWords(g), goldenTerms, options, wholeAnswer), tokens },
  };
}

/** `answerFeatures` of a text against an answer read as words only (no date span). */
function wordFeatures(
  text: string,
  g: GoldenAnswer,
  goldenTerms: Term[],
  options: CriticalOptions,
  wholeAnswer: boolean,
): Omit<AnswerFeatures, 'tokens'> {
  const terms = contentTerms(text);
  const count = (level: WordMatch) => g.novel.filter((t) => present(t, terms, level, options)).length;
  return {
    words: g.novel.length,
    goldenWords: g.terms.length,
    kept: { surface: count('surface'), lemma: count('lemma'), meaning: count('meaning') },
    phrase: {
      surface: holdsRun(
        terms.map((t) => t.surface),
        goldenTerms.map((t) => t.surface),
      ),
      lemma: holdsRun(
        terms.map((t) => t.key),
        goldenTerms.map((t) => t.key),
      ),
    },
    date: null,
    dated: false,
    f1: windowF1(
      text,
      g.terms.map((t) => t.key),
    ),
    ...(wholeAnswer ? { answerF1: termF1(terms, goldenTerms) } : {}),
  };
}

/** F1 of a text's content words against a golden answer's, by lemma (each word counted once). */
function termF1(text: readonly Term[], golden: readonly Term[]): number {
  const want = new Set(golden.map((t) => t.key));
  const have = new Set(text.map((t) => t.key));
  let hit = 0;
  for (const k of have) if (want.has(k)) hit++;
  return hit === 0 ? 0 : (2 * hit) / (have.size + want.size);
}

/**
 * The best F1 of a window of the text (one or two sentences: the span an answerer would quote)
 * against the golden answer's content words, by lemma: a judge that weighs precision does not
 * take a long text for a short answer, however plainly it holds it.
 */
function windowF1(text: string, goldenKeys: readonly string[]): number {
  const want = new Set(goldenKeys);
  if (want.size === 0) return 0;
  let best = 0;
  for (const w of sentenceWindows(text)) {
    const have = new Set(contentTerms(w).map((t) => t.key));
    let hit = 0;
    for (const k of have) if (want.has(k)) hit++;
    if (hit === 0) continue;
    const p = hit / have.size;
    const r = hit / want.size;
    best = Math.max(best, (2 * p * r) / (p + r));
  }
  return best;
}

/**
 * The day a text was written, as a segment of its token-F1 windows. A date carries as a date:
 * for a dated answer that day counts only when it falls within the answer's time or is the day
 * the answer is written against ("the day before 8 May 2023" names 8 May). A memory of something
 * done "recently", written on 8 May, does not say "7 May 2023", however many words the two days
 * share ("May", "2023").
 */
function writtenDay(said: Said, golden: string): string[] {
  const written = said.written ?? (said.day !== null ? dayText(said.day) : null);
  if (!written) return [];
  const span = goldenSpan(golden);
  // The day as the trace writes it names its own time; else the day the text inherited.
  const time =
    temporalMentions(written, null).find((m) => m.span)?.span ??
    (said.day !== null ? daySpan(said.day) : null);
  if (span === null || time === null) return [written];
  const relation = dateRelation(time, { ...span, fuzz: 0 });
  if (relation === 'same' || relation === 'finer') return [written];
  const want = new Set(answerTokens(golden));
  const named = time.start === time.end && answerTokens(dayText(time.start)).every((t) => want.has(t));
  return named ? [written] : [];
}

/**
 * The best token F1 (`tokenF1`) of a window of a memory against the golden answer: one or two
 * consecutive segments, a segment being one of its sentences, the day it was written as the
 * trace writes it (`writtenDay`), or a day its relative times name — the span an answerer would quote.
 */
function windowTokenF1(said: Said, golden: string, fallbackDay: number | null): number {
  const want = answerTokens(golden);
  const day = said.day ?? fallbackDay;
  const segments = [...writtenDay(said, golden), ...sentences(said.text), ...relativeReadings(said, day)];
  const words = segments.map(answerTokens);
  let best = 0;
  for (let i = 0; i < words.length; i++) {
    best = Math.max(best, tokenF1(words[i], want));
    if (i + 1 < words.length) best = Math.max(best, tokenF1([...words[i], ...words[i + 1]], want));
  }
  return best;
}

/** What `criticalInfo` reads once from the evidence and the question, for every golden answer. */
interface EvidenceReading {
  evidence: Said;
  question: string;
  similar: TermSimilarity | null;
  supportMin: number;
  answerMin: number;
  evTerms: Term[];
  nameSet: Set<string>;
  mentions: TemporalMention[];
  questionTerms: Term[];
  entities: string[];
  timeQuestion: boolean;
  /**
   * The answer's words the question also says count: a judge counting a share of the answer's
   * words counts them ("event" of "marching event" for "What event did John…").
   */
  echoes: boolean;
}

/** The critical information one evidence text holds for a question. */
export function criticalInfo(
  evidence: Said,
  question: string,
  goldenAnswers: readonly string[],
  options: CriticalOptions = {},
): CriticalInfo {
  const evTerms = contentTerms(evidence.text);
  const names = questionNames(question);
  const r: EvidenceReading = {
    evidence,
    question,
    similar: options.similar ?? null,
    supportMin: options.supportSimilarity ?? 0.45,
    answerMin: options.answerSimilarity ?? ANSWER_SIMILARITY,
    evTerms,
    nameSet: new Set(names),
    mentions: temporalMentions(evidence.text, evidence.day),
    questionTerms: contentTerms(question),
    entities: namesAbout(names, evTerms, evidence),
    timeQuestion: TIME_QUESTION.test(question),
    echoes: options.rule?.kind === 'words' && options.rule.minShare !== null,
  };
  let best: CriticalInfo | null = null;
  for (const golden of goldenAnswers) {
    const parts = answerParts(golden);
    for (const part of parts) {
      const info = { ...goldenInfo(r, part), part: parts.length > 1 ? part : null, golden };
      if (!best || criticalWeight(info) > criticalWeight(best)) best = info;
    }
  }
  return best ?? noCriticalInfo(evidence, r.entities);
}

/**
 * The parts of a list answer too long to be one fact ("worked with an artist to make unique
 * fashion pieces, made limited-edition sweatshirts, got some new offers…"): each evidence
 * message of such a question states one part, and a memory carries that message when it keeps
 * its part. Any other answer (a short list, a reply of several sentences) is one part.
 */
function answerParts(golden: string): string[] {
  if (contentTerms(golden).length < LONG_ANSWER || /[.!?]\s+\S/.test(golden.trim())) return [golden];
  const parts = golden.split(/\s*[,;]\s*(?:and\s+)?/).filter((p) => contentTerms(p).length > 0);
  const short = parts.every((p) => contentTerms(p).length < LONG_ANSWER);
  return parts.length >= 2 && short ? parts : [golden];
}

/** How much of the answer a reading states: a date counts 2, event times 1, each answer word 1. */
function criticalWeight(x: CriticalInfo): number {
  return (x.answerSpan || x.answerRelative ? 2 : 0) + (x.eventTimes.length ? 1 : 0) + x.answerTerms.length;
}

/** The critical information for a question without golden answers: nothing is stated. */
function noCriticalInfo(evidence: Said, entities: string[]): CriticalInfo {
  return {
    supported: false,
    freeText: false,
    answerTerms: [],
    goldenTermCount: 0,
    goldenKeys: [],
    goldenTerms: [],
    answerSpan: null,
    dateTerms: [],
    answerRelative: null,
    entities,
    topics: [],
    day: evidence.day,
    eventTimes: [],
    phrase: [],
    part: null,
    golden: '',
    messageTerms: [],
    forms: new Map(),
    others: [],
  };
}

/** The critical information the evidence holds against one golden answer. */
function goldenInfo(r: EvidenceReading, golden: string): CriticalInfo {
  const { evidence, evTerms, similar } = r;
  const g = goldenAnswer(golden, r.question);
  const span = g.span;
  const stated = g.terms.filter((t) => termPresent(t, evTerms, similar, r.answerMin));
  const novelKeys = new Set(g.novel.map((t) => t.key));
  const statedNovel = stated.filter((t) => novelKeys.has(t.key));
  const answerTerms = statedNovel.length && !r.echoes ? statedNovel : stated;
  const { answerSpan, answerRelative: relative } = answerTime(evidence, r.mentions, span);
  let answerRelative = relative;
  const answerKeys = new Set(g.terms.map((t) => t.key));
  const questionTopics = r.questionTerms.filter(
    (t) =>
      !r.nameSet.has(t.surface) &&
      !answerKeys.has(t.key) &&
      !TIME_WORDS.has(t.surface) &&
      !QUESTION_WORDS.has(t.surface),
  );
  const topics = questionTopics.filter((t) => topicPresent(t, evTerms, similar, r.supportMin));
  // A relative time with no day to read it against ("last week") states an unknown date:
  // it counts only when the message is about the question's topic.
  if (answerRelative !== null && questionTopics.length > 0 && topics.length === 0) answerRelative = null;
  const freeText = g.terms.length >= LONG_ANSWER;
  const eventTimes = !span && r.timeQuestion ? r.mentions.flatMap((m) => (m.span ? [m.span] : [])) : [];
  // The times an answer is computed from ("how long…") state it as much as its words would.
  const supported =
    !freeText &&
    (answerTerms.length > 0 || answerSpan !== null || answerRelative !== null || eventTimes.length > 0);
  return {
    supported,
    freeText,
    answerTerms,
    goldenTermCount: g.terms.length,
    goldenKeys: g.terms.map((t) => t.key),
    goldenTerms: g.terms,
    answerSpan,
    dateTerms: g.dateTerms,
    answerRelative,
    entities: r.entities,
    topics,
    day: evidence.day,
    eventTimes,
    phrase: contentTerms(golden)
      .map((t) => t.key)
      .filter((k) => answerTerms.some((t) => t.key === k)),
    part: null,
    golden,
    messageTerms: evTerms,
    forms: evidenceForms(answerTerms, evTerms),
    others: [],
  };
}

/** Whether the evidence states a golden answer's date: as a day it names, or as a relative time. */
function answerTime(
  evidence: Said,
  mentions: readonly TemporalMention[],
  span: DaySpan | null,
): { answerSpan: DaySpan | null; answerRelative: string | null } {
  let answerSpan: DaySpan | null = null;
  let answerRelative: string | null = null;
  if (span) {
    if (mentions.some((m) => m.span && spanStates(m.span, span))) answerSpan = span;
    else if (evidence.day === null) answerRelative = mentions.find((m) => m.relative)?.relative ?? null;
    // "I just got accepted for an internship!" said on 27 May: the day it was said is the answer.
    else if (mentions.length === 0 && spanStates(daySpan(evidence.day), { ...span, fuzz: 0 }))
      answerSpan = span;
  }
  return { answerSpan, answerRelative };
}

/**
 * A free-text golden answer (an assistant's whole reply, as in RealMem) is no fact a memory
 * states: such evidence is followed by its own words (`freeText`).
 */
const LONG_ANSWER = 15;

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

/** How many of the answer's words the text keeps, by the rule's kind of match. */
function answerWordsKept(terms: Term[], c: CriticalInfo, options: CriticalOptions): number {
  const level = (options.rule ?? PRIOR_ANSWER_RULE).words;
  return c.answerTerms.filter((t) => keepsTerm(t, terms, level, c, options)).length;
}

/** Does the text keep a time the evidence stated (for questions about time whose answer is no date)? */
function keepsEventTime(said: Said, c: CriticalInfo): boolean {
  const ms = temporalMentions(said.text, said.day ?? c.day);
  const times = ms.flatMap((m) => (m.span ? [m.span] : []));
  if (ms.length === 0 && said.day !== null) times.push(daySpan(said.day));
  return times.some((t) => c.eventTimes.some((e) => spanStates(t, e) || spanStates(e, t)));
}

/**
 * Does the text keep the answer under the rule: the time the evidence states, and enough of
 * the answer's words (or the whole answer in order)?
 */
export function keepsAnswer(
  said: Said,
  c: CriticalInfo,
  options: CriticalOptions = {},
  terms = contentTerms(said.text),
): boolean {
  const rule = options.rule ?? PRIOR_ANSWER_RULE;
  if (rule.kind === 'tokens') return windowTokenF1(said, c.golden, c.day) >= (rule.minShare ?? 0);
  if (readsDatesAsWords(rule) && c.dateTerms.length) return keepsDateWords(said, c, options, terms);
  if (c.answerSpan) {
    if (!dateAccepted(rule, textDateRelation(said, c.answerSpan, c.day))) return false;
  } else if (c.answerRelative !== null) {
    const ms = temporalMentions(said.text, said.day ?? c.day);
    if (!ms.some((m) => m.relative === c.answerRelative)) return false;
  }
  if (c.eventTimes.length && !keepsEventTime(said, c)) return false;
  if (c.answerTerms.length === 0) return true;
  if (rule.kind === 'f1') return windowF1(said.text, c.goldenKeys) >= (rule.minShare ?? 0);
  if (!keepsOwnShare(rule, c, terms, options)) return false;
  return (
    rule.kind !== 'phrase' ||
    c.phrase.length < 2 ||
    holdsRun(
      terms.map((t) => t.key),
      c.phrase,
    )
  );
}

/**
 * Does a text keep enough of this evidence's answer words? Its share of them; but under a share
 * of the whole answer's words with other evidence messages beside (`others`), as much as lets the
 * text stand in for this message wherever the message is needed: beside every set of the others
 * that falls short of the share alone and reaches it with this message, the text must reach it
 * too. So a message that answers alone must be kept well enough to answer alone ("we got
 * another cat, Bailey… a pic of Oliver" kept as "a cat named Bailey" is lost under half of
 * "Oliver, Luna, Bailey", though another message names Oliver), and under every word of the
 * answer a message must keep just what the others lack ("Bailey"). A message the others never
 * need (they reach the share wherever it does) asks for nothing.
 */
function keepsOwnShare(rule: AnswerRule, c: CriticalInfo, terms: Term[], options: CriticalOptions): boolean {
  const whole = wordsNeeded(rule, c.goldenTermCount, c.goldenTermCount);
  // Every text is read as the judge reads it: the answer's words it holds, by the rule's kind of match
  // (no `forms` here: the messages' shares are weighed against each other exactly as the judge would).
  const held = (ts: Term[]) =>
    new Set(c.goldenTerms.filter((t) => present(t, ts, rule.words, options)).map((t) => t.key));
  const needed =
    rule.kind === 'words' && rule.minShare !== null ? neededBeside(c, whole, rule.words, held) : null;
  if (needed === null)
    return answerWordsKept(terms, c, options) >= wordsNeeded(rule, c.answerTerms.length, c.goldenTermCount);
  const kept = held(terms);
  return needed.every((beside) => weighed(c.goldenKeys, union(beside, kept)) >= whole);
}

/** Most other evidence messages whose sets `neededBeside` tries (2^n sets). */
const MAX_OTHERS = 8;

/**
 * The sets of the other messages' answer words this message is needed beside (see
 * `keepsOwnShare`), or null when that test does not apply: no others, too many, or all the
 * evidence together short of the share (then the message keeps its own share).
 */
function neededBeside(
  c: CriticalInfo,
  whole: number,
  level: string,
  held: (ts: Term[]) => Set<string>,
): Set<string>[] | null {
  if (c.others.length === 0 || c.others.length > MAX_OTHERS) return null;
  const key = `${whole} ${level}`;
  const known = besideMemo.get(c)?.get(key);
  if (known !== undefined) return known;
  const sets = besideSets(c, whole, held);
  besideMemo.set(c, (besideMemo.get(c) ?? new Map()).set(key, sets));
  return sets;
}

/** `neededBeside` per evidence reading, share and kind of match (a unit test asks it of every unit read). */
const besideMemo = new WeakMap<CriticalInfo, Map<string, Set<string>[] | null>>();

function besideSets(c: CriticalInfo, whole: number, held: (ts: Term[]) => Set<string>): Set<string>[] | null {
  const own = held(c.messageTerms);
  const others = c.others.map(held);
  const reaches = (keys: ReadonlySet<string>) => weighed(c.goldenKeys, keys) >= whole;
  if (!reaches(union(new Set(others.flatMap((o) => [...o])), own))) return null;
  const out: Set<string>[] = [];
  for (let mask = 0; mask < 1 << others.length; mask++) {
    const beside = new Set(others.filter((_, i) => mask & (1 << i)).flatMap((o) => [...o]));
    if (!reaches(beside) && reaches(union(beside, own))) out.push(beside);
  }
  return out;
}

/** How many of `words` (an answer's, each as often as it is written there) are among `keys`: as a judge counts them. */
const weighed = (words: readonly string[], keys: ReadonlySet<string>) =>
  words.filter((k) => keys.has(k)).length;

const union = (a: ReadonlySet<string>, b: ReadonlySet<string>) => new Set([...a, ...b]);

/**
 * The critical information of each of a case's evidence messages, each with the words of the
 * others (`others`).
 */
export function withOthers(infos: readonly (CriticalInfo | null)[]): (CriticalInfo | null)[] {
  return infos.map((c, i) => {
    if (!c || c.part !== null) return c;
    const others = infos.flatMap((o, j) =>
      j === i || !o || o.golden !== c.golden || o.part !== null ? [] : [o.messageTerms],
    );
    return { ...c, others };
  });
}

/**
 * `keepsAnswer` under a rule reading dates as words: the golden date's words count with the
 * answer's, the text's times with the words of their days (`dateWords`).
 */
function keepsDateWords(said: Said, c: CriticalInfo, options: CriticalOptions, terms: Term[]): boolean {
  const rule = options.rule ?? PRIOR_ANSWER_RULE;
  const want = [...c.answerTerms, ...c.dateTerms];
  const all = [...terms, ...contentTerms(dateWords(said, c.day, c.answerSpan).join(' '))];
  const kept = want.filter((t) => keepsTerm(t, all, rule.words, c, options)).length;
  return kept >= wordsNeeded(rule, want.length, c.goldenTermCount + c.dateTerms.length);
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
    const kept = keptTopics(terms, c, options);
    topical = kept >= topicNeed(c) || keepsWholeAnswer(terms, c, options);
  }
  if (!topical && !options.middleBand) return 'no';
  if (!keepsAnswer(said, c, options, terms)) return 'no';
  // Dated only by the day it was written: that day is the answer only if the text is about
  // the question's event itself ("Gina supports Jon's business", written in January, says
  // nothing of when she lost her job).
  if (
    topical &&
    datedByDayOnly(said, c) &&
    keptTopics(terms, c, { ...options, topicSimilarity: options.answerSimilarity ?? ANSWER_SIMILARITY }) <
      strictTopicNeed(c)
  )
    return 'no';
  return topical ? 'yes' : 'undecided';
}

/** Topic words a text dated only by its day must keep (by near-synonyms at most): two in three. */
function strictTopicNeed(c: CriticalInfo): number {
  return Math.ceil((2 * c.topics.length) / 3);
}

function keptTopics(terms: Term[], c: CriticalInfo, options: CriticalOptions): number {
  const min = options.topicSimilarity ?? 0.5;
  return c.topics.filter((t) => topicPresent(t, terms, options.similar ?? null, min)).length;
}

/** The text keeps the answer's time only through the day it was written (no time expression of its own). */
function datedByDayOnly(said: Said, c: CriticalInfo): boolean {
  if (!c.answerSpan && c.eventTimes.length === 0) return false;
  return said.day !== null && temporalMentions(said.text, said.day).length === 0;
}

/**
 * How much of the critical information a text conveys, 0–1: the share of the answer's words it
 * keeps and whether it keeps the answer's time (averaged), halved when it names none of the
 * people asked about and when it is off the question's topic. 1 when `judgeText` accepts it.
 * For display along the evidence's way (where it faded); carrying is `judgeText`'s verdict.
 */
export function answerSupport(said: Said, c: CriticalInfo, options: CriticalOptions = {}): number {
  if (judgeText(said, c, options) === 'yes') return 1;
  const terms = contentTerms(said.text);
  const parts: number[] = [];
  if (c.answerTerms.length) parts.push(answerWordsKept(terms, c, options) / c.answerTerms.length);
  if (c.answerSpan || c.answerRelative || c.eventTimes.length)
    parts.push(keepsAnswer(said, { ...c, answerTerms: [] }, options, terms) ? 1 : 0);
  if (parts.length === 0) return 0;
  let share = parts.reduce((a, b) => a + b, 0) / parts.length;
  if (c.entities.length && !c.entities.some((n) => hasName(n, terms, said.speaker))) share /= 2;
  if (c.topics.length && keptTopics(terms, c, options) < topicNeed(c)) share /= 2;
  return share;
}

/** The key of a word as `contentTerms` makes it (for callers holding a bare word). */
export function termOf(word: string): Term {
  const surface = word.toLowerCase();
  return { surface, key: termKey(surface) };
}
