/**
 * Failed questions of a run and their labels. A question failed when the
 * `llm-judge` evaluation op's judge score parses to 0 (the paper's rule); its
 * variables are picked by class name. MemTraceBench annotations add the label.
 */
import {
  isSentinelVar,
  opStructure,
  opVariables,
  type TraceGraph,
  varMetadata,
  versionsOf,
} from '../graph/index.ts';
import { type Annotation, parseValue, valueStrings, valueText } from '../trace/index.ts';

/** A case's label from the trace's MemTraceBench annotation: the error type and decisive op. */
export interface CaseLabel {
  errorType: string;
  /** null when the label names no single op. */
  opId: string | null;
  source?: string;
  reason?: string;
  /** Position in data.annotations. */
  annotationIndex: number;
}

/**
 * One judged (or annotated) question of a trace: the question, golden answers, prediction, judge verdict,
 * evidence ids and label.
 */
export interface TraceCase {
  graphId: string;
  /** full_node_id of the query variable. */
  queryId: string;
  question: string;
  goldenAnswers: string[];
  prediction: string | null;
  judgeScore: number | null;
  judgeResponse: string | null;
  judgeOpId: string | null;
  /** The judge found the answer wrong (or, with no judge, the case is annotated). */
  failed: boolean;
  /** full_node_ids of the evidence variables. */
  evidenceIds: string[];
  label: CaseLabel | null;
}

/** Name of the op that judges answers in the paper's traces. */
export const JUDGE_OP_NAME = 'llm-judge';
/** Category of the paper's judge op. */
export const JUDGE_OP_CATEGORY = 'evaluation';

/** A judge score as a number: "0.0", "'0'", "False", "WRONG" → 0; unknown → null. */
export function parseJudgeScore(text: string): number | null {
  const v = parseValue(text);
  const t = typeof v === 'string' ? v.trim() : v;
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  if (typeof t === 'boolean') return t ? 1 : 0;
  if (typeof t === 'string') {
    const n = Number(t);
    if (t !== '' && Number.isFinite(n)) return n;
    if (/^(wrong|incorrect|false|no)$/i.test(t)) return 0;
    if (/^(correct|right|true|yes)$/i.test(t)) return 1;
  }
  return null;
}

function classed(g: TraceGraph, vars: number[], className: string): number | undefined {
  return vars.find((v) => g.vars[v].class_name === className);
}

function annotationsOf(g: TraceGraph): Annotation[] {
  const list = g.doc.data.annotations;
  return Array.isArray(list) ? list : [];
}

function labelOf(a: Annotation, index: number): CaseLabel | null {
  if (typeof a.final_error_type !== 'string') return null;
  return {
    errorType: a.final_error_type,
    opId: typeof a.final_op_id === 'string' ? a.final_op_id : null,
    ...(typeof a.label_source === 'string' ? { source: a.label_source } : {}),
    ...(typeof a.reason === 'string' ? { reason: a.reason } : {}),
    annotationIndex: index,
  };
}

/** Evidence ids from the query's metadata: full names, mapped to their first version's id. */
function evidenceFromQuery(g: TraceGraph, q: number): string[] {
  const ev = varMetadata(g, q).evidence;
  if (!Array.isArray(ev)) return [];
  const out: string[] = [];
  for (const name of ev) {
    if (typeof name !== 'string') continue;
    if (g.varIndex.has(name)) out.push(name);
    else {
      const chain = versionsOf(g, name);
      if (chain.length > 0) out.push(g.varId[chain[0]]);
    }
  }
  return out;
}

function text(g: TraceGraph, v: number | undefined): string | null {
  return v === undefined ? null : valueText(g.varValue[v]);
}

/**
 * Options of `listCases`: also list questions the judge passed, and name a judge op other than
 * `llm-judge`.
 */
export interface ListCasesOptions {
  includePassed?: boolean;
  /**
   * Name of the op that judges answers, when the trace's judge is not `llm-judge`
   * (any op with this name counts, whatever its category).
   */
  judgeOp?: string;
}

/**
 * Is op a judge? The paper's rule (`llm-judge`, category `evaluation`), an op with the
 * chosen name, or — for judges named otherwise — any op that writes a `judge_score` or
 * `judge_response` variable next to the question it judged.
 */
function isJudge(g: TraceGraph, op: number, judgeOp: string | undefined): boolean {
  if (judgeOp !== undefined) return g.opName[op] === judgeOp;
  if (g.opName[op] === JUDGE_OP_NAME && g.opCategory[op] === JUDGE_OP_CATEGORY) return true;
  const s = opStructure(g, op);
  const verdict = (v: number) =>
    g.vars[v].class_name === 'judge_score' || g.vars[v].class_name === 'judge_response';
  return (
    s.outputs.some(verdict) && [...s.inputs, ...s.intermediates].some((v) => g.vars[v].class_name === 'query')
  );
}

/** Every judged question that failed, plus every annotated question, in execution order of their judge. */
export function listCases(g: TraceGraph, options: ListCasesOptions = {}): TraceCase[] {
  const graphId = typeof g.doc.graph_id === 'string' ? g.doc.graph_id : '';
  const annotations = annotationsOf(g);
  const labelByQuery = new Map<string, { a: Annotation; i: number }>();
  annotations.forEach((a, i) => {
    if (a && typeof a === 'object' && typeof a.query_id === 'string' && !labelByQuery.has(a.query_id))
      labelByQuery.set(a.query_id, { a, i });
  });

  const cases: TraceCase[] = [];
  const seen = new Set<string>();
  for (const op of g.opOrder) {
    if (!isJudge(g, op, options.judgeOp)) continue;
    const vars = opVariables(g, op).filter((v) => !isSentinelVar(g, v));
    const q = classed(g, vars, 'query');
    if (q === undefined) continue;
    const queryId = g.varId[q];
    const scoreVar = classed(g, vars, 'judge_score');
    const responseVar = classed(g, vars, 'judge_response');
    let score = scoreVar === undefined ? null : parseJudgeScore(g.varValue[scoreVar]);
    if (score === null && responseVar !== undefined) score = parseJudgeScore(g.varValue[responseVar]);
    const ann = labelByQuery.get(queryId);
    const failed = score === 0;
    if (!failed && !ann && !options.includePassed) continue;
    if (seen.has(queryId)) continue;
    seen.add(queryId);
    const gold = classed(g, vars, 'golden_answers');
    const pred = classed(g, vars, 'prediction');
    const evidence =
      ann && Array.isArray(ann.a.source_evidence_ids)
        ? ann.a.source_evidence_ids.filter((x) => typeof x === 'string')
        : evidenceFromQuery(g, q);
    cases.push({
      graphId,
      queryId,
      question: text(g, q) ?? '',
      goldenAnswers: gold === undefined ? goldFromAnnotation(ann?.a) : valueStrings(g.varValue[gold]),
      prediction: text(g, pred),
      judgeScore: score,
      judgeResponse: text(g, responseVar),
      judgeOpId: g.opId[op],
      failed,
      evidenceIds: evidence,
      label: ann ? labelOf(ann.a, ann.i) : null,
    });
  }
  // Annotated questions whose judge op is not in the graph still count as cases.
  for (const [queryId, { a, i }] of labelByQuery) {
    if (seen.has(queryId)) continue;
    const q = g.varIndex.get(queryId);
    cases.push({
      graphId,
      queryId,
      question: typeof a.query === 'string' ? a.query : q === undefined ? '' : valueText(g.varValue[q]),
      goldenAnswers: goldFromAnnotation(a),
      prediction: typeof a.prediction === 'string' ? a.prediction : null,
      judgeScore: null,
      judgeResponse: null,
      judgeOpId: null,
      failed: true,
      evidenceIds: Array.isArray(a.source_evidence_ids)
        ? a.source_evidence_ids.filter((x) => typeof x === 'string')
        : q === undefined
          ? []
          : evidenceFromQuery(g, q),
      label: labelOf(a, i),
    });
  }
  return cases;
}

function goldFromAnnotation(a: Annotation | undefined): string[] {
  const gold = a?.golden_answers;
  if (Array.isArray(gold)) return gold.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  return typeof gold === 'string' ? [gold] : [];
}
