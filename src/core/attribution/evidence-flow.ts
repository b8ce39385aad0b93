/**
 * The evidence-flow attributor (deterministic, no model). For each piece of
 * evidence it asks, from the answer backwards, where the information stood:
 *   in the answer op's inputs            → the answer is at fault    (ResponseError)
 *   in the store at question time        → a question-time op lost it (RetrievalError)
 *   once in the store, gone by then      → the version that lost it  (UpdateError / DeletionError)
 *   never in the store                   → the op that failed to carry it forward (ExtractionError)
 * and names the earliest such op over all evidence. Structure and categories only:
 * no op names are assumed.
 */
import type { TraceCase } from '../cases/cases.ts';
import type { TraceGraph } from '../graph/graph.ts';
import { consumersOf, lineageOf, opStructure, producersOf } from '../graph/queries.ts';
import type { ErrorType } from '../trace/types.ts';
import { type CaseContext, caseContext } from './case-context.ts';
import {
  contentTokens,
  type Evidence,
  evidenceCore,
  evidenceText,
  Matcher,
  type MatchOptions,
  makeEvidence,
} from './evidence-match.ts';
import {
  type Attribution,
  type AttributionInput,
  type Candidate,
  type PathStep,
  type RunHooks,
  throwIfAborted,
  ZERO_COST,
} from './types.ts';

export interface EvidenceFlowOptions extends MatchOptions {
  /**
   * Finds evidence messages when the case names none (e.g. hybrid start points
   * over messages with question + golden answer). Returns variable indices.
   */
  locateEvidence?: (g: TraceGraph, c: TraceCase) => Promise<number[]>;
}

interface Loss {
  evidence: number;
  type: ErrorType;
  op: number;
  reason: string;
  path: PathStep[];
}

/** Golden answers whose content words all appear in the prediction: the judge was likely too strict. */
export function predictionLooksAcceptable(prediction: string | null, golden: readonly string[]): boolean {
  if (!prediction) return false;
  const words = new Set(contentTokens(prediction));
  return golden.some((g) => {
    const t = contentTokens(g);
    return t.length > 0 && t.every((w) => words.has(w));
  });
}

function earliest(g: TraceGraph, ops: number[]): number {
  return ops.reduce((best, o) => (best < 0 || g.opRank[o] < g.opRank[best] ? o : best), -1);
}

/** Forward pass over ops in execution order: which outputs still carry the evidence, and which ops dropped it. */
function propagate(
  g: TraceGraph,
  ops: number[],
  start: number[],
  e: Evidence,
  m: Matcher,
  keep: (v: number) => boolean,
): { carriers: Set<number>; drops: { op: number; transfer: boolean }[] } {
  const carriers = new Set(start);
  const drops: { op: number; transfer: boolean }[] = [];
  for (const op of ops) {
    const s = opStructure(g, op);
    const carrying = [...s.inputs, ...s.intermediates].filter((v) => carriers.has(v));
    if (carrying.length === 0) continue;
    const outs = s.outputs.filter(keep);
    if (outs.length === 0) continue;
    let any = false;
    for (const w of outs)
      if (m.carries(w, e)) {
        carriers.add(w);
        any = true;
      }
    for (const w of s.intermediates) if (m.carries(w, e)) carriers.add(w);
    if (!any) {
      const sourceLineages = new Set(carrying.map((v) => g.varLineage[v]));
      drops.push({ op, transfer: outs.some((w) => !sourceLineages.has(g.varLineage[w])) });
    }
  }
  return { carriers, drops };
}

function describeVar(g: TraceGraph, v: number) {
  return `${g.varId[v]} [${g.varCategory[v]}]`;
}

function retrievalLoss(
  g: TraceGraph,
  cx: CaseContext,
  ev: number,
  e: Evidence,
  m: Matcher,
  storeCarriers: number[],
): Loss {
  const { drops } = propagate(
    g,
    cx.questionOps,
    storeCarriers,
    e,
    m,
    (v) => cx.coneVars.has(v) || cx.context.includes(v),
  );
  const producers = cx.context.flatMap((v) => producersOf(g, v)).filter((o) => o !== cx.answerOp);
  const op = drops.length ? drops[0].op : earliest(g, producers.length ? producers : cx.questionOps);
  return {
    evidence: ev,
    type: 'RetrievalError',
    op,
    reason: `The store at question time holds the evidence (${g.varId[storeCarriers[0]]}), but the context given to the answer lacks it; ${op >= 0 ? `${g.opName[op] || g.opId[op]} dropped it` : 'no op carried it'}.`,
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      { var_id: g.varId[storeCarriers[0]], note: 'in the store at question time' },
      ...(op >= 0
        ? [{ op_id: g.opId[op], note: 'lost here: its output toward the answer lacks the evidence' }]
        : []),
    ],
  };
}

/** The first version of a store lineage that lost the evidence after holding it. */
function storeLoss(g: TraceGraph, cx: CaseContext, ev: number, e: Evidence, m: Matcher): Loss | null {
  let found: { prev: number; cur: number } | null = null;
  for (const s of cx.store) {
    const chain = lineageOf(g, s);
    let prev = -1;
    for (const v of chain) {
      if (g.varRank[v] > g.varRank[s]) break;
      const c = m.carries(v, e);
      if (prev >= 0 && !c) {
        if (!found || g.varRank[v] < g.varRank[found.cur]) found = { prev, cur: v };
        break;
      }
      prev = c ? v : -1;
    }
  }
  if (!found) return null;
  const { prev, cur } = found;
  const producers = producersOf(g, cur);
  const op = producers.length ? earliest(g, producers) : -1;
  const before = m.unitsOf(prev);
  const after = m.unitsOf(cur);
  const unit = m.carrierUnit(prev, e);
  // A dict entry or list item that disappears was deleted; a text (a window, a summary) that loses
  // a line is one memory unit degraded by an update.
  let deleted = false;
  if (before.kind === 'dict' && after.kind === 'dict') deleted = !after.keys.includes(before.keys[unit]);
  else if (before.kind === 'list' && after.kind === 'list')
    deleted = after.texts.length < before.texts.length;
  if (op >= 0 && /delet|remov/i.test(g.opCategory[op])) deleted = true;
  const type: ErrorType = deleted ? 'DeletionError' : 'UpdateError';
  return {
    evidence: ev,
    type,
    op,
    reason: `${g.varId[prev]} held the evidence (${before.keyed ? `entry ${before.keys[unit]}` : `item ${unit + 1}`}); the next version ${g.varId[cur]} ${deleted ? 'no longer has that entry' : 'changed it and lost the evidence'}.`,
    path: [
      { var_id: g.varId[ev], note: 'evidence' },
      { var_id: g.varId[prev], note: 'held in the store' },
      ...(op >= 0 ? [{ op_id: g.opId[op], note: deleted ? 'deleted it' : 'degraded it' }] : []),
      { var_id: g.varId[cur], note: 'lost from here on' },
    ],
  };
}

function extractionLoss(g: TraceGraph, cx: CaseContext, ev: number, e: Evidence, m: Matcher): Loss {
  const questionOps = new Set(cx.questionOps);
  const construction = cx.coneOps.filter((o) => !questionOps.has(o));
  const { carriers, drops } = propagate(g, construction, [ev], e, m, (v) => cx.coneVars.has(v));
  const drop = drops.find((d) => d.transfer) ?? drops[0];
  let op = drop ? drop.op : -1;
  let how = drop ? 'its outputs toward the store lack the evidence' : '';
  if (op < 0) {
    // Nothing on the way to the store read it: blame the first op that read the evidence at all.
    op = earliest(
      g,
      [...carriers].flatMap((v) => consumersOf(g, v)).filter((o) => !questionOps.has(o) && o !== cx.answerOp),
    );
    how = op >= 0 ? 'it read the evidence but nothing it wrote reaches the store' : '';
  }
  const carried = [...carriers].filter((v) => v !== ev);
  return {
    evidence: ev,
    type: 'ExtractionError',
    op,
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

/** A unit that carried the evidence and that an index stopped listing before question time. */
function indexLoss(g: TraceGraph, cx: CaseContext, ev: number, e: Evidence, m: Matcher): Loss | null {
  let best: Loss | null = null;
  for (const [unit, { before, after }] of cx.removed) {
    if (!m.carries(unit, e)) continue;
    const op = earliest(g, producersOf(g, after));
    if (best && (op < 0 || g.opRank[op] >= g.opRank[best.op])) continue;
    best = {
      evidence: ev,
      type: 'DeletionError',
      op,
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
  return best;
}

function lossFor(g: TraceGraph, cx: CaseContext, ev: number, c: TraceCase, m: Matcher): Loss | null {
  // Match on the part of the message that bears on the question (see evidenceCore).
  const core = evidenceCore(evidenceText(g.varValue[ev]), c.question, c.goldenAnswers);
  const e = makeEvidence(core, c.goldenAnswers, c.question);
  if (cx.context.some((v) => m.carries(v, e))) return null;
  const storeCarriers = cx.store.filter((v) => m.carries(v, e));
  if (storeCarriers.length) return retrievalLoss(g, cx, ev, e, m, storeCarriers);
  const losses = [storeLoss(g, cx, ev, e, m), indexLoss(g, cx, ev, e, m)].filter(
    (l): l is Loss => l !== null,
  );
  // The earliest loss decides; a loss with no op sorts last.
  losses.sort((x, y) => (x.op < 0 ? 1 : y.op < 0 ? -1 : g.opRank[x.op] - g.opRank[y.op]));
  return losses[0] ?? extractionLoss(g, cx, ev, e, m);
}

function result(
  input: AttributionInput,
  started: number,
  fields: Omit<Attribution, 'query_id' | 'method' | 'cost'>,
): Attribution {
  return {
    query_id: input.case.queryId,
    method: 'evidence',
    ...fields,
    cost: { ...ZERO_COST, seconds: (Date.now() - started) / 1000 },
  };
}

export async function attributeEvidenceFlow(
  input: AttributionInput,
  options: EvidenceFlowOptions = {},
  hooks: RunHooks = {},
): Promise<Attribution> {
  const started = Date.now();
  const { graph: g, case: c } = input;
  const none = (reason: string, path: PathStep[] = []) =>
    result(input, started, { error_type: null, op_id: null, reason, path, candidates: [] });
  if (predictionLooksAcceptable(c.prediction, c.goldenAnswers))
    return none(
      `The prediction "${c.prediction}" already contains the golden answer; the judge verdict, not the memory, looks wrong.`,
    );
  const cx = caseContext(g, c);
  if (cx.answerOp < 0)
    return none('No operation in the graph wrote the prediction, so there is no path to follow.');
  const answerStep: PathStep = { op_id: g.opId[cx.answerOp], note: 'wrote the prediction' };
  let evidence = cx.evidence;
  if (evidence.length === 0 && options.locateEvidence) evidence = await options.locateEvidence(g, c);
  throwIfAborted(hooks.signal);
  if (evidence.length === 0)
    return none(
      'No evidence could be located for this question (no evidence ids, and no message matches it).',
      [answerStep],
    );

  const m = new Matcher((v) => g.varValue[v], options);
  const losses: Loss[] = [];
  for (const [i, ev] of evidence.entries()) {
    throwIfAborted(hooks.signal);
    hooks.onEvent?.({ type: 'step', step: i + 1, note: `following ${describeVar(g, ev)}` });
    const loss = lossFor(g, cx, ev, c, m);
    if (loss) losses.push(loss);
  }
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
  if (losses.length === 0)
    return result(input, started, {
      error_type: 'ResponseError',
      op_id: g.opId[cx.answerOp],
      reason: `Every piece of evidence (${evidence.map((v) => g.varId[v]).join(', ')}) reached the answer's inputs, yet the answer is wrong.`,
      path: [
        ...evidence.map((v) => ({ var_id: g.varId[v], note: 'evidence, present in the context' })),
        answerStep,
      ],
      candidates,
    });
  const first = located[0] ?? losses[0];
  return result(input, started, {
    error_type: first.type,
    op_id: first.op >= 0 ? g.opId[first.op] : null,
    reason: first.reason,
    path: first.path,
    candidates,
  });
}
