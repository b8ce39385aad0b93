/**
 * A QA file joined to a trace: each row's question is looked for (normalised) in the inputs
 * of the trace's LLM calls; the first call holding it that gave a text answer is the answer
 * op and its completion the prediction. Each row becomes a judge op (`llm-judge`, category
 * `evaluation`) right after that call, reading the question, the golden answers and the
 * prediction, so `listCases`, the case path and the attributors see it as any judged question.
 * Questions are found by a hash map of their first words, so a trace is read once, whatever
 * the number of rows.
 */
import { appendAll } from '../arrays.ts';
import { hash16 } from '../hash/index.ts';
import {
  type EdgeRecord,
  type JsonObject,
  normalizeUnit,
  type OperationRecord,
  SENTINEL,
  type TraceDocument,
  textPieces,
  type VariableRecord,
  valueText,
} from '../trace/index.ts';
import { EvidenceIndex } from './evidence.ts';
import { type OwnJudge, ownJudges } from './own-judges.ts';
import type { QaRow } from './qa-file.ts';

/** The variable and op names of a row: its id, else its 1-based index. */
const nameOf = (row: QaRow, index: number) =>
  `qa-${row.id ?? index + 1}`.replace(/[^\w.:-]/g, '_').slice(0, 120);

/** Decides a verdict when the QA file gives none: does `prediction` answer with one of `answers`? */
export interface AnswerJudge {
  /** The rule's name, said in each case's `answer_rule`. */
  rule: string;
  accepts(prediction: string, answers: readonly string[], question: string): boolean;
}

/** What joining did: the document with the judge ops, and the rows no LLM call held. */
export interface QaJoin {
  doc: TraceDocument;
  /** Rows whose question is in an LLM call's input. */
  joined: number;
  /**
   * Rows (their places) that no LLM call held: a case without a path when the file gives the
   * prediction, else left out (a QA file may cover many traces: LoCoMo's ten conversations).
   */
  unmatched: string[];
}

/** How many first words of a question key the lookup. */
const KEY_WORDS = 4;

const words = (s: string) => s.split(' ').filter(Boolean);

interface LlmCall {
  op: OperationRecord;
  index: number;
  inputs: string[];
  outputs: string[];
}

/** Ops that answer: LLM calls (span traces) and generation ops (smartcomment traces). */
const ANSWERING = new Set(['llm_call', 'generation']);
/** Ops a question is looked for in: the answering ones and searches (what it was answered from). */
const ASKED = new Set([...ANSWERING, 'retrieval']);

/** LLM calls and searches in execution order (created_at, then file order), with their input and output variables. */
function llmCalls(doc: TraceDocument): LlmCall[] {
  const ops = doc.data.operations;
  const byOp = new Map<string, LlmCall>();
  ops.forEach((op, index) => {
    if (ASKED.has(op.category)) byOp.set(op.op_id, { op, index, inputs: [], outputs: [] });
  });
  for (const e of doc.data.edges) {
    const call = byOp.get(e.op_id);
    if (!call) continue;
    if (!call.inputs.includes(e.source_full_node_id)) call.inputs.push(e.source_full_node_id);
    if (!call.outputs.includes(e.target_full_node_id)) call.outputs.push(e.target_full_node_id);
  }
  const at = (c: LlmCall) => c.op.created_at;
  return [...byOp.values()].sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a.index - b.index));
}

/** For each row (by index), the LLM calls whose input holds its question, in execution order. */
function callsHolding(rows: readonly QaRow[], calls: LlmCall[], text: (id: string) => string): number[][] {
  const norm = rows.map((r) => normalizeUnit(r.question));
  const byKey = new Map<string, number[]>();
  const lengths = new Set<number>();
  norm.forEach((q, i) => {
    const key = words(q).slice(0, KEY_WORDS);
    lengths.add(key.length);
    const k = key.join(' ');
    const list = byKey.get(k);
    if (list) list.push(i);
    else byKey.set(k, [i]);
  });
  const out = rows.map(() => [] as number[]);
  calls.forEach((call, ci) => {
    const pieces = call.inputs.flatMap((id) => textPieces(text(id)));
    // Every piece, however short: a question ("What is 2 + 2?") is no trivial overlap.
    const normal = pieces.map(normalizeUnit);
    const body = normal.join('\n');
    const w = words(body.replace(/\n/g, ' '));
    const seen = new Set<number>();
    for (let i = 0; i < w.length; i++)
      for (const n of lengths) {
        for (const r of byKey.get(w.slice(i, i + n).join(' ')) ?? [])
          if (!seen.has(r) && body.includes(norm[r]) && !askedAfter(pieces, normal, norm[r])) {
            seen.add(r);
            out[r].push(ci);
          }
      }
  });
  return out;
}

/**
 * Does the input ask another question after this one? Then the question is chat history and
 * the call answers the later one ("What is 2 + 2?", its answer, "And what is 3 + 3?").
 */
function askedAfter(pieces: readonly string[], normal: readonly string[], question: string): boolean {
  const last = normal.findLastIndex((n) => n.includes(question));
  for (let i = last + 1; i < pieces.length; i++)
    if (/\?\s*$/.test(pieces[i]) && !normal[i].includes(question)) return true;
  return false;
}

/** A completion that is a tool call's arguments (JSON), not an answer in words. */
const isToolCall = (t: string) => /^\s*[[{]/.test(t) && /[\]}]\s*$/.test(t);

/**
 * The answer to a question: the first LLM call holding it whose completion is text in words (a
 * call that only called a tool is not the answer; a later turn whose history repeats the
 * question is not either), else the first holding it that wrote anything.
 */
function answerOf(calls: LlmCall[], holding: number[], text: (id: string) => string) {
  const written = (ci: number, words: boolean) =>
    calls[ci].outputs.find((id) => {
      const t = text(id).trim();
      return id !== SENTINEL.variable && t !== '' && (!words || !isToolCall(t));
    });
  const llm = holding.filter((ci) => ANSWERING.has(calls[ci].op.category));
  let ci = llm.find((c) => written(c, true) !== undefined);
  ci ??= llm.find((c) => written(c, false) !== undefined);
  if (ci === undefined) return null;
  const out = written(ci, true) ?? written(ci, false)!;
  // The searches for the question before the answer read it too (the question ops of the case).
  const searches = holding
    .filter((si) => si < ci && calls[si].op.category === 'retrieval')
    .map((si) => calls[si]);
  return { call: calls[ci], prediction: text(out), searches };
}

/** A row's evidence: the texts of its evidence turns, else where a golden answer is said first. */
function evidenceOf(index: EvidenceIndex, row: QaRow): string[] {
  const found = row.evidenceTexts.length
    ? row.evidenceTexts.map((t) => index.find(t))
    : [row.answers.map((a) => index.find(a)).find((id) => id !== null) ?? null];
  return [...new Set(found.filter((id): id is string => id !== null))];
}

/**
 * Joins `rows` to `doc` (not changed: a new document comes back). The verdict of a row is its
 * `correct` when given, else `judge` on the prediction — unless the trace's own judge (an
 * evaluation event, a score) judged the same question: then that judge's verdict stands, the
 * row's golden answers join it, and its `answer_rule` is `trace` (one case, not two).
 */
export function joinQa(doc: TraceDocument, rows: readonly QaRow[], judge: AnswerJudge): QaJoin {
  const values = new Map(doc.data.nodes.map((v) => [v.full_node_id ?? '', v.value]));
  const textCache = new Map<string, string>();
  const text = (id: string) => {
    let t = textCache.get(id);
    if (t === undefined) {
      t = valueText(values.get(id) ?? '');
      textCache.set(id, t);
    }
    return t;
  };
  const calls = llmCalls(doc);
  const holding = callsHolding(rows, calls, text);
  const w = new JudgeWriter(doc);
  const written = new Set(doc.data.edges.map((e) => e.target_full_node_id));
  const asked = new Set(
    holding.flatMap((h) =>
      h.filter((ci) => ANSWERING.has(calls[ci].op.category)).flatMap((ci) => calls[ci].inputs),
    ),
  );
  const index = new EvidenceIndex(doc, (id) => written.has(id) || asked.has(id), text);
  const unmatched: string[] = [];
  let joined = 0;
  const own = ownJudges(doc, text);
  rows.forEach((row, i) => {
    // A question the trace's own judge judged is that case: the row's golden answers join it.
    const mine = own.get(normalizeUnit(row.question));
    if (mine) {
      joined++;
      w.merge(row, i, mine, evidenceOf(index, row));
      return;
    }
    const answer = answerOf(calls, holding[i], text);
    if (answer) joined++;
    else unmatched.push(row.place);
    if (!answer && row.prediction === null) return;
    const prediction = answer?.prediction ?? row.prediction ?? '';
    const correct = row.correct ?? judge.accepts(prediction, row.answers, row.question);
    const rule = row.correct !== null ? 'given' : judge.rule;
    w.add({ row, index: i, answer, prediction, correct, rule, evidence: evidenceOf(index, row) });
  });
  return { doc: w.document(), joined, unmatched };
}

/** One row judged: where its answer came from (null: no LLM call held it), the verdict and its rule. */
interface Judged {
  row: QaRow;
  index: number;
  answer: { call: LlmCall; searches: LlmCall[]; prediction: string } | null;
  prediction: string;
  correct: boolean;
  rule: string;
  evidence: string[];
}

/** Writes the judge ops and their variables into a copy of the document's record lists. */
class JudgeWriter {
  private readonly nodes: VariableRecord[];
  private readonly edges: EdgeRecord[];
  /** Judge ops to insert after the op of each op_id ('' = at the end). */
  private readonly after = new Map<string, OperationRecord[]>();
  private readonly graphId: string;
  private readonly usedIds = new Set<string>();
  /** Metadata added to the trace's own records (judges a row joined, their questions' evidence). */
  private readonly opMeta = new Map<string, JsonObject>();
  private readonly varMeta = new Map<string, JsonObject>();

  constructor(private readonly doc: TraceDocument) {
    this.nodes = [...doc.data.nodes];
    this.edges = [...doc.data.edges];
    this.graphId = typeof doc.graph_id === 'string' ? doc.graph_id : '';
    for (const v of doc.data.nodes) if (v.full_node_id) this.usedIds.add(v.full_node_id);
  }

  private base(at: string, session: string, metadata: JsonObject = {}) {
    return {
      created_at: at,
      filename: 'qa',
      lineno: 0,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      metadata,
      comment: null,
      session_id: session,
    };
  }

  private node(
    className: string,
    name: string,
    value: string,
    category: string,
    at: string,
    session: string,
    metadata: JsonObject = {},
  ): string {
    let n = name;
    for (let k = 2; this.usedIds.has(`${className}:${n}@1`); k++) n = `${name}-${k}`;
    const id = `${className}:${n}@1`;
    this.usedIds.add(id);
    this.nodes.push({
      ...this.base(at, session, metadata),
      name: n,
      version: 1,
      value,
      class_name: className,
      category,
      full_name: `${className}:${n}`,
      node_id: `${n}@1`,
      full_node_id: id,
    });
    return id;
  }

  private edge(
    op: { op_id: string; category: string; created_at: string; session_id: string },
    src: string,
    dst: string,
  ): void {
    this.edges.push({
      ...this.base(op.created_at, op.session_id, { inferred: 'qa-file' }),
      edge_id: `edge-qa-${hash16(`${op.op_id}|${src}|${dst}`)}${this.edges.length.toString(16)}`,
      op_id: op.op_id,
      category: op.category,
      source_full_node_id: src,
      target_full_node_id: dst,
    });
  }

  /** The question, golden answers and prediction of one row, and its judge op after the answer op. */
  add(j: Judged): void {
    const { row, answer } = j;
    const answerOp = answer?.call.op ?? null;
    const session = answerOp?.session_id ?? this.doc.data.sessions[0]?.session_id ?? 'qa';
    const at =
      answerOp?.created_at ?? this.doc.data.operations.at(-1)?.created_at ?? '1970-01-01 00:00:00.000';
    const asked = answer?.searches[0]?.op.created_at ?? at;
    const name = nameOf(row, j.index);
    const meta: JsonObject = j.evidence.length ? { evidence: j.evidence } : {};
    const query = this.node('query', name, row.question, 'message & query', asked, session, meta);
    const golden = this.node(
      'golden_answers',
      name,
      JSON.stringify(row.answers),
      'golden_answers',
      at,
      session,
    );
    const pred = this.node('prediction', name, j.prediction, 'prediction', at, session);
    if (answer) {
      // The searches and the answer call read the question; the call wrote the prediction.
      for (const search of answer.searches)
        for (const out of search.outputs) this.edge(search.op, query, out);
      for (const src of [...answer.call.inputs, query]) this.edge(answer.call.op, src, pred);
    }
    const judge: OperationRecord = {
      ...this.base(at, session, { answer_rule: j.rule, qa_row: row.place }),
      op_id: `op-qa-judge-${name}`,
      op_name: 'llm-judge',
      category: 'evaluation',
    };
    const score = this.node('judge_score', name, j.correct ? '1' : '0', 'evaluation', at, session);
    const response = this.node(
      'judge_response',
      name,
      j.correct ? 'CORRECT' : 'WRONG',
      'evaluation',
      at,
      session,
    );
    for (const src of [query, golden, pred]) for (const dst of [score, response]) this.edge(judge, src, dst);
    const key = answerOp?.op_id ?? '';
    const list = this.after.get(key);
    if (list) list.push(judge);
    else this.after.set(key, [judge]);
  }

  /**
   * A row whose question the trace's own judge judged: its golden answers are read into that
   * judge's verdicts (unless it reads some already) and the verdict stands (`answer_rule: trace`).
   */
  merge(row: QaRow, index: number, own: OwnJudge, evidence: string[]): void {
    const op = own.op;
    if (!own.hasGolden) {
      const at = op.created_at;
      const golden = this.node(
        'golden_answers',
        nameOf(row, index),
        JSON.stringify(row.answers),
        'golden_answers',
        at,
        op.session_id,
      );
      for (const dst of own.verdicts) this.edge(op, golden, dst);
      own.hasGolden = true;
    }
    this.opMeta.set(op.op_id, { answer_rule: 'trace', qa_row: row.place });
    if (evidence.length) this.varMeta.set(own.queryId, { evidence });
  }

  document(): TraceDocument {
    const operations: OperationRecord[] = [];
    const withMeta = <T extends { metadata: JsonObject }>(r: T, meta: JsonObject | undefined): T =>
      meta ? { ...r, metadata: { ...r.metadata, ...meta } } : r;
    const nodes = this.varMeta.size
      ? this.nodes.map((v) => withMeta(v, this.varMeta.get(v.full_node_id ?? '')))
      : this.nodes;
    for (const op of this.doc.data.operations) {
      operations.push(withMeta(op, this.opMeta.get(op.op_id)));
      appendAll(operations, this.after.get(op.op_id) ?? []);
    }
    appendAll(operations, this.after.get('') ?? []);
    return { ...this.doc, data: { ...this.doc.data, nodes, operations, edges: this.edges } };
  }
}
