/**
 * Where a failed question sits in the graph: the query, the prediction and the
 * op that wrote it, what that op read (the context), the question-time ops
 * between the store and the answer, and the store they read. Found from edges,
 * classes and the `prompt` category only — never from op names.
 */
import { causalCone, predictionOf, type TraceCase } from '../cases/index.ts';
import {
  closure,
  consumersOf,
  isSentinelVar,
  lineageOf,
  opStructure,
  producersOf,
  row,
  type TraceGraph,
  versionsOf,
} from '../graph/index.ts';
import { isGenericCategory, isMessageCategory, isPromptCategory, isQueryCategory } from '../trace/index.ts';
import { copiedInto, MIN_COPY_CHARS, splitUnits } from './evidence-match.ts';
import { readSaid } from './said.ts';
import type { PathStep } from './types.ts';

/**
 * Where a failed question sits in the graph (variable and op indices): the answer op and what it read, the
 * question-time ops, the store at question time and what built it.
 */
export interface CaseContext {
  query: number;
  prediction: number;
  /** The op that wrote the prediction (-1 when none). */
  answerOp: number;
  /** Inputs of the answer op other than the query and prompts. */
  context: number[];
  /** Variables derived from the query (its downstream). */
  queryDerived: Set<number>;
  /** Ops upstream of the answer that read something derived from the query, in execution order (answer op excluded). */
  questionOps: number[];
  /**
   * The memory at question time: what the question-time ops (or the answer op) read
   * that is not derived from the query, plus its peers — units of the same kind that
   * the search did not pick (see storePeers).
   */
  store: number[];
  /** The part of the store the question-time ops actually read. */
  storeRead: number[];
  /** Store units an index stopped listing before question time, with where that happened. */
  removed: Map<number, IndexRemoval>;
  /**
   * Question-time ops that searched a store the trace does not show as their input
   * (an untraced vector database), with the store units inferred for them.
   */
  untracedInputs: Map<number, number[]>;
  /** Variables and ops upstream of the answer's inputs and of the store (with version chains). */
  coneVars: Set<number>;
  coneOps: number[];
  evidence: number[];
}

/**
 * Whether a variable is a prompt template (category `prompt`, alone or in an `a & b` list): context, never
 * memory.
 */
export function isPrompt(g: TraceGraph, v: number): boolean {
  return isPromptCategory(g.varCategory[v]);
}

/**
 * A search reads only the units it picked (a RAG search reads its top chunks), so the
 * store is more than what was read: every variable created before the answer that
 * is of the same kind as a unit that was read — written by the same kind of op (same
 * op name and category), or of the same non-generic category — and not deleted since.
 */
function storePeers(g: TraceGraph, read: number[], answerOp: number, queryDerived: Set<number>): number[] {
  if (read.length === 0 || answerOp < 0) return [];
  const limit = g.opCreatedAt[answerOp];
  const kinds = new Set<string>();
  const categories = new Set<string>();
  for (const v of read) {
    for (const op of producersOf(g, v)) kinds.add(`${g.opName[op]}\u0000${g.opCategory[op]}`);
    if (!isGenericCategory(g.varCategory[v])) categories.add(g.varCategory[v]);
  }
  const out: number[] = [];
  for (let v = 0; v < g.varId.length; v++) {
    if (queryDerived.has(v) || g.varCreatedAt[v] > limit || isSentinelVar(g, v)) continue;
    const sameCategory = categories.has(g.varCategory[v]);
    const sameKind =
      !sameCategory && producersOf(g, v).some((op) => kinds.has(`${g.opName[op]}\u0000${g.opCategory[op]}`));
    if (sameCategory || sameKind) out.push(v);
  }
  return out;
}

/** The last version of v's lineage created no later than `limit` (v itself if none is later). */
function latestBefore(g: TraceGraph, v: number, limit: string): number {
  let best = v;
  for (const w of lineageOf(g, v)) if (g.varCreatedAt[w] <= limit && g.varRank[w] > g.varRank[best]) best = w;
  return best;
}

/**
 * How a store unit left an index chain before question time: the last version listing it, the first not
 * listing it, and what it was merged into if it was.
 */
export interface IndexRemoval {
  /** The index version that still listed the unit, and the first one that did not. */
  before: number;
  after: number;
  /**
   * When the unit was merged rather than dropped: the unit that took its place in the
   * index (newly listed by `after`) and the op that wrote it from the removed one
   * (a consolidation).
   */
  merged?: { unit: number; op: number };
}

/** A unit newly listed by `after` that an op wrote from `removed` — the removed unit was merged into it. */
function mergeOf(
  g: TraceGraph,
  removed: number,
  listedBefore: Set<string>,
  listedAfter: Set<string>,
  limit: string,
): { unit: number; op: number } | undefined {
  for (const name of listedAfter) {
    if (listedBefore.has(name)) continue;
    const chain = versionsOf(g, name);
    for (let i = chain.length - 1; i >= 0; i--) {
      const w = chain[i];
      if (g.varCreatedAt[w] > limit) continue;
      const op = producersOf(g, w).find((o) => opStructure(g, o).inputs.includes(removed));
      if (op !== undefined) return { unit: w, op };
      break;
    }
  }
  return undefined;
}

/**
 * Units kept in their own variables are often listed by name in an index chain
 * (`['chunk-1', 'chunk-2']`). A unit that an index listed and no longer lists at
 * question time was removed from the store even though its variable remains.
 */
function removedFromIndex(g: TraceGraph, units: number[], limit: string): Map<number, IndexRemoval> {
  const out = new Map<number, IndexRemoval>();
  const listed = new Map<number, Set<string>>(); // index version → names it lists
  const namesOf = (w: number) => {
    let set = listed.get(w);
    if (!set) {
      set = new Set(splitUnits(g.varValue[w]).texts.map((t) => t.trim()));
      listed.set(w, set);
    }
    return set;
  };
  for (const u of units) {
    const names = [g.vars[u].name, g.varFullName[u]];
    // A version naming the unit at all (a cheap scan) before its value is split.
    const lists = (w: number) =>
      names.some((n) => g.varValue[w].includes(n)) && names.some((n) => namesOf(w).has(n));
    const indexes = new Set<number>();
    // An index is another chain: the unit's own next version is no index of it.
    for (const op of consumersOf(g, u))
      for (const w of opStructure(g, op).outputs)
        if (g.varLineage[w] !== g.varLineage[u] && lineageOf(g, w).length > 1) indexes.add(g.varLineage[w]);
    for (const l of indexes) {
      const chain = row(g.lineages, l).filter((w) => g.varCreatedAt[w] <= limit);
      let lastListing = -1;
      for (const w of chain) {
        const listing = lists(w);
        if (listing) lastListing = w;
        else if (lastListing >= 0) {
          // Removed; it counts only if no later version lists it again.
          if (!chain.slice(chain.indexOf(w)).some(lists))
            out.set(u, {
              before: lastListing,
              after: w,
              merged: mergeOf(g, u, namesOf(lastListing), namesOf(w), limit),
            });
          break;
        }
      }
    }
  }
  return out;
}

const NO_HEADS = { day: null, speaker: null };

function isMessageVar(g: TraceGraph, v: number): boolean {
  return isMessageCategory(g.varCategory[v]);
}

/**
 * A search behind an untraced vector database reads only the query, so the store it
 * searched is no input of it. What it returned says what the store was: variables
 * written before the answer whose text the context repeats (memory units preferred
 * over the raw messages they were made from).
 */
function inferStore(g: TraceGraph, context: number[], queryDerived: Set<number>, limit: string): number[] {
  const bodies = context
    .flatMap((v) => splitUnits(g.varValue[v]).texts)
    .map((t) => readSaid(t, NO_HEADS).text.toLowerCase().trim())
    .filter((t) => t.length >= MIN_COPY_CHARS);
  if (bodies.length === 0) return [];
  const joined = bodies.join('\n');
  const found: number[] = [];
  for (let v = 0; v < g.varId.length; v++) {
    if (queryDerived.has(v) || g.varCreatedAt[v] > limit || isSentinelVar(g, v) || isPrompt(g, v)) continue;
    if (isQueryCategory(g.varCategory[v])) continue;
    if (!isMessageVar(g, v) && producersOf(g, v).length === 0) continue;
    const shared = splitUnits(g.varValue[v]).texts.some((t) => {
      const b = readSaid(t, NO_HEADS).text.toLowerCase().trim();
      return copiedInto(b, joined);
    });
    if (shared) found.push(v);
  }
  const units = found.filter((v) => !isMessageVar(g, v));
  return units.length ? units : found;
}

/**
 * Finds a case's context from edges, classes and categories: the prediction (via the judge op when known),
 * the op that wrote it, the question-time ops, the store (peers, inferred behind an untraced search,
 * latest versions, minus units an index dropped) and the causal cone.
 */
export function caseContext(g: TraceGraph, c: TraceCase): CaseContext {
  const { query, queryDerived, prediction, answerOp, context } = answerSide(g, c);
  // What led to the answer's inputs, walked back in time from the answer (causalCone): a
  // content-named value another question also wrote, or a chain written on after the
  // answer, does not pull that question's or later ops in.
  const untilRank = answerOp < 0 ? g.opOrder.length - 1 : g.opRank[answerOp] - 1;
  const cone = causalCone(g, context, untilRank);
  // The answer op's rank bounds the cone in time: later versions reached through lineage do not count.
  const { questionOps, store } = questionStore(g, cone.ops, context, queryDerived);
  const limit = answerOp >= 0 ? g.opCreatedAt[answerOp] : '\uffff';
  const blind = blindSearches(g, questionOps, queryDerived);
  const written = (v: number) => isMessageVar(g, v) || producersOf(g, v).length > 0;
  const untraced = blind.length > 0 && ![...store].some(written);
  if (untraced) for (const v of inferStore(g, context, queryDerived, limit)) store.add(v);
  const read = [...store];
  for (const v of storePeers(g, read, answerOp, queryDerived)) store.add(v);
  const current = currentVersions(g, store, limit);
  const removed = removedFromIndex(g, [...current], limit);
  for (const v of removed.keys()) current.delete(v);
  // Everything that built the store, not only what the search picked: a unit the search
  // missed may be exactly where the evidence was lost.
  const storeCone = causalCone(g, [...context, ...current, ...removed.keys()], untilRank);
  const coneVars = storeCone.vars;
  const coneOps = storeCone.ops;
  const evidence = c.evidenceIds.map((id) => g.varIndex.get(id)).filter((v): v is number => v !== undefined);
  // Only the searches of an untraced store read it: a query rewrite next to a traced one does not.
  const untracedInputs = new Map(untraced ? blind.map((op) => [op, [...current]]) : []);
  return {
    untracedInputs,
    query,
    prediction,
    answerOp,
    context,
    queryDerived,
    questionOps,
    store: [...current],
    storeRead: read,
    removed,
    coneVars,
    coneOps,
    evidence,
  };
}

/**
 * The question-time op that chose from the store what reached the answer's context: of the
 * question-time ops on the way to the context, the latest that reads the store — it could still
 * have brought what was left out, while a rerank after it reads only what it chose, so cannot
 * drop what it never got. -1 when none reads it.
 */
export function storeSelector(g: TraceGraph, cx: CaseContext): number {
  const asked = new Set(cx.questionOps);
  const read = new Set(cx.storeRead);
  const chain = new Set<number>();
  const queue = cx.context.flatMap((v) => producersOf(g, v)).filter((o) => asked.has(o));
  for (let i = 0; i < queue.length; i++) {
    if (chain.has(queue[i])) continue;
    chain.add(queue[i]);
    for (const v of opStructure(g, queue[i]).inputs)
      for (const p of producersOf(g, v)) if (asked.has(p) && !chain.has(p)) queue.push(p);
  }
  const readers = [...chain].filter(
    (o) => cx.untracedInputs.has(o) || opStructure(g, o).inputs.some((v) => read.has(v)),
  );
  return readers.reduce((best, o) => (best < 0 || g.opRank[o] > g.opRank[best] ? o : best), -1);
}

/** The question, what derives from it, the prediction, the op that answered, and what it read besides. */
function answerSide(
  g: TraceGraph,
  c: TraceCase,
): { query: number; queryDerived: Set<number>; prediction: number; answerOp: number; context: number[] } {
  const query = g.varIndex.get(c.queryId) ?? -1;
  const queryDerived = new Set(
    query >= 0 ? closure(g, [query], { direction: 'downstream', followLineage: false }).vars : [],
  );
  const prediction = predictionOf(g, c, { downstream: queryDerived });
  const producers = prediction >= 0 ? producersOf(g, prediction) : [];
  const answerOp = producers.length ? producers.sort((a, b) => g.opRank[b] - g.opRank[a])[0] : -1;
  const answerInputs = answerOp >= 0 ? opStructure(g, answerOp).inputs : [];
  const context = answerInputs.filter((v) => v !== query && !isPrompt(g, v) && !isSentinelVar(g, v));
  return { query, queryDerived, prediction, answerOp, context };
}

/**
 * The ops of the cone that read the question, and the store: the answer's context and what those
 * ops read besides the question (no prompts, sentinels or query categories).
 */
function questionStore(
  g: TraceGraph,
  coneOps: Iterable<number>,
  context: readonly number[],
  queryDerived: Set<number>,
): { questionOps: number[]; store: Set<number> } {
  const questionOps: number[] = [];
  const store = new Set<number>();
  for (const v of context) if (!queryDerived.has(v)) store.add(v);
  for (const op of coneOps) {
    const s = opStructure(g, op);
    if (!s.inputs.some((v) => queryDerived.has(v))) continue;
    questionOps.push(op);
    for (const v of s.inputs)
      if (
        !queryDerived.has(v) &&
        !isPrompt(g, v) &&
        !isSentinelVar(g, v) &&
        !isQueryCategory(g.varCategory[v])
      )
        store.add(v);
  }
  return { questionOps, store };
}

/**
 * Searches that read nothing but the question: the store is behind them, untraced.
 * (Constants such as a search config are no memory: nothing wrote them.)
 */
function blindSearches(g: TraceGraph, questionOps: readonly number[], queryDerived: Set<number>): number[] {
  return questionOps.filter((op) =>
    opStructure(g, op).inputs.every(
      (v) =>
        queryDerived.has(v) ||
        isPrompt(g, v) ||
        isSentinelVar(g, v) ||
        (!isMessageVar(g, v) && producersOf(g, v).length === 0),
    ),
  );
}

/**
 * The store once per version chain, each chain's latest version before `limit`: a store of peers
 * may hold every version of a long chain.
 */
function currentVersions(g: TraceGraph, store: Iterable<number>, limit: string): Set<number> {
  const latest = new Map<number, number>();
  const current = new Set<number>();
  for (const v of store) {
    let w = latest.get(g.varLineage[v]);
    if (w === undefined) {
      w = latestBefore(g, v, limit);
      latest.set(g.varLineage[v], w);
    }
    current.add(w);
  }
  return current;
}

/** Why a case cannot be followed at all, before any stage is read. */
export interface Untraceable {
  reason: 'no-answer-op' | 'evidence-not-in-trace';
  detail: string;
  path: PathStep[];
}

/** No op wrote the prediction, or the question's evidence ids name messages the trace lacks; null when neither. */
export function untraceable(g: TraceGraph, c: TraceCase, cx: CaseContext): Untraceable | null {
  if (cx.answerOp < 0)
    return {
      reason: 'no-answer-op',
      detail: 'No operation in the graph wrote the prediction, so there is no path to follow.',
      path: [],
    };
  if (c.evidenceIds.length > 0 && cx.evidence.length === 0)
    return {
      reason: 'evidence-not-in-trace',
      detail: `The question's evidence (${c.evidenceIds.slice(0, 3).join(', ')}${c.evidenceIds.length > 3 ? ', …' : ''}) is not in this trace (a run shorter than the conversation?): the memory system never received it.`,
      path: [{ op_id: g.opId[cx.answerOp], note: 'wrote the prediction' }],
    };
  return null;
}
