/**
 * The stage walk: the attributor's decision procedure as a short table of rules
 * (`STAGE_RULES`), each named in the result it shaped. It asks one question of every
 * stage a memory system has — "does this text state the answer to the question?"
 * (`states`) — walking back from the answer, so the latest stage that still stated the
 * answer decides and no earlier op is blamed for what a later one still had:
 *   the answer op's context states it          → the answer op                (ResponseError)
 *   the store at question time states it       → the question-time op         (RetrievalError)
 *   a memory once stated it, none does now     → the op that ended the last    (UpdateError / DeletionError)
 *   no memory ever stated it                   → the op that read the evidence (ExtractionError)
 * Structure, classes and categories only (case-context.ts): no op names are assumed.
 */
import { appendAll, minOf } from '../arrays.ts';
import type { TraceCase } from '../cases/index.ts';
import {
  closure,
  consumersOf,
  lineageOf,
  opStructure,
  producersOf,
  type TraceGraph,
  varMetadata,
} from '../graph/index.ts';
import { getOrSet } from '../maps.ts';
import { contentTerms } from '../nlp/index.ts';
import { type ErrorType, firstMark, isMessageCategory, parseValue } from '../trace/index.ts';
import { type AnswerRule, accepts } from './answer-rule.ts';
import { type CaseContext, caseContext, storeSelector } from './case-context.ts';
import { answerFeatures, type CriticalOptions } from './critical.ts';
import {
  copiedInto,
  type Evidence,
  evidenceCore,
  type MatchOptions,
  makeEvidence,
  type UnitWords,
  unitScore,
  unitWords,
  type ValueUnits,
} from './evidence-match.ts';
import { detached, emptyValue, unitsOf } from './graph-units.ts';
import { DEFAULT_STAGE_SETTINGS, type StageRuleId, type StageSettings } from './rules.ts';
import { metadataDate, readMessage, readSaid, type Said } from './said.ts';
import type { Candidate, PathStep, QuotedUnit, SupportStep } from './types.ts';

export {
  DEFAULT_STAGE_SETTINGS,
  STAGE_RULES,
  type StageRule,
  type StageRuleId,
  type StageSettings,
} from './rules.ts';

/** The stage walk's verdict before it becomes an `Attribution`. */
export interface StageVerdict {
  error_type: ErrorType;
  op: number;
  reason: string;
  rules: StageRuleId[];
  path: PathStep[];
  /** The latest text that stated the answer, and what came after it without it. */
  held: QuotedUnit | null;
  after: QuotedUnit | null;
  /** The stage before and after the deciding one: what a second guess would blame. */
  runnerUp: Candidate | null;
  /** How many answer-stating units the deciding stage had (0 for the stages that lack it). */
  margin: number;
}

/** A case's stages: the texts each one holds, latest stage first. */
interface Stages {
  cx: CaseContext;
  /** Memory variables written before the answer (every version), in creation order. */
  history: number[];
  /** The same, for membership tests. */
  inHistory: Set<number>;
  /** `endingOf` per version (a loss search asks it many times). */
  endings: Map<number, { op: number; after: number | null } | null>;
  /** Each history version's next version in the history (its variable's, by creation order). */
  later: Map<number, number>;
}

/** Reads "does this unit state the answer?" for one case. */
class AnswerTest {
  private readonly question: string;
  private readonly topic: Set<string>;
  private readonly cache = new Map<string, QuotedUnit | null>();
  private readonly times: OwnTimes;
  constructor(
    private readonly g: TraceGraph,
    private readonly c: TraceCase,
    private readonly rule: AnswerRule,
    private readonly options: CriticalOptions,
    private readonly settings: StageSettings,
  ) {
    this.question = c.question;
    this.topic = topicWords(c.question);
    this.times = new OwnTimes(g);
  }

  private premises: { v: number; e: Evidence }[] = [];
  /** Memory variables whose units lend their time to copies (set by `setMemories`). */
  private memories: readonly number[] = [];
  private copies: Map<string, Time> | null = null;

  /** The memories written before the question: a copy of one of their units has its time. */
  setMemories(memories: readonly number[]): void {
    this.memories = memories;
    this.copies = null;
  }

  private byPremise = false;

  /** The evidence messages; when none states the answer, their content is what stages must keep. */
  setEvidence(evidence: readonly number[]): void {
    if (this.settings.off.has('premises') || evidence.some((v) => this.stating(v))) return;
    const g = this.g;
    const c = this.c;
    this.premises = evidence.map((v) => {
      const said = readMessage(g.varValue[v], varMetadata(g, v) as Record<string, unknown> | null);
      const core = evidenceCore(said.text, c.question, c.goldenAnswers);
      return { v, e: makeEvidence(core, c.goldenAnswers, c.question, said, this.premiseOptions()) };
    });
  }

  /** The rules the last `holds` answered by (`premises` when the units held the premises, not the answer). */
  how(): StageRuleId[] {
    return this.byPremise ? ['premises'] : [];
  }

  /** The units of a stage that hold the answer: those stating it, else (inferred answers) carriers of every premise. */
  holds(vars: readonly number[]): QuotedUnit[] {
    this.byPremise = false;
    const stating = vars.map((v) => this.stating(v)).filter((q): q is QuotedUnit => q !== null);
    if (stating.length > 0 || this.premises.length === 0) return stating;
    const carriers = this.premises.map(
      (p) => vars.map((v) => this.carrying(v, p.e)).find((q) => q !== null) ?? null,
    );
    if (carriers.some((q) => q === null)) return [];
    this.byPremise = true;
    return carriers as QuotedUnit[];
  }

  /** The earliest evidence message (of an inferred answer) whose content no memory carried. */
  unkeptPremise(memories: readonly number[]): number | undefined {
    const sorted = [...this.premises].sort((a, b) => this.g.varRank[a.v] - this.g.varRank[b.v]);
    return sorted.find((p) => !memories.some((m) => this.carrying(m, p.e)))?.v;
  }

  /**
   * The pieces of information a memory must keep, each as a test of one version: the answer
   * when the evidence states it, else each premise (an inferred answer loses its ground when any
   * premise is lost).
   */
  pieces(): ((v: number) => QuotedUnit | null)[] {
    if (this.premises.length === 0) return [(v) => this.stating(v)];
    return this.premises.map((p) => (v: number) => this.carrying(v, p.e));
  }

  private premiseOptions(): MatchOptions {
    return { layer: 'normalised', similar: this.options.similar };
  }

  // Versions of a keyed store repeat their units: each unit is scored once per premise, its words read once.
  private readonly scores = new Map<Evidence, Map<string, boolean>>();
  private readonly unitWords = new Map<string, UnitWords>();

  /** Whether a unit carries the premise (`known`: the premise's scores so far). */
  private carries(text: string, e: Evidence, known: Map<string, boolean>): boolean {
    let ok = known.get(text);
    if (ok === undefined) {
      const words = getOrSet(this.unitWords, text, () => unitWords(text));
      ok = unitScore(words, e, this.premiseOptions()) >= this.settings.minPremise;
      // Units are kept once per graph, as copies (`unitsOf`): the key keeps no window alive.
      known.set(text, ok);
    }
    return ok;
  }

  // The loss search and the unkept-premise search ask each version about each premise.
  private readonly carried = new Map<Evidence, Map<number, QuotedUnit | null>>();

  private carrying(v: number, e: Evidence): QuotedUnit | null {
    const known = getOrSet(this.carried, e, () => new Map<number, QuotedUnit | null>());
    return getOrSet(known, v, () => this.carryingNow(v, e));
  }

  private carryingNow(v: number, e: Evidence): QuotedUnit | null {
    if (emptyValue(this.g, v) || isMessageCategory(this.g.varCategory[v])) return null;
    const known = getOrSet(this.scores, e, () => new Map<string, boolean>());
    const text = this.units(v).texts.find((t) => this.carries(t, e, known));
    return text === undefined
      ? null
      : { var_id: this.g.varId[v], text, matched: this.matchedIn(text), support: 1 };
  }

  /** The words of a text (as written) that are the question's or the golden answer's. */
  matchedIn(text: string): string[] {
    const wanted = new Set([...this.topic, ...this.c.goldenAnswers.flatMap((a) => [...termsOf(a)])]);
    return [
      ...new Set(
        contentTerms(text)
          .filter((t) => wanted.has(t.key))
          .map((t) => t.surface),
      ),
    ];
  }

  /** The first unit of v that states the answer, quoted; null when none does. */
  stating(v: number): QuotedUnit | null {
    const g = this.g;
    if (emptyValue(g, v)) return null;
    const meta = varMetadata(g, v) as Record<string, unknown> | null;
    if (isMessageCategory(g.varCategory[v])) return this.unit(v, readMessage(g.varValue[v], meta));
    const units = this.units(v);
    for (let i = 0; i < units.texts.length; i++) {
      const own = this.settings.off.has('own-time') ? NO_TIME : this.ownTime(v, units, i);
      const q = this.unit(v, readSaid(units.texts[i], { ...own, speaker: null }));
      if (q) return q;
    }
    return null;
  }

  /** A unit's own time; a unit with none that copies a memory unit (a retrieved line) has that memory's. */
  private ownTime(v: number, units: ValueUnits, i: number): Time {
    const own = this.times.of(v, units.keyed ? units.keys[i] : null);
    if (own.day !== null || this.memories.length === 0) return own;
    if (!this.copies) {
      this.copies = new Map();
      for (const m of this.memories) {
        const u = this.units(m);
        u.texts.forEach((t, k) => {
          // Units are kept once per graph, as copies (`unitsOf`): no copy of them is needed here.
          if (!this.copies?.has(t)) this.copies?.set(t, this.times.of(m, u.keyed ? u.keys[k] : null));
        });
      }
    }
    return this.copies.get(units.texts[i]) ?? own;
  }

  /** v's memory units (`splitUnits`), split once per graph (`unitsOf`). */
  private units(v: number): ValueUnits {
    return unitsOf(this.g, v);
  }

  private unit(v: number, said: Said): QuotedUnit | null {
    const key = `${said.day}\u0000${said.speaker}\u0000${said.text}`;
    if (this.cache.has(key)) return this.cache.get(key) ?? null;
    const q = this.judge(v, said);
    this.cache.set(detached(key), q);
    return q;
  }

  private judge(v: number, said: Said): QuotedUnit | null {
    // The topic anchor first: a word test, far cheaper than the answer rule's features.
    const anchored = [...this.topic].filter((w) => termsOf(said.text).has(w));
    // A question with fewer topic words than the threshold needs all of them.
    const needed = Math.min(this.settings.minTopicWords, this.topic.size);
    if (!this.settings.off.has('topic-anchor') && anchored.length < needed) return null;
    const golden = this.c.goldenAnswers.find((a) =>
      accepts(this.rule, answerFeatures(said, a, this.question, this.options)),
    );
    if (golden === undefined) return null;
    // The text's own words (as written) that match the answer's or anchor the topic.
    const wanted = new Set([...termsOf(golden), ...anchored]);
    const matched = [
      ...new Set(
        contentTerms(said.text)
          .filter((t) => wanted.has(t.key))
          .map((t) => t.surface),
      ),
    ];
    return { var_id: this.g.varId[v], text: said.text, matched, support: 1 };
  }
}

const NO_TIME: Time = { day: null, written: null };

/** The characters a dict, list or tuple value starts with (after white space). */
const CONTAINER_OPENERS = '[{(';

interface Time {
  day: number | null;
  written: string | null;
}

/**
 * A memory's own time (rule `own-time`): the time its record or metadata names, else the time it
 * was written — the latest message its writer read (directly or through one op before it). A unit
 * of a keyed store was written by the version that first held it.
 */
class OwnTimes {
  private readonly written = new Map<number, Time>();
  constructor(private readonly g: TraceGraph) {}

  of(v: number, key: string | null): Time {
    const named = this.named(v);
    if (named.day !== null || key === null) return named.day !== null ? named : this.writeTime(v);
    return this.writeTime(this.firstHolder(v, key));
  }

  private readonly names = new Map<number, Time>();

  /** The time v's metadata or record names (asked once per unit: answered once per variable). */
  private named(v: number): Time {
    let t = this.names.get(v);
    if (!t) {
      t = this.namedNow(v);
      this.names.set(v, t);
    }
    return t;
  }

  private namedNow(v: number): Time {
    const meta = metadataDate(varMetadata(this.g, v) as Record<string, unknown> | null);
    if (meta.day !== null) return meta;
    const value = this.parsed(v);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? metadataDate(value as Record<string, unknown>)
      : NO_TIME;
  }

  /** The earliest version of v's chain whose entry `key` is the same as v's. */
  private firstHolder(v: number, key: string): number {
    const entry = (w: number) => {
      const value = this.parsed(w);
      return value && typeof value === 'object'
        ? JSON.stringify((value as Record<string, unknown>)[key])
        : undefined;
    };
    const mine = entry(v);
    return this.chainTo(v).find((w) => entry(w) === mine) ?? v;
  }

  // A keyed store asks about every unit of every version: parse and order each chain once.
  private readonly values = new Map<number, unknown>();
  private readonly chains = new Map<number, number[]>();

  /**
   * v's value read as data when it can be a dict or list (both callers use nothing else);
   * undefined otherwise. A window's text is neither: it is not read (nor kept) once per version.
   */
  private parsed(v: number): unknown {
    // Told from its first mark: a read of a shared window is a copy of it, for every case.
    const mark = firstMark(this.g.vars[v]);
    if (mark === '' || !CONTAINER_OPENERS.includes(mark)) return undefined;
    if (!this.values.has(v)) this.values.set(v, parseValue(this.g.varValue[v]));
    return this.values.get(v);
  }

  /** v's chain up to v, earliest first. */
  private chainTo(v: number): number[] {
    const known = this.chains.get(v);
    if (known) return known;
    const chain = Array.from(lineageOf(this.g, v)).filter((w) => this.g.varRank[w] <= this.g.varRank[v]);
    chain.sort((a, b) => this.g.varRank[a] - this.g.varRank[b]);
    this.chains.set(v, chain);
    return chain;
  }

  private writeTime(v: number): Time {
    let t = this.written.get(v);
    if (!t) {
      t = this.latest(this.messagesRead(v));
      this.written.set(v, t);
    }
    return t;
  }

  // Each version of a window was written after reading the same messages as the one before:
  // each message is read once per case.
  private readonly said = new Map<number, Time>();

  /** The latest day among messages, as written. */
  private latest(messages: number[]): Time {
    let best = NO_TIME;
    for (const m of messages) {
      const said = getOrSet(this.said, m, () => {
        const read = readMessage(
          this.g.varValue[m],
          varMetadata(this.g, m) as Record<string, unknown> | null,
        );
        return { day: read.day, written: read.written ?? null };
      });
      if (said.day !== null && (best.day === null || said.day > best.day)) best = said;
    }
    return best;
  }

  /** The messages v's writers read, directly or one op back. */
  private messagesRead(v: number): number[] {
    const g = this.g;
    const out: number[] = [];
    for (const op of producersOf(g, v))
      for (const u of opStructure(g, op).inputs) {
        if (isMessageCategory(g.varCategory[u])) out.push(u);
        else
          for (const op2 of producersOf(g, u))
            appendAll(
              out,
              opStructure(g, op2).inputs.filter((w) => isMessageCategory(g.varCategory[w])),
            );
      }
    return out;
  }
}

const termCache = new Map<string, Set<string>>();
function termsOf(text: string): Set<string> {
  let t = termCache.get(text);
  if (!t) {
    t = new Set(contentTerms(text).map((x) => x.key));
    if (termCache.size > 50_000) termCache.clear();
    termCache.set(detached(text), t);
  }
  return t;
}

/** The question's content words that are not names (capitalised inside the sentence). */
function topicWords(question: string): Set<string> {
  const names = new Set(
    [...question.matchAll(/(?<=\S\s+)([A-Z][\p{L}'’-]+)/gu)].map((m) =>
      m[1].toLowerCase().replace(/['’]s$/, ''),
    ),
  );
  return new Set(
    contentTerms(question)
      .filter((t) => !names.has(t.surface.toLowerCase().replace(/['’]s$/, '')) && !names.has(t.key))
      .map((t) => t.key),
  );
}

/** The unit of these variables that shares the most question words (names aside); null when none shares one. */
export function topicalUnit(g: TraceGraph, vars: readonly number[], question: string): QuotedUnit | null {
  const topic = topicWords(question);
  let best: QuotedUnit | null = null;
  for (const v of vars)
    for (const text of unitsOf(g, v).texts) {
      const matched = [...termsOf(text)].filter((w) => topic.has(w));
      if (matched.length > (best?.matched.length ?? 0))
        best = { var_id: g.varId[v], text, matched, support: 0 };
    }
  return best;
}

/** Memory variables written before the answer: the store's version chains and what the evidence flowed into. */
export function memoryHistory(g: TraceGraph, cx: CaseContext): number[] {
  const limit = cx.answerOp >= 0 ? g.opRank[cx.answerOp] : g.opOrder.length;
  const seen = new Set<number>();
  const keep = (v: number) => {
    if (seen.has(v) || cx.queryDerived.has(v) || isMessageCategory(g.varCategory[v])) return;
    const writers = producersOf(g, v);
    if (writers.length === 0 || writers.every((o) => g.opRank[o] >= limit)) return;
    seen.add(v);
  };
  for (const v of [...cx.store, ...cx.removed.keys()]) for (const w of lineageOf(g, v)) keep(w);
  for (const v of closure(g, cx.evidence, { direction: 'downstream' }).vars) keep(v);
  return [...seen].sort((a, b) => g.varRank[a] - g.varRank[b]);
}

/** The stage walk for one case (see the module comment). */
export function walkStages(
  g: TraceGraph,
  c: TraceCase,
  rule: AnswerRule,
  options: CriticalOptions,
  settings: StageSettings = DEFAULT_STAGE_SETTINGS,
  cx: CaseContext = caseContext(g, c),
): StageVerdict | null {
  if (cx.answerOp < 0) return null;
  const test = new AnswerTest(g, c, rule, options, settings);
  const history = memoryHistory(g, cx);
  const s: Stages = {
    cx,
    history,
    inHistory: new Set(history),
    endings: new Map(),
    later: laterVersions(g, history),
  };
  const rules: StageRuleId[] = ['states-answer'];
  if (!settings.off.has('topic-anchor')) rules.push('topic-anchor');
  if (!settings.off.has('own-time')) rules.push('own-time');
  test.setMemories(s.history);
  test.setEvidence(cx.evidence);
  const inContext = test.holds(cx.context);
  if (inContext.length > 0 && !settings.off.has('context-states'))
    return responseVerdict(g, cx, inContext, [...rules, ...test.how(), 'context-states'], retrievalOp(g, cx));
  const inStore = test.holds(cx.store.filter((v) => !cx.context.includes(v)));
  if (inStore.length > 0 && !settings.off.has('store-states')) {
    // Quote a stating unit the context lacks: a verdict never contradicts its own evidence.
    const contextText = cx.context.map((v) => g.varValue[v]).join('\n');
    const quoted = inStore.find((q) => !copiedInto(q.text, contextText)) ?? inStore[0];
    return retrievalVerdict(g, cx, quoted, inStore.length, [...rules, ...test.how(), 'store-states']);
  }
  const lost = settings.off.has('memory-lost') ? null : lastLoss(g, s, test);
  if (lost) return { ...lost, rules: [...rules, 'memory-lost'] };
  return extractionVerdict(g, c, s, test, settings, rules);
}

/** The question-time op as a second candidate (none when there is no such op). */
export function retrievalCandidate(g: TraceGraph, op: number, reason: string): Candidate | null {
  return op < 0 ? null : { op_id: g.opId[op], error_type: 'RetrievalError', score: 0, reason };
}

/** No question-time op read the stating unit: the op that chose from the store left it out (`storeSelector`). */
function unread(g: TraceGraph, cx: CaseContext, held: QuotedUnit): boolean {
  const v = g.varIndex.get(held.var_id);
  return v !== undefined && !cx.storeRead.includes(v);
}

/** The question-time op that wrote the answer's context (-1 when the context is the store itself). */
export function retrievalOp(g: TraceGraph, cx: CaseContext): number {
  const writers = cx.context.flatMap((v) => producersOf(g, v)).filter((o) => cx.questionOps.includes(o));
  const pool = writers.length ? writers : cx.questionOps;
  return pool.reduce((best, o) => (best < 0 || g.opRank[o] > g.opRank[best] ? o : best), -1);
}

function responseVerdict(
  g: TraceGraph,
  cx: CaseContext,
  stating: QuotedUnit[],
  rules: StageRuleId[],
  retrieval: number,
): StageVerdict {
  const held = stating[0];
  return {
    error_type: 'ResponseError',
    op: cx.answerOp,
    reason: `The answer op's context states the answer ("${clip(held.text)}", in ${held.var_id}), yet the prediction does not give it: the answer op is at fault.`,
    rules,
    path: [
      { var_id: held.var_id, note: 'context; states the answer' },
      { op_id: g.opId[cx.answerOp], note: 'read it and answered wrongly' },
    ],
    held,
    after: quoteOf(g, cx.prediction),
    runnerUp:
      retrieval >= 0
        ? {
            op_id: g.opId[retrieval],
            error_type: 'RetrievalError',
            score: 0,
            reason: 'if the stating line is not the one the question needed, the context lacked it',
          }
        : null,
    margin: stating.length,
  };
}

function retrievalVerdict(
  g: TraceGraph,
  cx: CaseContext,
  held: QuotedUnit,
  count: number,
  rules: StageRuleId[],
): StageVerdict {
  const selector = unread(g, cx, held) ? storeSelector(g, cx) : -1;
  const op = selector >= 0 ? selector : retrievalOp(g, cx);
  const blamed = op >= 0 ? op : cx.answerOp;
  return {
    error_type: op >= 0 ? 'RetrievalError' : 'ResponseError',
    op: blamed,
    reason: `The store at question time states the answer ("${clip(held.text)}", in ${held.var_id}), but the context the answer op read does not: ${g.opName[blamed] || g.opId[blamed]} did not bring it.`,
    rules,
    path: [
      { var_id: held.var_id, note: 'in the store at question time; states the answer' },
      { op_id: g.opId[blamed], note: 'its output lacks it' },
      { op_id: g.opId[cx.answerOp], note: 'answered without it' },
    ],
    held,
    after: quoteOf(g, cx.context[0]),
    runnerUp: {
      op_id: g.opId[cx.answerOp],
      error_type: 'ResponseError',
      score: 0,
      reason: 'if the context held the answer in words the test did not see',
    },
    margin: count,
  };
}

/** How a stating memory version ended before the question: the op that did it and what it wrote. */
interface Ending {
  v: number;
  held: QuotedUnit;
  op: number;
  after: number | null;
}

/**
 * The op that ended a memory version: the one that wrote its next version, else the first op that
 * read it and wrote other memory (a rewrite into a new unit: a consolidation, a summary of summaries).
 */
function endingOf(g: TraceGraph, s: Stages, v: number): { op: number; after: number | null } | null {
  if (!s.endings.has(v)) s.endings.set(v, findEnding(g, s, v));
  return s.endings.get(v) ?? null;
}

/** Each version of `history` (in creation order) mapped to the next version of its variable in it. */
function laterVersions(g: TraceGraph, history: readonly number[]): Map<number, number> {
  const later = new Map<number, number>();
  const last = new Map<number, number>();
  for (const v of history) {
    const before = last.get(g.varLineage[v]);
    if (before !== undefined) later.set(before, v);
    last.set(g.varLineage[v], v);
  }
  return later;
}

function findEnding(g: TraceGraph, s: Stages, v: number): { op: number; after: number | null } | null {
  // A long-context window has thousands of versions: each one's next is looked up, not searched for.
  const later = s.inHistory.has(v)
    ? s.later.get(v)
    : lineageOf(g, v)
        .filter((w) => g.varRank[w] > g.varRank[v] && s.inHistory.has(w))
        .sort((a, b) => g.varRank[a] - g.varRank[b])[0];
  if (later !== undefined) {
    const op = producersOf(g, later)[0];
    return op === undefined ? null : { op, after: later };
  }
  if (s.cx.store.includes(v)) return null;
  const limit = s.cx.answerOp >= 0 ? g.opRank[s.cx.answerOp] : g.opOrder.length;
  const rewrites = consumersOf(g, v)
    .filter((o) => g.opRank[o] < limit && opStructure(g, o).outputs.some((w) => s.inHistory.has(w)))
    .sort((a, b) => g.opRank[a] - g.opRank[b]);
  if (rewrites.length === 0) return null;
  const after = opStructure(g, rewrites[0]).outputs.find((w) => s.inHistory.has(w)) ?? null;
  return { op: rewrites[0], after };
}

/**
 * The earliest loss that left no stating memory: of the memory versions that stated the answer,
 * the one whose ending (`endingOf`) no other stating version outlived — the paper's earliest
 * decisive op (a later write bringing the answer back does not excuse it).
 */
function lastLoss(g: TraceGraph, s: Stages, test: AnswerTest): Omit<StageVerdict, 'rules'> | null {
  const losses = test
    .pieces()
    .map((holds) => pieceLoss(g, s, holds))
    .filter((e): e is Ending => e !== null);
  const found = losses.sort((a, b) => g.opRank[a.op] - g.opRank[b.op])[0];
  if (!found) return null;
  return lossVerdict(g, found, retrievalOp(g, s.cx));
}

/** The earliest loss of one piece (see `lastLoss`) that left no version holding it. */
function pieceLoss(g: TraceGraph, s: Stages, test: (v: number) => QuotedUnit | null): Ending | null {
  // Asked of every version, and again of each for every loss: answered once per version.
  const answers = new Map<number, QuotedUnit | null>();
  const holds = (v: number) => {
    if (!answers.has(v)) answers.set(v, test(v));
    return answers.get(v) ?? null;
  };
  const endings: Ending[] = [];
  // Each stating version's span: the rank of the op that wrote it and of the op that ended it.
  const spans: { w: number; from: number; to: number }[] = [];
  for (const v of s.history) {
    const held = holds(v);
    if (!held) continue;
    const end = endingOf(g, s, v);
    if (end && (end.after === null || !holds(end.after))) endings.push({ v, held, ...end });
    if (end)
      spans.push({ w: v, from: minOf(producersOf(g, v).map((o) => g.opRank[o])), to: g.opRank[end.op] });
  }
  // Another stating version written before the ending op and ended after it: a copy survived.
  const alive = (e: Ending) =>
    spans.some((x) => x.w !== e.v && x.from < g.opRank[e.op] && x.to > g.opRank[e.op]);
  const total = endings.filter((e) => !alive(e)).sort((a, b) => g.opRank[a.op] - g.opRank[b.op]);
  return total[0] ?? null;
}

function lossVerdict(g: TraceGraph, found: Ending, retrieval: number): Omit<StageVerdict, 'rules'> {
  const op = found.op;
  // Emptied, or a unit fewer (a keyed store dropped an entry): deleted; else rewritten.
  const emptied =
    found.after !== null &&
    (emptyValue(g, found.after) || unitsOf(g, found.after).texts.length < unitsOf(g, found.v).texts.length);
  const type: ErrorType = emptied ? 'DeletionError' : 'UpdateError';
  const what = emptied ? 'deleted it' : 'rewrote it without the answer';
  return {
    error_type: type,
    op,
    reason: `A memory stated the answer ("${clip(found.held.text)}", ${g.varId[found.v]}) and ${g.opName[op] || g.opId[op]} ${what}; no memory states it at question time.`,
    path: [
      { var_id: g.varId[found.v], note: 'states the answer' },
      { op_id: g.opId[op], note: what },
      ...(found.after === null ? [] : [{ var_id: g.varId[found.after], note: 'no longer states it' }]),
    ],
    held: found.held,
    after: quoteOf(g, found.after),
    runnerUp: retrievalCandidate(
      g,
      retrieval,
      'if a later memory kept it in words the test did not see, the question-time op did not bring it',
    ),
    margin: 0,
  };
}

function extractionVerdict(
  g: TraceGraph,
  c: TraceCase,
  s: Stages,
  test: AnswerTest,
  settings: StageSettings,
  rules: StageRuleId[],
): StageVerdict | null {
  const { cx } = s;
  if (settings.off.has('never-stored')) return null;
  const evidence = [...cx.evidence].sort((a, b) => g.varRank[a] - g.varRank[b]);
  const stating = settings.off.has('stating-evidence-first') ? [] : evidence.filter((v) => test.stating(v));
  // An inferred answer: the earliest premise no memory ever carried was the one lost.
  const unkept = settings.off.has('stating-evidence-first') ? undefined : test.unkeptPremise(s.history);
  const first = stating[0] ?? unkept ?? evidence[0];
  const used: StageRuleId[] = [...rules, 'never-stored'];
  if (stating.length > 0) used.push('stating-evidence-first');
  if (first === undefined) return null;
  const readers = readersOf(g, first, cx.answerOp);
  if (readers.length === 0) return null;
  const op = readers[0];
  return {
    error_type: 'ExtractionError',
    op,
    reason: `No memory written before the question states the answer: ${g.opName[op] || g.opId[op]} read ${g.varId[first]}${stating.length ? ', which states it,' : ''} and kept no memory that does.`,
    rules: used,
    path: [
      { var_id: g.varId[first], note: stating.length ? 'evidence; states the answer' : 'evidence' },
      { op_id: g.opId[op], note: 'read it; no memory it wrote states the answer' },
    ],
    held: test.stating(first) ?? evidenceQuote(g, first, test),
    after: quoteOf(g, opStructure(g, op).outputs[0]),
    runnerUp: {
      op_id: g.opId[cx.answerOp],
      error_type: 'ResponseError',
      score: 0,
      reason: c.evidenceIds.length
        ? 'if a memory stated the answer in words the test did not see'
        : 'if the located evidence is not the question’s',
    },
    margin: 0,
  };
}

/** The ops that read v before the answer, earliest first (the extraction that saw it). */
function readersOf(g: TraceGraph, v: number, answerOp: number): number[] {
  const limit = answerOp >= 0 ? g.opRank[answerOp] : g.opOrder.length;
  return consumersOf(g, v)
    .filter((o) => g.opRank[o] < limit)
    .sort((a, b) => g.opRank[a] - g.opRank[b]);
}

/** An evidence message quoted as said, the question's and answer's words marked. */
function evidenceQuote(g: TraceGraph, v: number, test: AnswerTest): QuotedUnit {
  const text = readMessage(g.varValue[v], varMetadata(g, v) as Record<string, unknown> | null).text;
  return { var_id: g.varId[v], text, matched: test.matchedIn(text), support: 1 };
}

/** The first unit of v as a quote of what came after the held text (it does not hold the answer). */
function quoteOf(g: TraceGraph, v: number | null | undefined): QuotedUnit | null {
  if (v === null || v === undefined || v < 0) return null;
  const text = unitsOf(g, v).texts[0] ?? g.varValue[v];
  return { var_id: g.varId[v], text, matched: [], support: 0 };
}

function clip(text: string, n = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/**
 * The verdict as a support curve over the stages (1: the stage held the answer, 0: it did not),
 * from the walk's own answers: the extraction that read the evidence, the loss, the question-time
 * op and the answer op, in that order.
 */
export function stageSupport(g: TraceGraph, cx: CaseContext, v: StageVerdict): SupportStep[] {
  const first = [...cx.evidence].sort((a, b) => g.varRank[a] - g.varRank[b])[0];
  const extraction =
    v.error_type === 'ExtractionError'
      ? v.op
      : first === undefined
        ? -1
        : (readersOf(g, first, cx.answerOp)[0] ?? -1);
  const retrieval = retrievalOp(g, cx);
  const lost = v.error_type === 'UpdateError' || v.error_type === 'DeletionError';
  const held = (stage: number) => (v.error_type === 'ResponseError' ? 1 : stage);
  const steps: [number, number, number][] = [
    [extraction, 1, v.error_type === 'ExtractionError' ? 0 : 1],
    ...(lost ? [[v.op, 1, 0] as [number, number, number]] : []),
    [retrieval, v.error_type === 'RetrievalError' ? 1 : held(0), held(0)],
    [cx.answerOp, held(0), 0],
  ];
  const out = new Map<number, SupportStep>();
  for (const [op, before, after] of steps)
    if (op >= 0 && !out.has(op)) out.set(op, { op_id: g.opId[op], before, after });
  return [...out.values()];
}
