/**
 * Reads what the report needs about one attributed failure from its graph, once: the
 * evidence texts, the faulty op (name, category, the prompt behind it, its values before
 * and after) and the case features. The attribution comes in as data, so any engine's
 * output — or a file written by the paper's tools — can be reported the same way.
 */
import {
  type EvidenceFlowOptions,
  evidenceChangedLater,
  evidenceText,
  isPrompt,
  STORE_LOSS_TYPES,
} from '../attribution/index.ts';
import { systemOf, type TraceCase } from '../cases/index.ts';
import { isSentinelVar, opStructure, producersOf, type TraceGraph, varMetadata } from '../graph/index.ts';
import { contentTokens } from '../nlp/index.ts';
import { type ErrorType, isErrorType, prettyValue } from '../trace/index.ts';
import { textFeatures } from './features.ts';
import { type AttributionEvidence, type VerdictGrounds, verdictGrounds } from './grounds.ts';
import type { ReportCase, ValueExcerpt } from './types.ts';

/**
 * An attribution as plain data (an engine's `Attribution`, or a record read from a file). An
 * evidence-flow result's ranked candidates also answer "was the evidence's unit changed later"
 * (its store losses); its evidence fields become the case's `grounds`.
 */
export interface AttributedInput extends AttributionEvidence {
  error_type: string | null;
  reason: string;
  method: string;
  /** The grounds already read from the graph (the app's stored per-case result); else read from the evidence fields. */
  grounds?: VerdictGrounds | null;
}

/** Options of `reportCase`: the file name, a known system, and the excerpt length. */
export interface CaseFactsOptions {
  /** The graph file as given; names the case and helps find the system. */
  file?: string | null;
  /** The memory system when the caller knows it better than the trace does. */
  system?: string | null;
  /** Longest excerpt of a value, in characters (default 400). */
  excerptChars?: number;
  /** The matcher for "was the evidence's unit changed later" when the attribution is not evidence-flow's. */
  carrying?: EvidenceFlowOptions;
}

/** Longer values are shown as stored: pretty-printing a whole store per case costs more than it helps an excerpt. */
const PRETTY_LIMIT = 20_000;

/** The text of a variable's value as people read it: unquoted strings, pretty JSON / Python literals. */
function readable(g: TraceGraph, v: number): string {
  const value = g.varValue[v];
  if (value.length > PRETTY_LIMIT) return value;
  return cached(textsOf(g).readable, v, () => prettyValue(value));
}

/** `text`, or a window of it around the first focus word when it is longer than `limit`. */
export function excerpt(text: string, focus: readonly string[], limit: number): string {
  if (text.length <= limit) return text;
  const low = text.toLowerCase();
  let at = -1;
  for (const w of focus) {
    const i = low.indexOf(w);
    if (i >= 0) {
      at = i;
      break;
    }
  }
  const start = at < 0 ? 0 : Math.max(0, Math.min(text.length - limit, at - Math.floor(limit / 3)));
  const end = Math.min(text.length, start + limit);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

function focusWords(c: TraceCase, evidence: string[]): string[] {
  const byLength = (xs: string[]) => [...new Set(xs)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return [...byLength(c.goldenAnswers.flatMap(contentTokens)), ...byLength(evidence.flatMap(contentTokens))];
}

interface SessionIndex {
  rank: Map<string, number>;
  /** created_at of the construction sessions, ascending. */
  starts: string[];
}

const sessionIndexes = new WeakMap<TraceGraph, SessionIndex>();

/** Construction sessions in time order (search sessions, which add nothing to memory, are left out). */
function sessionIndex(g: TraceGraph): SessionIndex {
  let s = sessionIndexes.get(g);
  if (s) return s;
  const list = g.sessions
    .map((r, i) => ({ r, i }))
    .filter(
      ({ r }) =>
        typeof r.session_id === 'string' &&
        r.category !== 'sentinel' &&
        r.category !== 'memory_search' &&
        r.session_id !== '__none__',
    )
    .sort((a, b) => {
      const x = String(a.r.created_at ?? '');
      const y = String(b.r.created_at ?? '');
      return x < y ? -1 : x > y ? 1 : a.i - b.i;
    });
  s = {
    rank: new Map(list.map(({ r }, k) => [r.session_id, k])),
    starts: list.map(({ r }) => String(r.created_at ?? '')),
  };
  sessionIndexes.set(g, s);
  return s;
}

/** Sessions between the farthest evidence message and the question; null when the trace does not say. */
function sessionsBack(g: TraceGraph, query: number | undefined, evidence: number[]): number | null {
  if (query === undefined || evidence.length === 0) return null;
  const s = sessionIndex(g);
  if (s.starts.length === 0) return null;
  const asked = g.varCreatedAt[query];
  // Construction sessions that started before the question was asked.
  let before = 0;
  while (before < s.starts.length && s.starts[before] <= asked) before++;
  let farthest: number | null = null;
  for (const v of evidence) {
    const k = s.rank.get(g.vars[v].session_id);
    if (k === undefined) continue;
    const back = Math.max(0, before - 1 - k);
    farthest = farthest === null ? back : Math.max(farthest, back);
  }
  return farthest;
}

/**
 * What the report reads of a graph's values, kept per graph: the cases of one trace walk the
 * same store, and its versions repeat most of their units.
 */
interface GraphTexts {
  /** Per variable: its value as people read it. */
  readable: Map<number, string>;
}

const graphTexts = new WeakMap<TraceGraph, GraphTexts>();

function textsOf(g: TraceGraph): GraphTexts {
  let t = graphTexts.get(g);
  if (!t) {
    t = { readable: new Map() };
    graphTexts.set(g, t);
  }
  return t;
}

/** `map.get(key)`, made by `make` the first time. */
function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/**
 * Was a memory unit holding the evidence changed or deleted before the question? The
 * attributor's own store losses (one carrying test for attribution and report): read off an
 * evidence-flow result's candidates, or off a stored verdict's grounds (its candidates are the
 * verdict, when it names an op, and its runners-up), else computed (`evidenceChangedLater`,
 * the costly way: a carrying test over the store's history).
 */
function unitChangedLater(
  g: TraceGraph,
  c: TraceCase,
  a: AttributedInput,
  carrying: EvidenceFlowOptions | undefined,
): boolean {
  if (a.method === 'evidence' && a.candidates)
    return a.candidates.some((x) => STORE_LOSS_TYPES.has(x.error_type));
  if (a.method === 'evidence' && a.grounds)
    return (
      (a.op_id !== null && STORE_LOSS_TYPES.has(a.error_type ?? '')) ||
      a.grounds.runners_up.some((x) => STORE_LOSS_TYPES.has(x.error_type))
    );
  return evidenceChangedLater(g, c, carrying);
}

function promptsOf(g: TraceGraph, op: number): number[] {
  const s = opStructure(g, op);
  return [...s.inputs, ...s.intermediates].filter((v) => isPrompt(g, v));
}

/** Store writes may apply a decision a model made one op earlier (Mem0's update decision). */
const APPLIES_UPSTREAM_DECISION: ReadonlySet<string> = new Set([
  'ExtractionError',
  'UpdateError',
  'DeletionError',
]);

/**
 * The prompt behind a faulty op: one it reads; else, for a store write (extraction,
 * update, deletion), one read by the op that wrote one of its inputs — the decision it
 * applied. A retrieval or an answer is never blamed on the prompt of whoever wrote its inputs.
 */
export function promptBehind(
  g: TraceGraph,
  op: number,
  errorType: string | null,
): { v: number; via: 'op' | 'upstream' } | null {
  const direct = promptsOf(g, op);
  if (direct.length > 0) return { v: direct[0], via: 'op' };
  if (errorType === null || !APPLIES_UPSTREAM_DECISION.has(errorType)) return null;
  for (const input of opStructure(g, op).inputs) {
    if (isSentinelVar(g, input)) continue;
    for (const p of producersOf(g, input)) {
      if (p === op || g.opRank[p] > g.opRank[op]) continue;
      const up = promptsOf(g, p);
      if (up.length > 0) return { v: up[0], via: 'upstream' };
    }
  }
  return null;
}

/** The faulty op's values: an output's earlier version (else the inputs but the question) before, its outputs after. */
function beforeAfter(g: TraceGraph, op: number): { before: number[]; after: number[] } {
  const s = opStructure(g, op);
  const inputs = s.inputs.filter((v) => !isSentinelVar(g, v) && !isPrompt(g, v));
  const outputs = s.outputs.filter((v) => !isSentinelVar(g, v));
  const lineages = new Set(outputs.map((v) => g.varLineage[v]));
  const earlier = inputs.filter((v) => lineages.has(g.varLineage[v]));
  if (earlier.length > 0) {
    const chains = new Set(earlier.map((v) => g.varLineage[v]));
    return { before: earlier, after: outputs.filter((v) => chains.has(g.varLineage[v])) };
  }
  const notQuery = inputs.filter((v) => g.vars[v].class_name !== 'query');
  return { before: notQuery.length > 0 ? notQuery : inputs, after: outputs };
}

const MAX_VALUES = 2;

/** One attributed failure as the report sees it (see ReportCase). */
export function reportCase(
  g: TraceGraph,
  c: TraceCase,
  a: AttributedInput,
  options: CaseFactsOptions = {},
): ReportCase {
  const limit = options.excerptChars ?? 400;
  const file = options.file ?? null;
  const traceId = typeof g.doc.graph_id === 'string' ? g.doc.graph_id : '';
  const evidenceVars = c.evidenceIds
    .map((id) => g.varIndex.get(id))
    .filter((v): v is number => v !== undefined);
  const evidenceTexts = evidenceVars.map((v) => evidenceText(g.varValue[v]));
  const focus = focusWords(c, evidenceTexts);
  const excerptOf = (v: number, text = readable(g, v)): ValueExcerpt => ({
    id: g.varId[v],
    text: excerpt(text, focus, limit),
    chars: text.length,
  });
  const query = g.varIndex.get(c.queryId);
  const category = query === undefined ? undefined : varMetadata(g, query).category;
  const op = a.op_id === null ? undefined : g.opIndex.get(a.op_id);
  const prompt = op === undefined ? null : promptBehind(g, op, a.error_type);
  const values = op === undefined ? { before: [], after: [] } : beforeAfter(g, op);
  const evidenceWords = evidenceTexts.reduce((n, t) => n + contentTokens(t).length, 0);
  const back = sessionsBack(g, query, evidenceVars);
  const errorType: ErrorType | null = isErrorType(a.error_type) ? a.error_type : null;
  return {
    case_id: `${file ?? traceId}#${c.queryId}`,
    trace_id: traceId,
    file,
    query_id: c.queryId,
    system: options.system ?? systemOf(g.doc, file ?? '') ?? 'unknown',
    question: c.question,
    golden_answers: c.goldenAnswers,
    prediction: c.prediction,
    question_category:
      typeof category === 'string' || typeof category === 'number' ? String(category) : 'unknown',
    error_type: errorType,
    op_id: errorType === null ? null : a.op_id,
    op_name: op === undefined || errorType === null ? null : g.opName[op] || '(unnamed)',
    op_category: op === undefined || errorType === null ? null : g.opCategory[op],
    prompt: prompt && errorType ? g.varFullName[prompt.v] : null,
    prompt_id: prompt && errorType ? g.varId[prompt.v] : null,
    prompt_via: prompt && errorType ? prompt.via : null,
    reason: a.reason,
    grounds: a.grounds !== undefined ? a.grounds : verdictGrounds(g, a),
    method: a.method,
    label: c.label ? { error_type: c.label.errorType, op_id: c.label.opId } : null,
    evidence: evidenceVars.map((v, i) => excerptOf(v, evidenceTexts[i])),
    before: values.before.slice(0, MAX_VALUES).map((v) => excerptOf(v)),
    after: values.after.slice(0, MAX_VALUES).map((v) => excerptOf(v)),
    features: textFeatures(
      { evidence: evidenceTexts, goldenAnswers: c.goldenAnswers, evidenceWords },
      { sessionsBack: back, unitUpdated: unitChangedLater(g, c, a, options.carrying) },
    ),
    evidence_words: evidenceWords,
    sessions_back: back,
  };
}
