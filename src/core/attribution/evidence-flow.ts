/**
 * The evidence-flow attributor (deterministic, no model). For each piece of
 * evidence it follows the information forward through the ops, unit by unit
 * (carriers.ts), and then asks where it was lost:
 *   from the store, no copy left         → the version that lost it  (UpdateError / DeletionError),
 *                                          even when a later write brought it back
 *   else in the answer op's inputs       → the answer is at fault    (ResponseError)
 *   in the store at question time        → a question-time op lost it (RetrievalError)
 *   never in the store                   → the op that failed to carry it forward (ExtractionError)
 * and names the earliest such op over all evidence. Structure and categories only:
 * no op names are assumed. When the evidence does not state the golden answer and
 * nothing carries it, it says so instead of blaming extraction.
 */

import { maxOf } from '../arrays.ts';
import type { TraceCase } from '../cases/index.ts';
import {
  consumersOf,
  lineageOf,
  opStructure,
  producersOf,
  type TraceGraph,
  varMetadata,
} from '../graph/index.ts';
import { contentTerms } from '../nlp/index.ts';
import { sentences } from '../text/index.ts';
import { type ErrorType, isMessageCategory } from '../trace/index.ts';
import { type AnswerRule, accepts, describeAnswerRule } from './answer-rule.ts';
import { type Carriers, EMPTY_VALUE, followEvidence, type PassOptions } from './carriers.ts';
import {
  type CaseContext,
  caseContext,
  type IndexRemoval,
  storeSelector,
  untraceable,
} from './case-context.ts';
import { termOf, withOthers } from './critical.ts';
import {
  copiedInto,
  type Evidence,
  evidenceCore,
  Matcher,
  type MatchOptions,
  makeEvidence,
  type UnitDefaults,
} from './evidence-match.ts';
import { noGoldenAnswer } from './golden.ts';
import { type JudgePool, judgedSample, judgeFitOf } from './judge-fit.ts';
import { profileOf } from './profiles.ts';
import { metadataDate, readMessage } from './said.ts';
import {
  type AnswerRuleUsed,
  type Attribution,
  type AttributionCost,
  type AttributionInput,
  type Candidate,
  type NotAttributable,
  type NotAttributableReason,
  type PathStep,
  type QuotedUnit,
  type RunHooks,
  type SupportStep,
  throwIfAborted,
  type VerdictEvidence,
  ZERO_COST,
} from './types.ts';

/**
 * Options of the evidence-flow attributor: how units are matched, how to find evidence when the case names
 * none, and the clock for its cost.
 */
export interface EvidenceFlowOptions extends MatchOptions {
  /**
   * Finds evidence messages when the case names none (e.g. hybrid start points
   * over messages with question + golden answer). Returns variable indices.
   */
  locateEvidence?: (g: TraceGraph, c: TraceCase) => Promise<number[]>;
  /** Milliseconds since the epoch (injected so core never reads the clock itself). */
  now?: () => number;
  /** The same judge's verdicts in the traces opened with this one, for a trace with too few of its own. */
  judgePool?: JudgePool;
}

interface Loss {
  evidence: number;
  type: ErrorType;
  /**
   * An extraction loss of evidence that does not state the golden answer: no proof that
   * extraction lost anything (the answer is inferred, or stated by other evidence).
   */
  unsupported?: boolean;
  op: number;
  reason: string;
  path: PathStep[];
  /** The last variable that still held the evidence, and the one that came after it without it. */
  held: number;
  after: number;
  /** The units of `held` that carried it. */
  heldUnits?: Set<number>;
}

function earliest(g: TraceGraph, ops: number[]): number {
  return ops.reduce((best, o) => (best < 0 || g.opRank[o] < g.opRank[best] ? o : best), -1);
}

/** The latest of `ops` that ran before `limit`, else the latest of them. */
function latestBefore(g: TraceGraph, ops: number[], limit: number): number {
  const before = ops.filter((o) => limit < 0 || g.opRank[o] < g.opRank[limit]);
  const pool = before.length ? before : ops;
  return pool.reduce((best, o) => (best < 0 || g.opRank[o] > g.opRank[best] ? o : best), -1);
}

function describeVar(g: TraceGraph, v: number) {
  return `${g.varId[v]} [${g.varCategory[v]}]`;
}

function isMessage(g: TraceGraph, v: number): boolean {
  return isMessageCategory(g.varCategory[v]);
}

/** Day and speaker of a variable's units: a message's own, else its metadata's day. */
function unitDefaults(g: TraceGraph): (v: number) => UnitDefaults {
  const cache = new Map<number, UnitDefaults>();
  return (v) => {
    let d = cache.get(v);
    if (!d) {
      const meta = varMetadata(g, v);
      if (isMessage(g, v)) {
        const said = readMessage(g.varValue[v], meta);
        d = { day: said.day, speaker: said.speaker, written: said.written };
      } else d = { ...metadataDate(meta), speaker: null };
      cache.set(v, d);
    }
    return d;
  };
}

/** What one evidence message's information became: its carriers and the ops that dropped it. */
interface Flow {
  carriers: Carriers;
  /** Construction ops that read a carrier and wrote none toward the store. */
  constructionDrops: { op: number; transfer: boolean }[];
  /** Question-time ops that read a carrier and wrote none toward the answer. */
  questionDrops: number[];
}

function follow(
  g: TraceGraph,
  cx: CaseContext,
  ev: number,
  e: Evidence,
  m: Matcher,
  onStep?: PassOptions['onStep'],
): Flow {
  const questionOps = new Set(cx.questionOps);
  const start: Carriers = new Map([[ev, new Set(m.unitTexts(ev).map((_, i) => i))]]);
  const construction = cx.coneOps.filter((o) => !questionOps.has(o));
  const built = followEvidence(g, construction, start, e, m, { keep: (v) => cx.coneVars.has(v), onStep });
  // Question time: from whatever the store holds, toward the answer's inputs.
  const asked = followEvidence(g, cx.questionOps, built.carriers, e, m, {
    keep: (v) => cx.coneVars.has(v) || cx.context.includes(v),
    extraInputs: cx.untracedInputs,
    onStep,
  });
  return {
    carriers: asked.carriers,
    constructionDrops: built.drops,
    questionDrops: asked.drops.map((d) => d.op),
  };
}

function retrievalLoss(g: TraceGraph, cx: CaseContext, ev: number, flow: Flow, held: number[]): Loss {
  // The op that wrote this question's context: a content-named context ("list:<sha1>") may
  // have been written by an earlier question's search too.
  const asked = new Set(cx.questionOps);
  const producers = cx.context.flatMap((v) => producersOf(g, v)).filter((o) => o !== cx.answerOp);
  const ours = producers.filter((o) => asked.has(o));
  // Held in the store, never read at question time: the op that chose from the store left it out.
  const selector = flow.questionDrops.length ? -1 : storeSelector(g, cx);
  const op = flow.questionDrops.length
    ? flow.questionDrops[0]
    : selector >= 0
      ? selector
      : ours.length
        ? earliest(g, ours)
        : latestBefore(g, producers.length ? producers : cx.questionOps, cx.answerOp);
  return {
    evidence: ev,
    type: 'RetrievalError',
    op,
    held: held[0],
    heldUnits: flow.carriers.get(held[0]),
    after: cx.context[0] ?? -1,
    reason: `The store at question time holds the evidence (${g.varId[held[0]]}), but the context given to the answer lacks it; ${op >= 0 ? `${g.opName[op] || g.opId[op]} dropped it` : 'no op carried it'}.`,
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      { var_id: g.varId[held[0]], note: 'in the store at question time' },
      ...(op >= 0
        ? [{ op_id: g.opId[op], note: 'lost here: its output toward the answer lacks the evidence' }]
        : []),
    ],
  };
}

/** A version step of a store lineage that lost the evidence: `prev` held it, `cur` no longer does. */
function versionLoss(g: TraceGraph, ev: number, flow: Flow, m: Matcher, prev: number, cur: number): Loss {
  const producers = producersOf(g, cur);
  const op = producers.length ? earliest(g, producers) : -1;
  const before = m.unitsOf(prev);
  const after = m.unitsOf(cur);
  const unit = [...(flow.carriers.get(prev) ?? [0])][0];
  // A dict entry or list item that disappears was deleted; a text (a window, a summary) that loses
  // a line is one memory unit degraded by an update.
  let deleted = false;
  if (before.kind === 'dict' && after.kind === 'dict') deleted = !after.keys.includes(before.keys[unit]);
  else if (before.kind === 'list' && after.kind === 'list')
    deleted = after.texts.length < before.texts.length;
  else if (before.texts.length > 0 && after.texts.length === 0) deleted = true;
  if (op >= 0 && /delet|remov|forget|evict|expir/i.test(`${g.opCategory[op]} ${g.opName[op]}`))
    deleted = true;
  const type: ErrorType = deleted ? 'DeletionError' : 'UpdateError';
  return {
    evidence: ev,
    type,
    op,
    held: prev,
    heldUnits: flow.carriers.get(prev),
    after: cur,
    reason: `${g.varId[prev]} held the evidence (${before.keyed ? `entry ${before.keys[unit]}` : `item ${Number(before.keys[unit]) + 1}`}); the next version ${g.varId[cur]} ${deleted ? 'no longer has that entry' : 'changed it and lost the evidence'}.`,
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      { var_id: g.varId[prev], note: 'held in the store' },
      ...(op >= 0 ? [{ op_id: g.opId[op], note: deleted ? 'deleted it' : 'degraded it' }] : []),
      { var_id: g.varId[cur], note: 'lost from here on' },
    ],
  };
}

/** A store unit that carried the evidence and that an index stopped listing: deleted, or merged away (an update). */
function removalLoss(g: TraceGraph, ev: number, unit: number, removal: IndexRemoval): Loss {
  const { before, after, merged } = removal;
  if (merged)
    return {
      evidence: ev,
      type: 'UpdateError',
      op: merged.op,
      held: unit,
      after: merged.unit,
      reason: `${g.varId[unit]} held the evidence; ${g.opName[merged.op] || g.opId[merged.op]} merged it into ${g.varId[merged.unit]} without it, and the store kept only the merged unit.`,
      path: [
        { var_id: g.varId[ev], note: 'evidence' },
        { var_id: g.varId[unit], note: 'held it' },
        { op_id: g.opId[merged.op], note: 'merged it away' },
        { var_id: g.varId[merged.unit], note: 'replaced it; lacks the evidence' },
      ],
    };
  const op = earliest(g, producersOf(g, after));
  return {
    evidence: ev,
    type: 'DeletionError',
    op,
    held: unit,
    after,
    reason: `${g.varId[unit]} held the evidence; ${g.varId[before]} listed it, ${g.varId[after]} no longer does, so it was out of the store at question time.`,
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      { var_id: g.varId[unit], note: 'held it' },
      { var_id: g.varId[before], note: 'listed it in the store' },
      ...(op >= 0 ? [{ op_id: g.opId[op], note: 'removed it' }] : []),
      { var_id: g.varId[after], note: 'no longer lists it' },
    ],
  };
}

/**
 * One copy of the evidence in the store: held from variable rank `from` until rank `to` (the
 * version or index that dropped it; Infinity when it lasted to question time), and that loss.
 */
interface Copy {
  from: number;
  to: number;
  loss: () => Loss | null;
}

/** Every copy of the evidence the store held before question time: runs of carrying versions, and units an index dropped. */
function copiesOf(g: TraceGraph, cx: CaseContext, ev: number, flow: Flow, m: Matcher): Copy[] {
  const copies: Copy[] = [];
  for (const s of cx.store) {
    let first = -1;
    let prev = -1;
    for (const v of lineageOf(g, s)) {
      if (g.varRank[v] > g.varRank[s]) break;
      const c = flow.carriers.has(v);
      if (c && first < 0) first = v;
      if (!c && prev >= 0) {
        const [p, cur] = [prev, v];
        copies.push({
          from: g.varRank[first],
          to: g.varRank[v],
          loss: () => versionLoss(g, ev, flow, m, p, cur),
        });
        first = -1;
      }
      prev = c ? v : -1;
    }
    if (first >= 0) copies.push({ from: g.varRank[first], to: Infinity, loss: () => null });
  }
  for (const [unit, removal] of cx.removed) {
    if (!flow.carriers.has(unit)) continue;
    // Merged into a unit that still carries it: nothing was lost there (the merged unit is a copy of its own).
    const kept = removal.merged !== undefined && flow.carriers.has(removal.merged.unit);
    copies.push({
      from: g.varRank[unit],
      to: g.varRank[removal.after],
      loss: () => (kept ? null : removalLoss(g, ev, unit, removal)),
    });
  }
  return copies;
}

/**
 * The earliest loss after which no copy of the evidence was left in the store — the earliest
 * faulty op of the store, even when a later write brought the evidence back (a fact written
 * again to another user's store): repaired, with every later op ideal, the answer had it. A
 * copy lost while another still held the evidence lost nothing.
 */
function storeLoss(g: TraceGraph, cx: CaseContext, ev: number, flow: Flow, m: Matcher): Loss | null {
  const copies = copiesOf(g, cx, ev, flow, m).sort((a, b) => a.to - b.to);
  for (const c of copies) {
    if (c.to === Infinity) break;
    if (copies.some((o) => o !== c && o.from < c.to && c.to < o.to)) continue;
    const loss = c.loss();
    if (loss) return loss;
  }
  return null;
}

/** The variables an op wrote. */
function producedBy(g: TraceGraph, op: number): number[] {
  return opStructure(g, op).outputs;
}

function extractionLoss(g: TraceGraph, cx: CaseContext, ev: number, flow: Flow): Loss {
  const questionOps = new Set(cx.questionOps);
  const drop = flow.constructionDrops.find((d) => d.transfer) ?? flow.constructionDrops[0];
  let op = drop ? drop.op : -1;
  let how = drop ? 'wrote nothing toward the store that still holds it' : '';
  const carriers = [...flow.carriers.keys()];
  if (op < 0) {
    // Nothing on the way to the store read it: blame the first op that read the evidence at all.
    op = earliest(
      g,
      carriers.flatMap((v) => consumersOf(g, v)).filter((o) => !questionOps.has(o) && o !== cx.answerOp),
    );
    how = op >= 0 ? 'read it, but nothing it wrote reaches the store' : '';
  }
  if (wroteNothing(g, op))
    how =
      'read it and wrote nothing at all (an empty result): no memory was left to recall or infer the answer from';
  const carried = carriers.filter((v) => v !== ev && !cx.context.includes(v));
  const written = op >= 0 ? producedBy(g, op) : [];
  return {
    evidence: ev,
    type: 'ExtractionError',
    op,
    held: carried.at(-1) ?? ev,
    heldUnits: flow.carriers.get(carried.at(-1) ?? ev),
    after: written[0] ?? -1,
    reason:
      op >= 0
        ? `The evidence never entered the store read at question time: ${g.opName[op] || g.opId[op]} ${how}.`
        : 'The evidence never entered the store, and no operation read it.',
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      ...carried.slice(-3).map((v) => ({ var_id: g.varId[v], note: 'carried it' })),
      ...(op >= 0 ? [{ op_id: g.opId[op], note: 'lost here' }] : []),
    ],
  };
}

/**
 * How much of the golden answer an evidence message states (0–1; null for the lexical
 * layer, which does not read it). A message that states the whole answer decides over
 * one that states a part ("the aptitude test" beside "the military aptitude test").
 */
function coverage(e: Evidence): number | null {
  const c = e.critical;
  if (!c || c.freeText) return null;
  if (c.answerSpan || c.answerRelative) return 1;
  return c.goldenTermCount ? c.answerTerms.length / c.goldenTermCount : 0;
}

function evidenceFor(g: TraceGraph, ev: number, c: TraceCase, m: Matcher): Evidence {
  const said = readMessage(g.varValue[ev], varMetadata(g, ev));
  // Match on the part of the message that bears on the question (see evidenceCore).
  const core = evidenceCore(said.text, c.question, c.goldenAnswers);
  return makeEvidence(core, c.goldenAnswers, c.question, said, m.options);
}

/** A case's evidence messages as evidence, each knowing what the others state of the answer. */
function evidencePieces(g: TraceGraph, evidence: readonly number[], c: TraceCase, m: Matcher) {
  const read = evidence.map((ev) => ({ ev, e: evidenceFor(g, ev, c, m) }));
  const infos = withOthers(read.map((p) => p.e.critical));
  return read.map((p, i) => ({ ev: p.ev, e: { ...p.e, critical: infos[i] } }));
}

function lossFor(g: TraceGraph, cx: CaseContext, ev: number, e: Evidence, m: Matcher): Loss | null {
  const flow = follow(g, cx, ev, e, m);
  // A copy the trace does not show being written may have been in the store all along, so no
  // loss in the trace was total: the answer had the evidence.
  if (cx.context.some((v) => untracedStates(g, cx, v, e, m))) return null;
  // The earliest faulty op of the store decides, even when a later write brought the evidence back.
  const lost = storeLoss(g, cx, ev, flow, m);
  if (lost) return lost;
  if (cx.context.some((v) => flow.carriers.has(v))) return null;
  const held = cx.store.filter((v) => flow.carriers.has(v));
  if (held.length) return retrievalLoss(g, cx, ev, flow, held);
  const extraction = extractionLoss(g, cx, ev, flow);
  // Nothing downstream carries it — but if the evidence never stated the golden answer
  // (an inference, arithmetic on dates), that is no proof extraction lost anything…
  // unless extraction wrote nothing at all from a message that states something: then
  // nothing was left to infer from. (Nothing is right for a question: "What got you into running?")
  const dropped = wroteNothing(g, extraction.op) && statesSomething(m.bodiesOf(ev).join(' '));
  if (e.critical && !e.critical.supported && !e.critical.freeText && !dropped)
    return { ...extraction, unsupported: true };
  return extraction;
}

/** Content words a message must say outside its questions to state something worth keeping. */
const MIN_STATED_WORDS = 3;

/** The text says something besides asking: enough content words outside its question sentences. */
function statesSomething(text: string): boolean {
  const stated = sentences(text).filter((s) => !s.trim().endsWith('?'));
  return contentTerms(stated.join(' ')).length >= MIN_STATED_WORDS;
}

/** The op wrote something, and every value it wrote is empty (an extraction that kept nothing). */
function wroteNothing(g: TraceGraph, op: number): boolean {
  const written = op >= 0 ? producedBy(g, op) : [];
  return written.length > 0 && written.every((v) => EMPTY_VALUE.test(g.varValue[v] ?? ''));
}

/** How much of a unit's opening a copy of it keeps, at least. */
const COPY_OPENING = 60;

/**
 * The answer's input states what the evidence states in a unit copied from a memory the trace
 * does not show being written (a slice of a longer run): the evidence's way cannot reach it,
 * so its content decides — the answer had it. A copy the trace shows being written from
 * another message is another fact, however alike. Only evidence that states the whole answer
 * and has topic words a line must keep is checked so: a line that merely shares the answer's
 * date or one of its words is no copy of it.
 */
function untracedStates(g: TraceGraph, cx: CaseContext, v: number, e: Evidence, m: Matcher): boolean {
  const c = e.critical;
  if (!c?.supported || coverage(e) !== 1 || c.topics.length === 0 || !m.carries(v, e)) return false;
  const held = [...producersOf(g, v).flatMap((op) => opStructure(g, op).inputs), ...cx.store].filter(
    (u) => u !== v && producersOf(g, u).length > 0,
  );
  // A copy may be cut short or run into the next line: its opening words decide.
  const opening = (x: string) => x.slice(0, COPY_OPENING);
  const traced = (body: string) =>
    held.some((u) => m.bodiesOf(u).some((x) => copiedInto(opening(x), body) || copiedInto(opening(body), x)));
  return m.bodiesOf(v).some((body, i) => m.unitCarries(v, i, e) && !traced(body));
}

function result(
  input: AttributionInput,
  cost: AttributionCost,
  fields: Omit<Attribution, 'query_id' | 'method' | 'cost'>,
): Attribution {
  return { query_id: input.case.queryId, method: 'evidence', ...fields, cost };
}

/** The evidence messages of a case: its evidence ids, else the located ones. */
async function evidenceOf(
  g: TraceGraph,
  c: TraceCase,
  cx: CaseContext,
  options: EvidenceFlowOptions,
): Promise<number[]> {
  if (cx.evidence.length > 0 || !options.locateEvidence) return cx.evidence;
  return options.locateEvidence(g, c);
}

/** The carrying test: the caller's, else the one the trace's judge teaches (or the prior). */
export function answerRuleOf(
  g: TraceGraph,
  options: EvidenceFlowOptions,
): { rule: AnswerRule; used: AnswerRuleUsed } {
  if (options.rule)
    return {
      rule: options.rule,
      used: {
        source: 'given',
        description: describeAnswerRule(options.rule),
        agreement: null,
        passed: 0,
        failed: 0,
      },
    };
  const { fit, source } = judgeFitOf(g, options);
  return {
    rule: fit.rule,
    used: {
      source,
      description: describeAnswerRule(fit.rule),
      agreement: fit.agreement,
      passed: fit.passed,
      failed: fit.failed,
    },
  };
}

/** Does the rule accept the prediction the trace's judge rejected (a candidate judge error)? */
export function judgeDisagrees(c: TraceCase, rule: AnswerRule, options: EvidenceFlowOptions): boolean {
  if (!c.failed) return false;
  const sample = judgedSample(c, { similar: options.similar, answerSimilarity: options.answerSimilarity });
  return sample?.features.some((f) => accepts(rule, f)) ?? false;
}

/** An image the message shared (its caption a memory system may never see), as the trace's data profile marks it. */
function sharesImage(g: TraceGraph, v: number): boolean {
  return profileOf(g).sharesImage(varMetadata(g, v) as Record<string, unknown> | null, g.varValue[v]);
}

/** What the evidence-flow attributor runs with for one case (built once, used by its steps). */
interface FlowRun {
  input: AttributionInput;
  g: TraceGraph;
  c: TraceCase;
  cx: CaseContext;
  m: Matcher;
  hooks: RunHooks;
  evidence: number[];
  pieces: { ev: number; e: Evidence }[];
  /** The largest share of the answer (of each part of a list answer) one evidence message states. */
  best: BestCoverage;
  /** The carrying test used (for the verdict's confidence). */
  used: AnswerRuleUsed;
}

/** The largest coverage among evidence messages, per part of the answer they state (null: the whole answer). */
type BestCoverage = Map<string | null, number>;

function bestCoverage(pieces: { e: Evidence }[]): BestCoverage {
  const best: BestCoverage = new Map();
  for (const { e } of pieces) {
    const part = e.critical?.part ?? null;
    best.set(part, Math.max(best.get(part) ?? 0, coverage(e) ?? 0));
  }
  return best;
}

/**
 * Is this evidence message followed? Evidence stating part of the answer yields to evidence
 * stating more of it (`best`; of the same part of a list answer); evidence stating none of it
 * (the question's frame) is still followed by its own words.
 */
function followed(e: Evidence, best: BestCoverage): boolean {
  const cov = coverage(e);
  return cov === null || cov === 0 || cov >= (best.get(e.critical?.part ?? null) ?? 0);
}

/** Follows every evidence message that states the most of the answer; collects where each was lost. */
function followAll(run: FlowRun, report: boolean) {
  const { g, cx, m, hooks } = run;
  const losses: Loss[] = [];
  let unsupported = 0;
  for (const [i, { ev, e }] of run.pieces.entries()) {
    throwIfAborted(hooks.signal);
    if (!followed(e, run.best)) continue;
    if (report) hooks.onEvent?.({ type: 'step', step: i + 1, note: `following ${describeVar(g, ev)}` });
    const loss = lossFor(g, cx, ev, e, m);
    if (loss?.unsupported) unsupported++;
    else if (loss) losses.push(loss);
  }
  return { losses, unsupported };
}

/** Follows the evidence, asks the middle-band judge when there is one, and follows it again. */
async function traceLosses(run: FlowRun, cost: AttributionCost) {
  let found = followAll(run, true);
  const judged = run.m.pendingCount;
  if (judged > 0) {
    run.hooks.onEvent?.({
      type: 'step',
      step: run.pieces.length + 1,
      note: `asking ${run.m.options.judge?.label} about ${judged} memory unit(s)`,
    });
    const spent = await run.m.decidePending(run.hooks.signal);
    cost.llm_calls += spent.llm_calls;
    cost.input_tokens += spent.input_tokens;
    cost.output_tokens += spent.output_tokens;
    found = followAll(run, false);
  }
  return found;
}

/** Longest quote of a unit in a result. */
const QUOTE_CHARS = 600;

/**
 * The unit of v that conveys most of the evidence (one of `carrying`, which carried it along
 * the evidence's way, when given), quoted with the words it matched.
 */
function quote(run: FlowRun, v: number, e: Evidence, carrying?: Set<number>): QuotedUnit | null {
  if (v < 0) return null;
  const texts = run.m.unitTexts(v);
  let best = -1;
  let support = -1;
  for (let i = 0; i < texts.length && support < 1; i++) {
    const s = carrying?.has(i) ? 1 : carrying?.size ? -1 : run.m.unitSupport(v, i, e);
    if (s > support) {
      support = s;
      best = i;
    }
  }
  if (best < 0) return null;
  const text = texts[best].length > QUOTE_CHARS ? `${texts[best].slice(0, QUOTE_CHARS)}…` : texts[best];
  return { var_id: run.g.varId[v], text, matched: matchedWords(texts[best], e), support };
}

/** The answer's, names' and topics' words a text holds, as written there. */
function matchedWords(text: string, e: Evidence): string[] {
  const c = e.critical;
  const keys = new Set(
    c
      ? [...c.answerTerms, ...c.topics].map((t) => t.key)
      : [...e.answerTokens, ...e.keyTokens].map((t) => termOf(t).key),
  );
  const names = new Set(c?.entities ?? []);
  const out = new Set<string>();
  for (const t of contentTerms(text)) if (keys.has(t.key) || names.has(t.surface)) out.add(t.surface);
  return [...out];
}

/** The texts a verdict rests on: the decisive loss's last holder and successor, else the context. */
function evidenceOfVerdict(run: FlowRun, first: Loss | undefined): VerdictEvidence {
  const piece = run.pieces.find((p) => p.ev === first?.evidence) ?? run.pieces[0];
  if (!piece) return { held: null, after: null };
  if (first)
    return {
      held: quote(run, first.held, piece.e, first.heldUnits),
      after: quote(run, first.after, piece.e),
    };
  const context = run.cx.context.map((v) => quote(run, v, piece.e)).filter((q) => q !== null);
  context.sort((a, b) => b.support - a.support);
  const prediction = producedBy(run.g, run.cx.answerOp)[0] ?? -1;
  return { held: context[0] ?? null, after: quote(run, prediction, piece.e) };
}

/** How sure a verdict is (see `Attribution.confidence`). */
function confidenceOf(used: AnswerRuleUsed, ev: VerdictEvidence, located: number, response: boolean): number {
  const rule = used.source === 'fitted' ? (used.agreement ?? 0.75) : 0.75;
  const clarity = response ? (ev.held?.support ?? 0) : 1 - (ev.after?.support ?? 0);
  const alone = located > 1 ? 0.85 : 1;
  return Math.round(100 * Math.max(0, Math.min(1, rule * clarity * alone))) / 100;
}

/** The verdict from the losses found: the earliest located loss, else the answer op. */
function verdictOf(run: FlowRun, losses: Loss[]): Omit<Attribution, 'query_id' | 'method' | 'cost'> {
  const { g, cx } = run;
  const answerStep: PathStep = { op_id: g.opId[cx.answerOp], note: 'wrote the prediction' };
  const response: Candidate = {
    op_id: g.opId[cx.answerOp],
    error_type: 'ResponseError',
    score: losses.length ? 0.1 : 1,
    reason: 'The answer op had every piece of evidence in its inputs and still answered wrongly.',
  };
  const located = losses.filter((l) => l.op >= 0).sort((a, b) => g.opRank[a.op] - g.opRank[b.op]);
  const candidates: Candidate[] = [];
  for (const [i, l] of located.entries())
    if (!candidates.some((x) => x.op_id === g.opId[l.op]))
      candidates.push({ op_id: g.opId[l.op], error_type: l.type, score: 1 / (i + 1), reason: l.reason });
  candidates.push(response);
  const first = located[0] ?? losses[0];
  const grounds = evidenceOfVerdict(run, first);
  const confidence = confidenceOf(run.used, grounds, candidates.length - 1, losses.length === 0);
  if (losses.length === 0)
    return {
      verdict_evidence: grounds,
      confidence,
      error_type: 'ResponseError',
      op_id: g.opId[cx.answerOp],
      reason: `Every piece of evidence (${run.evidence.map((v) => g.varId[v]).join(', ')}) reached the answer's inputs, yet the answer is wrong.`,
      path: [
        ...run.evidence.map((v) => ({ var_id: g.varId[v], note: 'evidence, present in the context' })),
        answerStep,
      ],
      candidates,
    };
  return {
    verdict_evidence: grounds,
    confidence,
    error_type: first.type,
    op_id: first.op >= 0 ? g.opId[first.op] : null,
    reason: first.reason,
    path: first.path,
    candidates,
  };
}

/** Support steps kept per result: the evidence's way is long in a long-context trace. */
const MAX_SUPPORT_STEPS = 50;

/**
 * The support curve of one evidence message: every op that read a carrier, with the support
 * among what it read (1: it read a carrier) and among what it wrote toward the store or the
 * answer (1 when an output carries, else the best partial support), then the answer op with
 * the support of its inputs. Kept: where support fell, the first step, the last that still
 * carried, and the answer.
 */
function supportSteps(run: FlowRun, ev: number, e: Evidence): SupportStep[] {
  const { g, cx, m } = run;
  const seen: { op: number; outs: number[]; day: number | null }[] = [];
  const flow = follow(g, cx, ev, e, m, (op, _carrying, outs, day) => seen.push({ op, outs, day }));
  const supportOf = (vs: number[], day: number | null) =>
    vs.some((v) => flow.carriers.has(v))
      ? 1
      : maxOf(
          vs.map((v) => m.support(v, e, day)),
          0,
        );
  const steps = seen
    .filter((x) => x.op !== cx.answerOp)
    .map((x) => ({ op_id: g.opId[x.op], before: 1, after: supportOf(x.outs, x.day) }));
  const keep = steps.filter(
    (x, i) => i === 0 || x.after < x.before || (x.after === 1 && steps[i + 1]?.after !== 1),
  );
  const answer = { op_id: g.opId[cx.answerOp], before: supportOf(cx.context, null), after: 0 };
  return [...keep.slice(0, MAX_SUPPORT_STEPS - 1), answer];
}

/** The support curve of the evidence a verdict rests on (the lost one, else every piece, the first listed). */
function supportOfVerdict(run: FlowRun, losses: Loss[], op: string | null): SupportStep[] {
  const decisive = losses.find((l) => l.op >= 0 && run.g.opId[l.op] === op);
  const piece = run.pieces.find((p) => p.ev === decisive?.evidence) ?? run.pieces[0];
  return piece ? supportSteps(run, piece.ev, piece.e) : [];
}

/** Why no evidence states the answer: only an image did, or it must be inferred. */
function unstated(run: FlowRun): NotAttributable {
  const ids = run.evidence.map((v) => run.g.varId[v]).join(', ');
  if (run.evidence.some((v) => sharesImage(run.g, v)))
    return {
      reason: 'answer-in-image',
      detail: `The evidence (${ids}) shares an image (as the ${profileOf(run.g).id} data profile marks one) and its text does not state the golden answer: the answer is in the image, which the trace does not show.`,
    };
  return {
    reason: 'inferred',
    detail: `No decisive memory error found: the evidence (${ids}) does not state the golden answer itself (it must be inferred), and no memory or context holds it.`,
  };
}

/**
 * The deterministic attributor: follows each evidence message forward through the ops and blames the
 * earliest op where one was lost (type by where it stood at question time), with ranked candidates.
 * "Carries the answer" is the trace's own judge as learned from its verdicts (`judge-fit.ts`, or the
 * prior). Cases that cannot be traced (no golden answer, an answer only in an image or to be inferred,
 * no evidence, no answer op) are `not_attributable`. Makes no model call unless `options.judge` is given.
 */
export async function attributeEvidenceFlow(
  input: AttributionInput,
  options: EvidenceFlowOptions = {},
  hooks: RunHooks = {},
): Promise<Attribution> {
  const now = options.now ?? (() => 0);
  const started = now();
  const cost: AttributionCost = { ...ZERO_COST };
  const spent = () => ({ ...cost, seconds: Math.max(0, now() - started) / 1000 });
  const { graph: g, case: c } = input;
  const { rule, used } = answerRuleOf(g, options);
  const judged = { answer_rule: used, judge_disagrees: judgeDisagrees(c, rule, options) };
  const none = (reason: NotAttributableReason, detail: string, path: PathStep[] = []) =>
    result(input, spent(), {
      error_type: null,
      op_id: null,
      reason: detail,
      path,
      candidates: [],
      not_attributable: { reason, detail },
      ...judged,
    });
  if (noGoldenAnswer(c.goldenAnswers))
    return none(
      'no-golden-answer',
      'Not attributable: the golden answer is empty or says the conversation does not answer the question (an adversarial question), so there is no information whose loss could be traced.',
    );
  const cx = caseContext(g, c);
  const stop = untraceable(g, c, cx);
  if (stop) return none(stop.reason, stop.detail, stop.path);
  const answerStep: PathStep = { op_id: g.opId[cx.answerOp], note: 'wrote the prediction' };
  const evidence = await evidenceOf(g, c, cx, options);
  throwIfAborted(hooks.signal);
  if (evidence.length === 0)
    return none(
      'no-evidence',
      'No evidence could be located for this question (no evidence ids, and no message matches it).',
      [answerStep],
    );
  const m = new Matcher(
    (v) => g.varValue[v],
    { ...options, rule },
    unitDefaults(g),
    (v) => (isMessage(g, v) ? readMessage(g.varValue[v], varMetadata(g, v)).text : null),
  );
  const pieces = evidencePieces(g, evidence, c, m);
  const best = bestCoverage(pieces);
  const run: FlowRun = { input, g, c, cx, m, hooks, evidence, pieces, best, used };
  const { losses, unsupported } = await traceLosses(run, cost);
  if (losses.length === 0 && unsupported > 0 && maxOf(best.values(), 0) === 0) {
    const why = unstated(run);
    return none(why.reason, why.detail, [
      ...evidence.map((v) => ({ var_id: g.varId[v], note: 'evidence; does not state the answer' })),
      answerStep,
    ]);
  }
  const verdict = verdictOf(run, losses);
  const support = supportOfVerdict(run, losses, verdict.op_id);
  return result(input, spent(), { ...verdict, not_attributable: null, ...judged, support });
}

/**
 * Did a memory unit of the store hold a case's evidence and a later version, before the
 * question, lose it (an update or a deletion)? The same carrying test and the same losses as
 * the attributor (`copiesOf`: any copy lost, not only the last), for callers that have no evidence-flow result
 * at hand (a report of another engine's attributions). False when the case cannot be traced.
 */
export function evidenceChangedLater(
  g: TraceGraph,
  c: TraceCase,
  options: EvidenceFlowOptions = {},
): boolean {
  if (noGoldenAnswer(c.goldenAnswers)) return false;
  const cx = caseContext(g, c);
  if (cx.answerOp < 0 || cx.evidence.length === 0) return false;
  const { rule } = answerRuleOf(g, options);
  const m = new Matcher(
    (v) => g.varValue[v],
    { ...options, rule },
    unitDefaults(g),
    (v) => (isMessage(g, v) ? readMessage(g.varValue[v], varMetadata(g, v)).text : null),
  );
  const pieces = evidencePieces(g, cx.evidence, c, m);
  const best = bestCoverage(pieces);
  return pieces.some(({ ev, e }) => {
    if (!followed(e, best)) return false;
    const flow = follow(g, cx, ev, e, m);
    return copiesOf(g, cx, ev, flow, m).some((copy) => copy.to !== Infinity && copy.loss() !== null);
  });
}

/** Error types of a loss in the store after the evidence was held there. */
export const STORE_LOSS_TYPES: ReadonlySet<string> = new Set(['UpdateError', 'DeletionError']);
