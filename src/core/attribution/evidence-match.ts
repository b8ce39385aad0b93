/**
 * Does a stored value still carry a piece of evidence? Values are split into
 * units (list items, dict values — a memory store's entries — or lines of free
 * text). Matching comes in layers (`MatchLayer`):
 * - `lexical`: a unit carries the evidence when it holds most of the evidence's
 *   content words, including every answer word the evidence holds, or most of its
 *   three-word runs (copies, chunks, windows);
 * - `normalised`: the critical information instead (critical.ts) — the answer as
 *   the evidence states it and the question's anchors — with lemmas, number words,
 *   the speaker for "I", and relative dates resolved against the day each text was
 *   said; copies still match by three-word runs;
 * - `vectors`: as `normalised`, topic words (and near-synonym answer words) matched
 *   by word vectors.
 */

import { maxOf } from '../arrays.ts';
import { contentTerms, contentTokens, hasTemporalCue, type Term } from '../nlp/index.ts';
import { sentences, sentenceWindows } from '../text/index.ts';
import { parseValue } from '../trace/index.ts';
import { PRIOR_ANSWER_RULE } from './answer-rule.ts';
import type { CarryJudge, CarryQuestion } from './carry-judge.ts';
import {
  answerSupport,
  type CriticalInfo,
  type CriticalOptions,
  criticalInfo,
  judgeText,
  keepsAnswer,
} from './critical.ts';
import { DEFAULT_STAGE_SETTINGS } from './rules.ts';
import { readSaid, type Said } from './said.ts';
import { effectiveMatchLayer, type MatchLayer } from './types.ts';

export { contentTokens } from '../nlp/index.ts';

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
  /** Per unit, its dict key or its list item's index (the records of one list item share it). */
  keys: string[];
  texts: string[];
}

function leaves(v: unknown, out: string[], depth = 0, key = '') {
  if (depth > 20) return;
  if (typeof v === 'string') out.push(v);
  // Numbers and booleans are information too ("age 32", "vegetarian True"): keep them with their key.
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(key ? `${key} ${v}` : String(v));
  else if (Array.isArray(v)) for (const x of v) leaves(x, out, depth + 1);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) leaves(x, out, depth + 1, k.replace(/_/g, ' '));
}

/** Fields that hold a record's text, its day and its speaker (Mem0, EverMemOS, LangChain shapes). */
const TEXT_FIELDS = [
  'memory',
  'content',
  'text',
  'fact',
  'summary',
  'episode',
  'data',
  'page_content',
  'message',
];
const DAY_FIELDS = ['created_at', 'timestamp', 'date', 'time', 'updated_at', 'session_date'];
const SPEAKER_FIELDS = ['speaker', 'name', 'role', 'user'];

type Dict = Record<string, unknown>;
const isDict = (x: unknown): x is Dict => x !== null && typeof x === 'object' && !Array.isArray(x);
const short = (x: unknown) =>
  typeof x === 'number' || typeof x === 'boolean' || x === null || (typeof x === 'string' && x.length <= 40);

/**
 * One memory unit as text. A record with a text field (`{'memory': …, 'created_at': …,
 * 'speaker': …}`) reads as "created_at | speaker: memory", so its day and speaker are
 * read like a context line's heads; any other value as its leaves joined.
 */
function unitText(x: unknown): string {
  if (isDict(x)) {
    const field = TEXT_FIELDS.find((k) => typeof x[k] === 'string');
    if (field) {
      const day = DAY_FIELDS.map((k) => x[k]).find((d) => typeof d === 'string');
      const who = SPEAKER_FIELDS.map((k) => x[k]).find((d) => typeof d === 'string' && d.length <= 40);
      const extra: string[] = [];
      for (const [k, val] of Object.entries(x))
        if (k !== field && !DAY_FIELDS.includes(k) && !SPEAKER_FIELDS.includes(k)) leaves(val, extra, 1, k);
      const head = `${day ? `${day} | ` : ''}${who ? `${who}: ` : ''}`;
      return [`${head}${x[field]}`, ...extra.filter((t) => !/^[\w-]{16,}$/.test(t))].join(' ');
    }
  }
  const parts: string[] = [];
  leaves(x, parts);
  return parts.join(' ');
}

/**
 * A dict is one record — one memory unit — when it has a text field, or only a few
 * short scalar fields (`{'name': 'Kenta', 'age': 42}`); otherwise it is a store keyed by
 * unit id.
 */
function isRecord(d: Dict): boolean {
  const values = Object.values(d);
  if (values.length === 0 || values.length > 20) return false;
  if (TEXT_FIELDS.some((k) => typeof d[k] === 'string') && values.filter((x) => !short(x)).length <= 2)
    return true;
  return values.every(short) && values.some((x) => typeof x !== 'string');
}

/** Copies shorter than this many characters are not told apart from coincidence ("Yes.", a name). */
export const MIN_COPY_CHARS = 12;

/** Whether `part` was copied into `whole`: contained in it, and long enough to be no coincidence. */
export function copiedInto(part: string, whole: string): boolean {
  return part.length >= MIN_COPY_CHARS && whole.includes(part);
}

/**
 * Splits a stored value into memory units: a dict store's entries (keyed), list items, one record, or the
 * lines of free text (multi-line messages kept together).
 */
export function splitUnits(value: string): ValueUnits {
  const v = parseValue(value);
  if (isDict(v) && isRecord(v)) return { kind: 'text', keyed: false, keys: ['0'], texts: [unitText(v)] };
  if (isDict(v)) {
    const keys = Object.keys(v);
    return { kind: 'dict', keyed: true, keys, texts: keys.map((k) => unitText(v[k])) };
  }
  if (Array.isArray(v)) {
    const keys: string[] = [];
    const texts: string[] = [];
    v.forEach((item, i) => {
      for (const t of recordsOf(unitText(item))) {
        keys.push(String(i));
        texts.push(t);
      }
    });
    return { kind: 'list', keyed: false, keys, texts };
  }
  return lineUnits(typeof v === 'string' ? v : value);
}

/**
 * A list item made of several dated or spoken records (a digest of session summaries passed
 * as one retrieved item) is those records, as the same text is when stored as lines: each is read
 * with its own date. Any other item is one unit.
 */
function recordsOf(item: string): string[] {
  const lines = item.split(/\n+/).filter((t) => t.trim() !== '');
  if (lines.length < 2 || !RECORD_HEAD.test(lines[0]) || lines.filter((l) => RECORD_HEAD.test(l)).length < 2)
    return [item];
  return groupRecords(lines);
}

/** The units of a plain text: its lines, a multi-line record's continuation lines kept with it (`groupRecords`). */
export function lineUnits(text: string): ValueUnits {
  const texts = groupRecords(text.split(/\n+/).filter((t) => t.trim() !== ''));
  return { kind: 'text', keyed: false, keys: texts.map((_, i) => String(i)), texts };
}

/** A line that starts a record of a chunk or window: "date | speaker: …", "[date] …", "Speaker: …". */
const RECORD_HEAD =
  /^\s*(?:\[[^\]\n]{4,40}\]|[^|\n]{4,40}\s\|\s|[A-Z][\p{L}\p{N}_'.-]*(?: [A-Z][\p{L}\p{N}_'.-]*)?:\s)/u;

/**
 * Lines of a text, with the continuation lines of a multi-line message kept with the
 * line that starts it — when the text is made of such records (a RAG chunk, a window).
 */
function groupRecords(lines: string[]): string[] {
  const heads = lines.filter((l) => RECORD_HEAD.test(l)).length;
  if (heads < 2 || heads === lines.length || !RECORD_HEAD.test(lines[0])) return lines;
  const out: string[] = [];
  for (const l of lines) {
    if (RECORD_HEAD.test(l) || out.length === 0) out.push(l);
    else out[out.length - 1] += `\n${l}`;
  }
  return out;
}

/**
 * One evidence message prepared for matching (`makeEvidence`): its content words, three-word runs, answer
 * and key words, and the critical information for the higher layers.
 */
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
  /** The critical information (layers above `lexical`); null for the lexical layer. */
  critical: CriticalInfo | null;
  /** Normalised words of the evidence (fallback when the golden answer is not stated). */
  terms: Term[];
  /** What the middle-band judge is shown of the case. */
  shown: { question: string; goldenAnswers: readonly string[]; evidence: string };
}

function shinglesOf(words: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 2 < words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

/**
 * The part of an evidence message that bears on the question: the sentences that
 * share the most words with the question and golden answer (golden words count
 * double), words compared by lemma ("Dance is my stress relief" bears on "by dancing").
 * A message of several sentences is often stored as several facts; the
 * fact that matters holds this part. The whole text when no sentence overlaps.
 */
export function evidenceCore(text: string, question: string, goldenAnswers: readonly string[]): string {
  const parts = sentences(text);
  if (parts.length <= 1) return text;
  const keysOf = (t: string) => new Set(contentTerms(t).map((x) => x.key));
  const q = keysOf(question);
  const gold = keysOf(goldenAnswers.join(' '));
  const scores = parts.map((p) => {
    let s = 0;
    for (const k of keysOf(p)) s += (gold.has(k) ? 2 : 0) + (q.has(k) ? 1 : 0);
    return s;
  });
  const best = maxOf(scores);
  if (best === 0) return text;
  return parts.filter((_, i) => scores[i] === best).join(' ');
}

/**
 * How units are matched against evidence: the layer, a model for the undecided middle band, and the recall
 * and containment thresholds.
 */
export interface MatchOptions extends CriticalOptions {
  /** Default: `effectiveMatchLayer` (`vectors` when `similar` is given, else `normalised`). */
  layer?: MatchLayer;
  /** Decides units in the middle band (names and answer kept, topic words too few): a model. */
  judge?: CarryJudge | null;
  /** Share of the evidence's content words a unit of comparable size must hold (default 0.5). */
  minRecall?: number;
  /** Share of the evidence's three-word runs a unit of any size must hold (default 0.5). */
  minContainment?: number;
  /**
   * A unit of at most this many sentences is read whole as well as by windows (`readingWindows`;
   * rule `whole-memory`, default its threshold); 0 reads windows only.
   */
  wholeMemorySentences?: number;
}

interface ResolvedOptions extends Required<Omit<MatchOptions, 'similar' | 'judge'>> {
  similar: CriticalOptions['similar'];
  judge: CarryJudge | null;
}

function resolveOptions(o: MatchOptions): ResolvedOptions {
  const layer = effectiveMatchLayer(o.layer, !!o.similar);
  return {
    layer,
    minRecall: o.minRecall ?? 0.5,
    minContainment: o.minContainment ?? 0.5,
    wholeMemorySentences: o.wholeMemorySentences ?? DEFAULT_STAGE_SETTINGS.wholeMemorySentences,
    similar: layer === 'vectors' ? (o.similar ?? null) : null,
    judge: layer === 'lexical' ? null : (o.judge ?? null),
    topicSimilarity: o.topicSimilarity ?? 0.5,
    supportSimilarity: o.supportSimilarity ?? 0.45,
    answerSimilarity: o.answerSimilarity ?? 0.8,
    rule: o.rule ?? PRIOR_ANSWER_RULE,
  };
}

/**
 * The evidence to follow: `core` is the part of the message that bears on the
 * question (evidenceCore), `said` the whole message with its day and speaker (the
 * critical information is read from it), for layers above `lexical`.
 */
export function makeEvidence(
  core: string,
  goldenAnswers: readonly string[],
  question = '',
  said: Said | null = null,
  options: MatchOptions = {},
): Evidence {
  const o = resolveOptions(options);
  const words = contentTokens(core);
  const tokens = new Set(words);
  const answer = new Set(goldenAnswers.flatMap((g) => contentTokens(g)));
  const answerTokens = new Set([...answer].filter((t) => tokens.has(t)));
  const keyTokens = new Set(contentTokens(question).filter((t) => tokens.has(t) && !answerTokens.has(t)));
  const normalised = o.layer !== 'lexical';
  return {
    tokens,
    shingles: shinglesOf(words),
    answerTokens,
    keyTokens,
    length: words.length,
    critical: normalised
      ? criticalInfo(said ?? { text: core, day: null, speaker: null }, question, goldenAnswers, o)
      : null,
    terms: normalised ? contentTerms(core) : [],
    shown: {
      question,
      goldenAnswers,
      evidence: said ? `${said.speaker ? `${said.speaker}: ` : ''}${said.text}` : core,
    },
  };
}

/** Three-word-run containment: the share of the evidence's runs found in the unit's words. */
function containment(words: string[], e: Evidence): number {
  if (e.shingles.size === 0) return 0;
  const hits = new Set<string>();
  const { tokens } = e;
  for (let i = 0; i + 2 < words.length; i++) {
    // The evidence's runs are made of its words: a run with another word is not made to be looked up.
    if (!tokens.has(words[i]) || !tokens.has(words[i + 1]) || !tokens.has(words[i + 2])) continue;
    const run = `${words[i]} ${words[i + 1]} ${words[i + 2]}`;
    if (e.shingles.has(run)) hits.add(run);
  }
  return hits.size / e.shingles.size;
}

/** A unit's words as `unitScore` reads them: made once for a unit put to several pieces of evidence. */
export interface UnitWords {
  readonly text: string;
  readonly tokens: string[];
  /** Its normalised terms, made when first needed. */
  terms?: Term[];
}

/** The unit's words, for `unitScore`. */
export function unitWords(text: string): UnitWords {
  return { text, tokens: contentTokens(text) };
}

/**
 * How well one unit carries the evidence, 0–1 (0 if an answer word is missing):
 * the share of the evidence's three-word runs found in the unit (copies, chunks and
 * windows that hold the message among others), or — for units not much longer than
 * the evidence, such as extracted facts that paraphrase it — the share of its words.
 * A long unit gets no credit for words alone: a chunk on the same topic shares many
 * words with the evidence without holding it. The lexical layer; also the fallback
 * of the others (with normalised words) when the golden answer is not stated.
 */
export function unitScore(unit: string | UnitWords, e: Evidence, options: MatchOptions = {}): number {
  const o = resolveOptions(options);
  if (e.tokens.size === 0) return 0;
  const u = typeof unit === 'string' ? unitWords(unit) : unit;
  const words = u.tokens;
  const c = containment(words, e);
  if (c >= o.minContainment) return c;
  if (o.layer !== 'lexical') return normalisedFallback(u, e, o);
  const set = new Set(words);
  for (const t of e.answerTokens) if (!set.has(t)) return 0;
  if (e.keyTokens.size > 0) {
    let kept = 0;
    for (const t of e.keyTokens) if (set.has(t)) kept++;
    if (e.keyTokens.size <= 3 ? kept < e.keyTokens.size : kept < 0.75 * e.keyTokens.size) return 0;
  }
  if (words.length > 3 * e.length + 10) return 0;
  let hit = 0;
  for (const t of e.tokens) if (set.has(t)) hit++;
  const recall = hit / e.tokens.size;
  return recall >= o.minRecall ? recall : 0;
}

/** The lexical test over normalised words (lemmas, number words, near-synonyms with vectors). */
function normalisedFallback(u: UnitWords, e: Evidence, o: ResolvedOptions): number {
  if (u.tokens.length > 3 * e.length + 10) return 0;
  u.terms ??= contentTerms(u.text);
  const terms = u.terms;
  const keys = new Set(terms.map((t) => t.key));
  const has = (t: Term, min: number) =>
    keys.has(t.key) ||
    (o.similar != null && !/^\d/.test(t.key) && terms.some((u) => o.similar!.similarity(t, u) >= min));
  const evidenceTerms = e.terms;
  const byToken = new Map(evidenceTerms.map((t) => [t.surface, t]));
  for (const a of e.answerTokens) {
    const t = byToken.get(a);
    if (t && !has(t, o.answerSimilarity)) return 0;
  }
  if (e.keyTokens.size > 0) {
    let kept = 0;
    for (const k of e.keyTokens) {
      const t = byToken.get(k);
      if (t && has(t, o.topicSimilarity)) kept++;
    }
    if (e.keyTokens.size <= 3 ? kept < e.keyTokens.size : kept < 0.75 * e.keyTokens.size) return 0;
  }
  const distinct = new Map(evidenceTerms.map((t) => [t.key, t]));
  if (distinct.size === 0) return 0;
  let hit = 0;
  for (const t of distinct.values()) if (has(t, o.topicSimilarity)) hit++;
  const recall = hit / distinct.size;
  return recall >= o.minRecall ? recall : 0;
}

/**
 * The spans of a unit the carrying test reads: windows of one or two sentences (the span an
 * answerer would quote) and, for a unit of at most `wholeUpTo` sentences, the unit whole — a
 * summary names its people once and states the answer sentences later (rule `whole-memory`).
 */
export function readingWindows(text: string, wholeUpTo: number): string[] {
  const windows = sentenceWindows(text);
  if (windows.length === 1 || sentences(text).length > wholeUpTo) return windows;
  return [...windows, text];
}

const NO_DEFAULTS: UnitDefaults = { day: null, speaker: null };

/** Who said a variable's units, and when, unless a unit says otherwise. */
export interface UnitDefaults {
  day: number | null;
  speaker: string | null;
  /** The day as the trace writes it, when it names one. */
  written?: string | null;
}

/**
 * Content tests of units against evidence, with the caches one attribution run
 * needs: unit splits per variable, the heads (day, speaker) of unit lines, and
 * verdicts per (evidence, unit text) — a long-context window repeats the same lines
 * in thousands of versions.
 */
export class Matcher {
  private units = new Map<number, ValueUnits>();
  private lower = new Map<number, string>();
  private readonly said = new Map<string, Said>();
  private readonly verdicts = new WeakMap<Evidence, Map<string, boolean>>();
  /** Middle-band pairs waiting for the judge, and what it said (by evidence, then memory text). */
  private readonly pending = new Map<Evidence, Set<string>>();
  private readonly decided = new WeakMap<Evidence, Map<string, boolean>>();
  readonly options: ResolvedOptions;
  private readonly bandOptions: ResolvedOptions & { middleBand: boolean };
  private readonly bodies = new Map<number, string[]>();
  constructor(
    private readonly textOf: (v: number) => string,
    options: MatchOptions = {},
    private readonly defaultsOf: (v: number) => UnitDefaults = () => ({ day: null, speaker: null }),
    /** A message is one unit (its text), not the fields of its JSON. */
    private readonly messageText: (v: number) => string | null = () => null,
  ) {
    this.options = resolveOptions(options);
    this.bandOptions = { ...this.options, middleBand: this.options.judge !== null };
  }
  get layer(): MatchLayer {
    return this.options.layer;
  }
  unitsOf(v: number): ValueUnits {
    let u = this.units.get(v);
    if (!u) {
      const message = this.messageText(v);
      u =
        message === null
          ? splitUnits(this.textOf(v))
          : { kind: 'text', keyed: false, keys: ['0'], texts: [message] };
      this.units.set(v, u);
    }
    return u;
  }
  unitTexts(v: number): string[] {
    return this.unitsOf(v).texts;
  }
  /**
   * A unit without its date and speaker heads ("8 May 2023 | Caroline: …" → "…"), white
   * space collapsed: copies of a message reflow its blank lines.
   */
  bodyOf(line: string): string {
    return readSaid(line, NO_DEFAULTS).text.replace(/\s+/g, ' ').trim();
  }
  /** The bodies of v's units (cached: a window's lines are asked about once per version). */
  bodiesOf(v: number): string[] {
    let b = this.bodies.get(v);
    if (!b) {
      b = this.unitTexts(v).map((t) => this.bodyOf(t));
      this.bodies.set(v, b);
    }
    return b;
  }
  private lowerOf(v: number): string {
    let low = this.lower.get(v);
    if (low === undefined) {
      low = this.textOf(v).toLowerCase();
      // Only cache small values; a 20 kB window lower-cased per version would double memory.
      if (low.length < 4096) this.lower.set(v, low);
    }
    return low;
  }
  /** Cheap necessary condition of the lexical test (no false negatives; normalised layers: answer stems only). */
  private lexicalPossible(low: string, e: Evidence): boolean {
    if (e.tokens.size === 0) return false;
    if (this.layer !== 'lexical') {
      const stems = new Map(e.terms.map((t) => [t.surface, t.key]));
      for (const t of e.answerTokens) if (!low.includes(stems.get(t) ?? t)) return false;
      return true;
    }
    for (const t of e.answerTokens) if (!low.includes(t)) return false;
    let present = 0;
    for (const t of e.tokens) if (low.includes(t)) present++;
    return present >= Math.min(this.options.minRecall, this.options.minContainment) * e.tokens.size;
  }
  /** Cheap necessary condition of the critical-information test: the names and a time expression are there. */
  private criticalPossible(low: string, d: UnitDefaults, c: CriticalInfo): boolean {
    if (!c.supported) return false;
    if (
      c.entities.length &&
      !c.entities.some((n) => low.includes(n.slice(0, 3)) || d.speaker?.includes(n.slice(0, 3)))
    )
      return false;
    // A time is kept by a time expression, or by the day the unit was written (checked strictly in judgeText).
    const timed = c.answerSpan || c.answerRelative || c.eventTimes.length;
    if (timed && d.day === null && !hasTemporalCue(low)) return false;
    return true;
  }
  private saidOf(line: string, d: UnitDefaults): Said {
    const key = `${d.day}\u0000${d.speaker}\u0000${d.written}\u0000${line}`;
    let s = this.said.get(key);
    if (!s) {
      s = readSaid(line, d);
      if (this.said.size > 100_000) this.said.clear();
      this.said.set(key, s);
    }
    return s;
  }
  /** The day unit i of v was said or written (its own head, else its variable's), or null. */
  dayOf(v: number, i: number): number | null {
    return this.saidOf(this.unitTexts(v)[i], this.defaultsOf(v)).day;
  }
  /** That day as the trace writes it, or null. */
  writtenOf(v: number, i: number): string | null {
    return this.saidOf(this.unitTexts(v)[i], this.defaultsOf(v)).written ?? null;
  }
  /**
   * Does unit i of v, by its content, carry the evidence? `inheritedDay`: the day of what
   * the op that wrote it read (facts extracted from a message are about that message's day).
   */
  unitCarries(v: number, i: number, e: Evidence, inheritedDay: number | null = null): boolean {
    const text = this.unitTexts(v)[i];
    const d = this.dayInherited(v, inheritedDay);
    const key = `${d.day}\u0000${d.speaker}\u0000${d.written}\u0000${text}`;
    let cache = this.verdicts.get(e);
    if (!cache) {
      cache = new Map();
      this.verdicts.set(e, cache);
    }
    let verdict = cache.get(key);
    if (verdict === undefined) {
      verdict = this.contentCarries(text, d, e);
      cache.set(key, verdict);
    }
    return verdict;
  }
  private contentCarries(text: string, d: UnitDefaults, e: Evidence): boolean {
    const low = text.toLowerCase();
    const critical = e.critical?.supported === true && this.criticalPossible(low, d, e.critical);
    if (critical && e.critical) {
      const said = this.saidOf(text, d);
      let undecided = false;
      for (const w of readingWindows(said.text, this.options.wholeMemorySentences)) {
        const v = judgeText({ ...said, text: w }, e.critical, this.bandOptions);
        if (v === 'yes') return true;
        if (v === 'undecided') undecided = true;
      }
      if (undecided && this.options.judge) {
        const known = this.decided.get(e)?.get(said.text);
        if (known !== undefined) return known;
        let set = this.pending.get(e);
        if (!set) {
          set = new Set();
          this.pending.set(e, set);
        }
        set.add(said.text);
      }
    }
    if (!this.lexicalPossible(low, e)) return false;
    if (this.layer === 'lexical' || !e.critical?.supported) return unitScore(text, e, this.options) > 0;
    // The answer is stated: word overlap alone does not carry it; a copy of the evidence
    // does, if the copy kept the answer ("signed up for a pottery class" without "yesterday" lost the date).
    return (
      containment(contentTokens(text), e) >= this.options.minContainment &&
      keepsAnswer(this.saidOf(text, d), e.critical, this.options)
    );
  }
  /**
   * v's defaults, with the day of what the op that wrote it read (and that day as written, when
   * given) when v has none of its own.
   */
  private dayInherited(v: number, inheritedDay: number | null, written: string | null = null): UnitDefaults {
    const own = this.defaultsOf(v);
    return own.day === null && inheritedDay !== null ? { ...own, day: inheritedDay, written } : own;
  }
  /**
   * Does unit i of v keep the answer as the judge's rule reads it (no names or topic asked)?
   * `inherited`: the day of what the op that wrote it read, and that day as written (a judge
   * reading a memory with its date reads it so).
   */
  unitKeepsAnswer(
    v: number,
    i: number,
    e: Evidence,
    inherited: { day: number | null; written: string | null },
  ): boolean {
    if (!e.critical?.supported || e.critical.freeText) return false;
    const d = this.dayInherited(v, inherited.day, inherited.written);
    return keepsAnswer(this.saidOf(this.unitTexts(v)[i], d), e.critical, this.options);
  }
  /**
   * How much of the evidence unit i of v conveys, 0–1 (`answerSupport`; the lexical score when
   * the evidence does not state the answer). 1 for a unit that carries it.
   */
  unitSupport(v: number, i: number, e: Evidence, inheritedDay: number | null = null): number {
    if (this.unitCarries(v, i, e, inheritedDay)) return 1;
    const text = this.unitTexts(v)[i];
    const d = this.dayInherited(v, inheritedDay);
    if (this.layer === 'lexical' || !e.critical?.supported) return unitScore(text, e, this.options);
    return maxOf(
      sentenceWindows(this.saidOf(text, d).text).map((w) =>
        answerSupport({ ...this.saidOf(text, d), text: w }, e.critical as CriticalInfo, this.options),
      ),
      0,
    );
  }
  /** The best support among v's units (see `unitSupport`). */
  support(v: number, e: Evidence, inheritedDay: number | null = null): number {
    let best = 0;
    for (let i = 0; i < this.unitTexts(v).length && best < 1; i++)
      best = Math.max(best, this.unitSupport(v, i, e, inheritedDay));
    return best;
  }
  /** Index of the first unit of v that carries the evidence by its content, or -1. */
  carrierUnit(v: number, e: Evidence): number {
    const low = this.lowerOf(v);
    const d = this.defaultsOf(v);
    const possible =
      this.lexicalPossible(low, e) || (e.critical !== null && this.criticalPossible(low, d, e.critical));
    if (!possible) return -1;
    const texts = this.unitTexts(v);
    for (let i = 0; i < texts.length; i++) if (this.unitCarries(v, i, e)) return i;
    return -1;
  }
  carries(v: number, e: Evidence): boolean {
    return this.carrierUnit(v, e) >= 0;
  }
  /** Middle-band pairs met since the last `decidePending`. */
  get pendingCount(): number {
    let n = 0;
    for (const set of this.pending.values()) n += set.size;
    return n;
  }
  /**
   * Asks the judge about the middle-band pairs met so far and records its verdicts;
   * verdicts given before were cached as "no", so those are forgotten — callers follow
   * the evidence again afterwards.
   */
  async decidePending(signal?: AbortSignal) {
    const judge = this.options.judge;
    const asked: { e: Evidence; memory: string }[] = [];
    for (const [e, set] of this.pending) for (const memory of set) asked.push({ e, memory });
    this.pending.clear();
    if (!judge || asked.length === 0) return { llm_calls: 0, input_tokens: 0, output_tokens: 0 };
    const items: CarryQuestion[] = asked.map(({ e, memory }) => ({ ...e.shown, memory }));
    const { verdicts, cost } = await judge.decide(items, signal);
    asked.forEach(({ e, memory }, i) => {
      let map = this.decided.get(e);
      if (!map) {
        map = new Map();
        this.decided.set(e, map);
      }
      map.set(memory, verdicts[i]);
      this.verdicts.delete(e);
    });
    return cost;
  }
}
