/**
 * One span made an op: its inputs (known texts, texts containing earlier outputs, memory
 * records read), its outputs (texts, record versions), an inline judge's verdict, and the
 * judge ops of evaluations of its answer.
 */

import { appendAll } from '../../arrays.ts';
import { hash16 } from '../../hash/index.ts';
import type { JsonObject } from '../types.ts';
import type { GraphWriter, OpInput } from './graph-writer.ts';
import { slotOf } from './graph-writer.ts';
import type { ContentItem, SpanContent, SpanEvaluation, SpanMemory } from './items.ts';
import type { TextMap } from './text-map.ts';

/** A record's latest version, by store id + record id. */
interface RecordVersion {
  name: string;
  className: string | null;
  version: number;
  id: string;
  store: string;
}

/** The memory records of a trace: their latest versions, by store id + record id. */
export class MemoryRecords {
  private readonly latest = new Map<string, RecordVersion>();
  private key = (store: string | null, id: string) => `${store ?? ''}\u0000${id}`;
  get(store: string | null, id: string): RecordVersion | undefined {
    return this.latest.get(this.key(store, id));
  }
  set(store: string | null, v: RecordVersion): void {
    this.latest.set(this.key(store, v.name), v);
  }
  /** The records of a store (a whole-store delete deletes each). */
  inStore(store: string | null): RecordVersion[] {
    return [...this.latest.values()].filter((r) => r.store === (store ?? ''));
  }
}

/** A span's answer: its last output text (not a tool call's name), else its last output. */
function lastAnswer(c: SpanContent): string | null {
  const answers = c.outputs.filter((x) => x.role === 'output');
  const list = answers.length ? answers : c.outputs;
  return list[list.length - 1]?.text ?? null;
}

/** The question and answer an evaluation of a span judged: its own, else the span's message and last answer. */
export function evaluatedTexts(
  c: SpanContent,
  e: SpanEvaluation,
): { query: string | null; prediction: string | null } {
  const query =
    e.query ??
    c.inputs.find((x) => x.role === 'message' || x.role === 'query' || x.role === 'value')?.text ??
    null;
  return { query, prediction: e.prediction ?? lastAnswer(c) };
}

export class SpanOp {
  readonly inputs: OpInput[] = [];
  readonly outputs: string[] = [];

  /** `skip`: outputs a descendant span also writes (written there; this span only passes them on). */
  constructor(
    private readonly g: GraphWriter,
    private readonly records: MemoryRecords,
    readonly opId: string,
    readonly session: string,
    readonly at: string,
    private readonly skip: TextMap<true> | undefined,
  ) {}

  addInput(id: string, inferred?: string): void {
    if (!this.inputs.some((x) => x.id === id)) this.inputs.push(inferred ? { id, inferred } : { id });
  }

  /** Reads one input item; returns its variable. */
  readItem(it: ContentItem): string {
    const { g, opId } = this;
    const known = g.known(it);
    const producer = known ? g.producerOf.get(known.id) : undefined;
    // Not an earlier output as a whole: look for earlier outputs inside it (lines, list items, records).
    const sources = !known || !producer ? g.containedSources(it.text, known?.id, opId) : [];
    // A "message" that is a piece of an earlier output (one fact of a list) is derived data, not a raw turn.
    const derived = !known && sources.length > 0 && it.role === 'message';
    const v = g.contentVar(derived ? { ...it, role: 'value' } : it, this.session, this.at, false, known);
    // Exactly one unit of one earlier output (a fact of an extracted list): that op wrote this
    // piece, and this op read the piece alone, not the rest of the list.
    const from = !known && sources.length === 1 ? g.pieceWriter(it.text, sources[0]) : undefined;
    if (from) {
      g.writeEdges(from.opId, from.category, from.session, from.at, from.inputs, [v.id], 'piece');
      g.producerOf.set(v.id, from.opId);
      this.addInput(v.id, 'piece');
      return v.id;
    }
    this.addInput(v.id, v.known && producer && producer !== opId ? 'same-content' : undefined);
    for (const src of sources) this.addInput(src, 'contained');
    return v.id;
  }

  writeItem(it: ContentItem): void {
    const { g } = this;
    if (this.skip?.has(it.text, slotOf(it))) return;
    const known = g.known(it);
    if (known && this.inputs.some((x) => x.id === known.id)) return; // passed through unchanged
    // Two answers with the same words are two variables; later readers read the latest.
    const v = g.contentVar(
      it,
      this.session,
      this.at,
      known !== undefined && g.producerOf.has(known.id),
      known,
    );
    this.outputs.push(v.id);
    g.producerOf.set(v.id, this.opId);
    g.fileUnits(it.text, v.id);
  }

  /** A search: reads the versions it returned; its result (unless the span wrote one) is their contents. */
  readSearch(mem: SpanMemory, hasOutputs: boolean): void {
    const { g, records, session, at } = this;
    const store = mem.store;
    for (const r of mem.records) {
      const rec = r.id !== null ? records.get(store, r.id) : undefined;
      if (rec) this.addInput(rec.id, 'memory-record');
      else if (r.content !== null && r.id !== null) {
        // A stored text coming back is a read of the write that took it in; else a record
        // written before the trace began. Known by its id from here on.
        const writer = g.storedWriter(r.content);
        const metadata: JsonObject = writer ? {} : { seen_first_in: this.opId };
        const when = writer?.at ?? at;
        const id = g.addNode(r.id, store, 1, r.content, store ?? 'memory_record', session, when, metadata);
        if (writer)
          g.writeEdges(
            writer.opId,
            writer.category,
            writer.session,
            when,
            writer.inputs.map((x) => ({ id: x.id, inferred: 'stored-text' })),
            [id],
          );
        records.set(store, { name: r.id, className: store, version: 1, id, store: store ?? '' });
        this.addInput(id);
      } else if (r.content !== null) {
        const writer = g.storedWriter(r.content);
        if (writer) this.addInput(writer.varId, 'stored-text');
        else this.readItem({ text: r.content, role: 'document' });
      }
    }
    if (hasOutputs) return;
    // An empty result is written too: the prompt that got nothing from the search still read it.
    const texts = mem.records.map((r) => r.content).filter((t): t is string => t !== null);
    this.writeItem({ text: JSON.stringify(texts), role: 'output' });
  }

  /** Creates, updates and deletes: a new version of each record (a delete's value is `None`). */
  writeRecords(mem: SpanMemory): void {
    const { g, records, session, at, opId } = this;
    const store = mem.store;
    const deleting = mem.op === 'delete' || mem.op === 'delete_store';
    const targets =
      (mem.op === 'delete' && !mem.records.length) || mem.op === 'delete_store'
        ? records.inStore(store).map((r) => ({ id: r.name, content: null }))
        : mem.records;
    for (const r of targets) {
      const recId = r.id ?? `record-${hash16(r.content ?? opId)}`;
      const prev = records.get(store, recId);
      if (deleting && !prev) continue;
      const value = deleting ? 'None' : (r.content ?? prev?.id ?? '');
      const version = prev ? prev.version + 1 : 1;
      // Records of one store are one kind of unit (the store id is their category).
      const id = g.addNode(recId, store, version, value, store ?? 'memory_record', session, at);
      if (prev) this.addInput(prev.id, 'memory-record');
      records.set(store, { name: recId, className: store, version, id, store: store ?? '' });
      this.outputs.push(id);
      g.producerOf.set(id, opId);
      if (!deleting) g.fileUnits(value, id);
    }
  }

  /** A judge's verdict variables: its response (explanation or label) and its score. */
  judgeOutputs(e: SpanEvaluation): string[] {
    const { g, session, at } = this;
    const out: string[] = [];
    const response = e.explanation ?? e.label;
    if (response !== null)
      out.push(g.contentVar({ text: response, role: 'output', className: 'judge_response' }, session, at).id);
    const name = `score:${hash16(`${e.name}:${at}:${g.nodes.length}`)}`;
    out.push(g.addNode(name, 'judge_score', 1, String(e.score), 'evaluation', session, at));
    return out;
  }

  /** An inline judge (an evaluator span): reads the question, golden answer and prediction, writes its verdict. */
  judgeInline(e: SpanEvaluation): void {
    for (const [text, cls] of [
      [e.query, 'query'],
      [e.golden, 'golden_answers'],
      [e.prediction, 'prediction'],
    ] as const)
      if (text !== null) this.readItem({ text, role: 'value', className: cls });
    appendAll(this.outputs, this.judgeOutputs(e));
  }

  /** A judge op of its own for an evaluation of this span's answer (an event, a Langfuse score). */
  evaluationOp(c: SpanContent, e: SpanEvaluation, index: number, spanId: string): void {
    const { g, session, at } = this;
    const { query: q, prediction: pred } = evaluatedTexts(c, e);
    const inputs: OpInput[] = [];
    for (const [text, cls] of [
      [q, 'query'],
      [e.golden, 'golden_answers'],
      [pred, 'prediction'],
    ] as const) {
      if (text === null) continue;
      if (!g.classOf.has(text)) g.classOf.set(text, cls);
      const v = g.contentVar({ text, role: 'value', className: cls }, session, at);
      if (!inputs.some((x) => x.id === v.id)) inputs.push({ id: v.id });
    }
    const metadata: JsonObject = { span_id: spanId, evaluation: e.name };
    const judgeId = `${this.opId}-eval-${index}`;
    g.addOperation(judgeId, 'llm-judge', 'evaluation', session, at, metadata, null);
    g.writeEdges(judgeId, 'evaluation', session, at, inputs, this.judgeOutputs(e));
  }

  /**
   * An evaluation without a golden answer or a verdict (a Langfuse score's comment, a GenAI
   * evaluation's explanation): an op of its own, named by the evaluation, that reads the answer
   * it scored and writes its comment and score, at `at` (when the span ended). Not a judge of a
   * question, so no case.
   */
  scoreOp(c: SpanContent, e: SpanEvaluation, index: number, spanId: string, at: string): void {
    const { g, session } = this;
    // The answer scored: the span's last output as read (the evaluation's own copy may be the raw value).
    const pred = lastAnswer(c) ?? e.prediction;
    const inputs: OpInput[] = [];
    if (pred !== null) inputs.push({ id: g.contentVar({ text: pred, role: 'value' }, session, at).id });
    const outputs: string[] = [];
    const comment = e.explanation ?? e.label;
    if (comment !== null) outputs.push(g.contentVar({ text: comment, role: 'comment' }, session, at).id);
    if (e.score !== null) {
      const name = `score:${hash16(`${e.name}:${at}:${g.nodes.length}`)}`;
      outputs.push(g.addNode(name, null, 1, String(e.score), 'evaluation_score', session, at));
    }
    const opId = `${this.opId}-eval-${index}`;
    g.addOperation(opId, e.name, 'evaluation', session, at, { span_id: spanId, evaluation: e.name }, null);
    g.writeEdges(opId, 'evaluation', session, at, inputs, outputs);
  }
}
