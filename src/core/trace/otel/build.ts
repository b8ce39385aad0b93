/**
 * Spans → a smartcomment document. Each span with content becomes an op; what it read and
 * wrote become variables, and the dataflow the spans do not state is inferred:
 * - the same text read by a later span is the same variable (content identity, as the
 *   toolkit's default names), so an earlier span's output feeds the later span;
 * - a later input that *contains* an earlier output's line, list item or record gets an
 *   edge from it;
 * - memory records become version chains by store id + record id (create → update →
 *   delete), and search results read the versions they returned.
 * Edges found this way carry `metadata.inferred` (the reason); recorded ones do not.
 * Judge / evaluator spans with a verdict and a golden answer become `llm-judge` ops, so
 * the failed questions show up as cases.
 */

import type {
  EdgeRecord,
  JsonObject,
  OperationRecord,
  SessionRecord,
  TraceDocument,
  VariableRecord,
} from '../types.ts';
import { SENTINEL } from '../types.ts';
import {
  type ContentItem,
  type ItemRole,
  type SpanContent,
  type SpanEvaluation,
  spanContent,
} from './content.ts';
import { RecordTexts } from './record-texts.ts';
import type { OtelSpan, SpanFile } from './span.ts';
import { hash16, TextMap, textSlot } from './text-map.ts';
import { type AttrValue, formatNanos } from './values.ts';

/** What the import made of the spans, for the import summary. */
export interface OtelImportSummary {
  format: SpanFile['format'];
  /** `memtrace` when the file carried the workbench's own records (exact round trip). */
  mapping: 'memtrace' | 'inferred';
  spans: number;
  operations: number;
  variables: number;
  edges: number;
  inferredEdges: number;
  cases: number;
  byConvention: Record<string, number>;
  /** Spans that carried no input / output (content capture off), kept as ops without variables. */
  withoutContent: number;
  /** Spans of no known kind (no `gen_ai.operation.name`, OpenInference or Langfuse type). */
  unknownKind: number;
  /** Spans without content whose only role is to hold child spans: not ops. */
  containers: number;
  /** Evaluations without a golden answer or a verdict (not cases). */
  evaluationsWithoutGolden: number;
}

/** A summary with every count at zero. */
export function emptySummary(file: SpanFile, mapping: OtelImportSummary['mapping']): OtelImportSummary {
  return {
    format: file.format,
    mapping,
    spans: file.spans.length,
    operations: 0,
    variables: 0,
    edges: 0,
    inferredEdges: 0,
    cases: 0,
    byConvention: {},
    withoutContent: 0,
    unknownKind: 0,
    containers: 0,
    evaluationsWithoutGolden: 0,
  };
}

const ROLE_CATEGORY: Record<ItemRole, string> = {
  prompt: 'prompt',
  message: 'message',
  query: 'query',
  output: 'llm_output',
  tool: 'tool_result',
  document: 'document',
  record: 'memory_record',
  value: 'value',
};

interface Var {
  id: string;
  producer: string | null;
}

/** Outputs with more units than this (windows, transcripts) are found only as a whole, by their first lines. */
const MAX_UNITS = 64;
const LONG_TEXT = 8192;
const ANCHORS = 4;

/** The first `n` meaningful lines (as `unitsOf` counts them) without splitting the whole text. */
function firstLines(text: string, n: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (out.length < n && at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).trim();
    if (line.length >= 16) out.push(line);
    at = end + 1;
  }
  return out;
}

/** Lines, JSON list items and record contents of a text that are long enough to mean something. */
function unitsOf(text: string): string[] {
  const t = text.trim();
  // One line, not a list (a message, a query): itself, without splitting.
  if (t[0] !== '[' && !t.includes('\n')) return t.length >= 16 ? [t] : [];
  const out: string[] = [];
  if (t[0] === '[') {
    try {
      const list = JSON.parse(t);
      if (Array.isArray(list)) for (const x of list) if (typeof x === 'string') out.push(x.trim());
    } catch {
      // not JSON: lines only
    }
  }
  for (const line of t.split('\n')) out.push(line.trim());
  return out.filter((u) => u.length >= 16);
}

export function spansToDocument(file: SpanFile): { doc: TraceDocument; summary: OtelImportSummary } {
  const spans = orderSpans(file.spans);
  // Records rewritten span after span (windows, transcripts) are read and kept once (`record-texts.ts`).
  const recordTexts = new RecordTexts();
  const contents = spans.map((span) => spanContent(span, recordTexts));
  recordTexts.flush();
  // The content attributes (often JSON strings as large as the file) were read: drop them early.
  for (const sp of spans)
    for (const k of Object.keys(sp.attributes)) if (CONTENT_KEYS.test(k)) delete sp.attributes[k];
  const graphId = `graph-${spans[0]?.traceId || '0'.repeat(32)}`.slice(0, 38);
  const summary = emptySummary(file, 'inferred');
  // The fields every record shares are spelled out in each literal below rather than spread
  // from one object: a spread inside a literal builds about half as fast, on tens of thousands of records.
  const nodes: VariableRecord[] = [];
  const operations: OperationRecord[] = [];
  const edges: EdgeRecord[] = [];
  const sessions = new Map<string, SessionRecord>();

  // Class names (query, prediction, …) are said once (by the judge) but hold for the same text everywhere.
  const classOf = new TextMap<string>();
  const slotOf = (it: ContentItem) => {
    it.slot ??= textSlot(it.text);
    return it.slot;
  };
  const carried = new Set(['query', 'golden_answers', 'prediction']);
  for (const c of contents) {
    for (const it of [...c.inputs, ...c.outputs])
      if (it.className && carried.has(it.className)) classOf.set(it.text, it.className);
    for (const e of c.evaluations) {
      if (e.query !== null && !classOf.has(e.query)) classOf.set(e.query, 'query');
      if (e.prediction !== null && !classOf.has(e.prediction)) classOf.set(e.prediction, 'prediction');
    }
  }

  const { rep, parentOf, hasChildren } = spanTree(spans);
  // An output a descendant also writes was written there; the parent only passes it on.
  const writers = new Uint8Array(spans.length);
  let anyWriter = false;
  spans.forEach((_, i) => {
    if (!contents[i].outputs.length || !hasChildren[rep[i]]) return;
    writers[rep[i]] = 1;
    anyWriter = true;
  });
  const descendantOutputs = new Map<number, TextMap<true>>();
  if (anyWriter) {
    const seen = new Int32Array(spans.length).fill(-1); // the span whose ancestors were walked last
    spans.forEach((_, i) => {
      for (let p = parentOf[rep[i]]; p >= 0 && seen[p] !== i; p = parentOf[p]) {
        seen[p] = i;
        if (!writers[p]) continue;
        const set = descendantOutputs.get(p) ?? new TextMap<true>();
        descendantOutputs.set(p, set);
        for (const o of contents[i].outputs) set.set(o.text, true, slotOf(o));
      }
    });
  }

  const byText = new TextMap<Var>();
  // A unit → the variable it came from; `whole` when only the whole output counts (long texts are
  // filed under their first lines only, and a hit must contain the whole output).
  const byUnit = new TextMap<{ id: string; whole?: string }>();
  // Outputs are split into units only when an input needs looking up by unit (often none does).
  const pendingUnits: { text: string; id: string }[] = [];
  const unitIndex = () => {
    for (const p of pendingUnits) {
      const units = p.text.length > LONG_TEXT ? null : unitsOf(p.text);
      if (units && units.length <= MAX_UNITS) {
        const hit = { id: p.id };
        for (const u of units) byUnit.set(u, hit);
      } else {
        const hit = { id: p.id, whole: p.text };
        for (const u of firstLines(p.text, ANCHORS)) byUnit.set(u, hit);
      }
    }
    pendingUnits.length = 0;
    return byUnit;
  };
  const producerOf = new Map<string, string>();
  const records = new Map<
    string,
    { name: string; className: string | null; version: number; id: string; store: string }
  >();
  const sessionOfSpan: (string | undefined)[] = []; // by span (`rep`): the latest session seen
  let sentinelNode = false;
  const usedNames = new Set<string>();
  const usedOpIds = new Set<string>();

  const ensureSession = (id: string, at: string) => {
    if (!sessions.has(id))
      sessions.set(id, {
        created_at: at,
        filename: 'otel',
        lineno: 0,
        graph_id: graphId,
        user_id: null,
        project_id: null,
        metadata: {},
        session_id: id,
        session_name: id,
        comment: null,
        category: 'session',
      } as SessionRecord);
  };

  const addNode = (
    name: string,
    className: string | null,
    version: number,
    value: string,
    category: string,
    session: string,
    at: string,
    metadata: JsonObject = {},
  ): string => {
    const fullName = className === null ? name : `${className}:${name}`;
    const id = `${fullName}@${version}`;
    nodes.push({
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: graphId,
      user_id: null,
      project_id: null,
      metadata,
      name,
      version,
      value,
      class_name: className,
      comment: null,
      category,
      session_id: session,
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: id,
    } as VariableRecord);
    return id;
  };

  /** The variable of a text; `fresh` makes a new one (a span writing a text an earlier span also wrote). */
  const contentVar = (
    it: ContentItem,
    session: string,
    at: string,
    fresh = false,
    known = byText.get(it.text, slotOf(it)), // callers that looked it up already pass it
  ): { id: string; known: boolean } => {
    const slot = slotOf(it);
    if (known && !fresh) return { id: known.id, known: true };
    const className = classOf.get(it.text, slot) ?? it.className ?? null;
    const hash = slot.length === it.text.length ? hash16(it.text) : slot.slice(0, 16);
    let name = `text:${hash}`;
    let used = `${className}|${name}`;
    for (let n = 2; usedNames.has(used); n++) {
      name = `text:${hash}-${n}`;
      used = `${className}|${name}`;
    }
    usedNames.add(used);
    // The judge's variables are named by class; the question keeps the paper's category.
    const category = className === 'query' ? 'message & query' : (className ?? ROLE_CATEGORY[it.role]);
    const id = addNode(name, className, 1, it.text, category, session, at);
    byText.set(it.text, { id, producer: null }, slot);
    return { id, known: false };
  };

  const recordKey = (store: string | null, id: string) => `${store ?? ''}\u0000${id}`;

  spans.forEach((span, i) => {
    const c = contents[i];
    summary.byConvention[c.convention] = (summary.byConvention[c.convention] ?? 0) + 1;
    if (c.convention === 'none') summary.unknownKind++;
    const k = rep[i];
    const parent = parentOf[k];
    const session =
      c.session ?? (parent >= 0 ? sessionOfSpan[parent] : undefined) ?? `trace-${span.traceId || 'unknown'}`;
    sessionOfSpan[k] = session;
    if (!c.hasContent && hasChildren[k]) {
      summary.containers++;
      return;
    }
    if (!c.hasContent) summary.withoutContent++;
    const at = formatNanos(span.start ?? 0n);
    ensureSession(session, at);
    const opId = uniqueOpId(span, usedOpIds);
    const inputs: { id: string; inferred?: string }[] = [];
    const outputs: string[] = [];
    const addInput = (id: string, inferred?: string) => {
      if (!inputs.some((x) => x.id === id)) inputs.push(inferred ? { id, inferred } : { id });
    };
    const readItem = (it: ContentItem) => {
      const known = byText.get(it.text, slotOf(it));
      const producer = known ? producerOf.get(known.id) : undefined;
      // Not an earlier output as a whole: look for earlier outputs inside it (lines, list items, records).
      const sources: string[] = [];
      if (!known || !producer)
        for (const u of unitsOf(it.text)) {
          const hit = unitIndex().get(u);
          if (!hit || (hit.whole !== undefined && !it.text.includes(hit.whole))) continue;
          const src = hit.id;
          if (src !== known?.id && producerOf.get(src) !== opId && !sources.includes(src)) sources.push(src);
        }
      // A "message" that is a piece of an earlier output (one fact of a list) is derived data, not a raw turn.
      const derived = !known && sources.length > 0 && it.role === 'message';
      const v = contentVar(derived ? { ...it, role: 'value' } : it, session, at, false, known);
      addInput(v.id, v.known && producer && producer !== opId ? 'same-content' : undefined);
      for (const src of sources) addInput(src, 'contained');
    };
    for (const it of c.inputs) readItem(it);
    const skip = descendantOutputs.get(k);
    const writeItem = (it: ContentItem) => {
      if (skip?.has(it.text, slotOf(it))) return;
      const known = byText.get(it.text, slotOf(it));
      if (known && inputs.some((x) => x.id === known.id)) return; // passed through unchanged
      // Two answers with the same words are two variables; later readers read the latest.
      const v = contentVar(it, session, at, known !== undefined && producerOf.has(known.id), known);
      outputs.push(v.id);
      producerOf.set(v.id, opId);
      pendingUnits.push({ text: it.text, id: v.id });
    };

    const mem = c.memory;
    if (mem) {
      const store = mem.store;
      if (mem.op === 'search') {
        for (const r of mem.records) {
          const rec = r.id !== null ? records.get(recordKey(store, r.id)) : undefined;
          if (rec) addInput(rec.id, 'memory-record');
          else if (r.content !== null) {
            // A record written before the trace began (or a document without id): known by its content.
            if (r.id !== null) {
              const id = addNode(r.id, store, 1, r.content, store ?? 'memory_record', session, at, {
                seen_first_in: opId,
              });
              records.set(recordKey(store, r.id), {
                name: r.id,
                className: store,
                version: 1,
                id,
                store: store ?? '',
              });
              addInput(id);
            } else readItem({ text: r.content, role: 'document' });
          }
        }
        if (!c.outputs.length) {
          const texts = mem.records.map((r) => r.content).filter((t): t is string => t !== null);
          if (texts.length) writeItem({ text: JSON.stringify(texts), role: 'output' });
        }
      } else {
        const targets =
          (mem.op === 'delete' && !mem.records.length) || mem.op === 'delete_store'
            ? [...records.values()]
                .filter((r) => r.store === (store ?? ''))
                .map((r) => ({ id: r.name, content: null }))
            : mem.records;
        for (const r of targets) {
          const recId = r.id ?? `record-${hash16(r.content ?? opId)}`;
          const key = recordKey(store, recId);
          const prev = records.get(key);
          const deleting = mem.op === 'delete' || mem.op === 'delete_store';
          if (deleting && !prev) continue;
          const value = deleting ? 'None' : (r.content ?? prev?.id ?? '');
          const version = prev ? prev.version + 1 : 1;
          // Records of one store are one kind of unit (the store id is their category).
          const id = addNode(recId, store, version, value, store ?? 'memory_record', session, at);
          if (prev) addInput(prev.id, 'memory-record');
          records.set(key, {
            name: recId,
            className: store,
            version,
            id,
            store: store ?? '',
          });
          outputs.push(id);
          producerOf.set(id, opId);
          if (!deleting) pendingUnits.push({ text: value, id });
        }
      }
    }
    const metadata: JsonObject = { span_id: span.spanId, trace_id: span.traceId, ...spanMetadata(span, c) };
    const judge = judgeOf(c, inputs.length > 0 || outputs.length > 0 || c.outputs.length > 0);
    // A judge's own output messages are its verdict, written below as judge variables.
    if (!judge?.inline) for (const it of c.outputs) writeItem(it);
    let opName = span.name || null;
    // Memory spans are named by their operation alone; the store tells a buffer's update from an index's.
    if (c.memory?.store && opName && !opName.includes(c.memory.store)) opName = `${opName} ${c.memory.store}`;
    let category = c.category;
    if (judge) {
      const { evaluation: e, inline } = judge;
      if (inline) {
        opName = 'llm-judge';
        category = 'evaluation';
        metadata.span_name = span.name;
        for (const [text, cls] of [
          [e.query, 'query'],
          [e.golden, 'golden_answers'],
          [e.prediction, 'prediction'],
        ] as const)
          if (text !== null) readItem({ text, role: 'value', className: cls });
        outputs.push(...judgeOutputs(e, session, at));
        summary.cases++;
      }
    }
    operations.push({
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: graphId,
      user_id: null,
      project_id: null,
      metadata,
      op_id: opId,
      op_name: opName,
      comment: span.status.message,
      category,
      session_id: session,
    } as OperationRecord);
    writeEdges(opId, category, session, at, inputs, outputs);

    // An evaluation of this span's answer (an event, a Langfuse score): a judge op of its own.
    for (const e of c.evaluations) {
      if (judge?.inline && judge.evaluation === e) continue;
      if (e.golden === null || e.score === null) {
        summary.evaluationsWithoutGolden++;
        continue;
      }
      const judgeId = `${opId}-eval-${c.evaluations.indexOf(e)}`;
      const q =
        e.query ??
        c.inputs.find((x) => x.role === 'message' || x.role === 'query' || x.role === 'value')?.text ??
        null;
      const pred = e.prediction ?? c.outputs[c.outputs.length - 1]?.text ?? null;
      const jin: { id: string; inferred?: string }[] = [];
      for (const [text, cls] of [
        [q, 'query'],
        [e.golden, 'golden_answers'],
        [pred, 'prediction'],
      ] as const) {
        if (text === null) continue;
        if (!classOf.has(text)) classOf.set(text, cls);
        const v = contentVar({ text, role: 'value', className: cls }, session, at);
        if (!jin.some((x) => x.id === v.id)) jin.push({ id: v.id });
      }
      operations.push({
        created_at: at,
        filename: 'otel',
        lineno: 0,
        graph_id: graphId,
        user_id: null,
        project_id: null,
        metadata: { span_id: span.spanId, evaluation: e.name },
        op_id: judgeId,
        op_name: 'llm-judge',
        comment: null,
        category: 'evaluation',
        session_id: session,
      } as OperationRecord);
      writeEdges(judgeId, 'evaluation', session, at, jin, judgeOutputs(e, session, at));
      summary.cases++;
    }
  });

  function judgeOutputs(e: SpanEvaluation, session: string, at: string): string[] {
    const out: string[] = [];
    const response = e.explanation ?? e.label;
    if (response !== null)
      out.push(contentVar({ text: response, role: 'output', className: 'judge_response' }, session, at).id);
    const score = addNode(
      `score:${hash16(`${e.name}:${at}:${nodes.length}`)}`,
      'judge_score',
      1,
      String(e.score),
      'evaluation',
      session,
      at,
    );
    out.push(score);
    return out;
  }

  function writeEdges(
    opId: string,
    category: string,
    session: string,
    at: string,
    inputs: { id: string; inferred?: string }[],
    outputs: string[],
  ) {
    if (!inputs.length && !outputs.length) return;
    if (!inputs.length || !outputs.length) sentinelNode = true;
    const src = inputs.length ? inputs : [{ id: SENTINEL.variable }];
    const dst = outputs.length ? outputs : [SENTINEL.variable];
    for (const s of src)
      for (const t of dst) {
        const inferred = 'inferred' in s ? s.inferred : undefined;
        if (inferred) summary.inferredEdges++;
        edges.push({
          created_at: at,
          filename: 'otel',
          lineno: 0,
          graph_id: graphId,
          user_id: null,
          project_id: null,
          metadata: inferred ? { inferred } : {},
          edge_id: `edge-${hash16(`${opId}|${s.id}|${t}`)}${edges.length.toString(16)}`,
          op_id: opId,
          category,
          source_full_node_id: s.id,
          target_full_node_id: t,
          comment: null,
          session_id: session,
        } as EdgeRecord);
      }
  }

  if (sentinelNode) {
    ensureSession(SENTINEL.session, '1970-01-01 00:00:00.000');
    const s = sessions.get(SENTINEL.session)!;
    s.category = SENTINEL.category;
    s.comment = 'NONE sentinel';
    nodes.unshift({
      created_at: '1970-01-01 00:00:00.000',
      filename: 'otel',
      lineno: 0,
      graph_id: graphId,
      user_id: null,
      project_id: null,
      metadata: {},
      name: 'NONE',
      version: 1,
      value: 'NONE',
      class_name: 'COMMENT',
      comment: null,
      category: SENTINEL.category,
      session_id: SENTINEL.session,
      full_name: 'COMMENT:NONE',
      node_id: 'NONE@1',
      full_node_id: SENTINEL.variable,
    } as VariableRecord);
  }
  summary.operations = operations.length;
  summary.variables = nodes.length;
  summary.edges = edges.length;
  const first = spans.find((s) => s.start !== null)?.start ?? 0n;
  const doc: TraceDocument = {
    graph_id: graphId,
    user_id: null,
    project_id: null,
    storage_path: null,
    strict: false,
    driver_type: 'in_memory',
    created_at: formatNanos(first),
    metadata: { source_format: file.format, service: serviceName(spans) },
    data: { sessions: [...sessions.values()], nodes, operations, edges },
  };
  return { doc, summary };
}

/**
 * Parent links by span index. Spans are known by trace id + span id, and when a file repeats
 * one, its last span stands for all (`rep`); `parentOf` (by `rep`) is -1 when the parent is
 * not in the file, and `hasChildren` marks the spans some span names as parent.
 */
function spanTree(spans: OtelSpan[]): { rep: Int32Array; parentOf: Int32Array; hasChildren: Uint8Array } {
  const key = (s: OtelSpan) => `${s.traceId}/${s.spanId}`;
  const last = new Map<string, number>();
  spans.forEach((s, i) => {
    last.set(key(s), i);
  });
  const rep = Int32Array.from(spans, (s) => last.get(key(s))!);
  const parentOf = new Int32Array(spans.length).fill(-1);
  const hasChildren = new Uint8Array(spans.length);
  for (const r of last.values()) {
    const s = spans[r];
    if (!s.parentSpanId) continue;
    const p = last.get(`${s.traceId}/${s.parentSpanId}`);
    if (p === undefined) continue;
    parentOf[r] = p;
    hasChildren[p] = 1;
  }
  return { rep, parentOf, hasChildren };
}

/** Execution order: start time, file order breaking ties (a span without a time keeps its place). */
function orderSpans(spans: OtelSpan[]): OtelSpan[] {
  let last = 0n;
  const timed = spans.map((s, i) => {
    if (s.start !== null) last = s.start;
    return { s, t: s.start ?? last, i };
  });
  timed.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i - b.i));
  return timed.map((x) => x.s);
}

function uniqueOpId(span: OtelSpan, used: Set<string>): string {
  const id = `op-${span.spanId}`;
  // Span ids are unique within a trace; two traces in one file may reuse one.
  const out = used.has(id) ? `op-${span.traceId}-${span.spanId}` : id;
  used.add(out);
  return out;
}

const CONTENT_KEYS =
  /^(gen_ai\.(input|output)\.messages|gen_ai\.system_instructions|gen_ai\.memory\.records|gen_ai\.memory\.content|gen_ai\.retrieval\.documents|gen_ai\.tool\.call\.(arguments|result)|gen_ai\.(prompt|completion)\.|input\.value|output\.value|llm\.(input|output)_messages\.|retrieval\.documents\.|reranker\.(input|output)_documents\.|embedding\.embeddings\.)/;

/** The span's other attributes (model, tokens, ids, …) as op metadata: small, never the content twice. */
function spanMetadata(span: OtelSpan, c: SpanContent): JsonObject {
  // The content attributes were deleted when the spans were read. fromEntries defines own
  // properties, so an attribute named "__proto__" stays data instead of setting a prototype.
  const attrs: JsonObject = Object.fromEntries(
    Object.keys(span.attributes).map((k) => {
      const v = span.attributes[k];
      // Numbers and booleans are short; only text and structures can be long.
      const text = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : '';
      return [k, text.length > 2000 ? `${text.slice(0, 2000)}…` : (v as JsonObject[string])];
    }),
  );
  const out: JsonObject = { otel_attributes: attrs };
  if (c.kind) out.otel_kind = c.kind;
  if (!c.hasContent) out.otel_note = 'no content recorded (content capture off?)';
  return out;
}

function judgeOf(
  c: SpanContent,
  hasOwnContent: boolean,
): { evaluation: SpanEvaluation; inline: boolean } | null {
  const e = c.evaluations.find((x) => x.golden !== null && x.score !== null);
  if (!e) return null;
  // An evaluator span (or an evaluation with nothing else around it) is the judge itself;
  // an evaluation event on a generation judges that generation in an op of its own.
  const inline = c.category === 'evaluation' || !hasOwnContent;
  return { evaluation: e, inline };
}

function serviceName(spans: OtelSpan[]): string | null {
  const v: AttrValue | undefined = spans[0]?.resource['service.name'];
  return typeof v === 'string' ? v : null;
}
