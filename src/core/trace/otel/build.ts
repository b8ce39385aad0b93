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
 * the failed questions show up as cases. The spans are read, never changed.
 */

import type { JsonObject, TraceDocument } from '../types.ts';
import { type SpanContent, type SpanEvaluation, spanContent } from './content.ts';
import { GraphWriter, slotOf } from './graph-writer.ts';
import { RecordTexts } from './record-texts.ts';
import type { OtelSpan, SpanFile } from './span.ts';
import { evaluatedTexts, MemoryRecords, SpanOp } from './span-op.ts';
import { containerShape, spanShape } from './span-shape.ts';
import { TextMap } from './text-map.ts';
import { type AttrValue, formatNanos } from './values.ts';
import { NameCounter, type NamedCount, unreadTextKeys } from './warnings.ts';

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
  /** Spans of no known kind (no GenAI, OpenInference, Vercel, Traceloop or Langfuse kind). */
  unknownKind: number;
  /** Spans without content whose only role is to hold child spans: not ops. */
  containers: number;
  /** Evaluations that made no case: no score, or without a golden answer no pass/fail verdict (`caseVerdict`). */
  evaluationsWithoutGolden: number;
  /** Attributes (and `event NAME: KEY`s) with text no reader took. */
  unreadText: NamedCount[];
  /** The containers by kind (or span name). */
  notOps: NamedCount[];
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
    unreadText: [],
    notOps: [],
  };
}

/** Class names (query, prediction, …) are said once (by the judge) but hold for the same text everywhere. */
function judgeClasses(contents: SpanContent[]): TextMap<string> {
  const classOf = new TextMap<string>();
  const carried = new Set(['query', 'golden_answers', 'prediction']);
  for (const c of contents) {
    for (const it of [...c.inputs, ...c.outputs])
      if (it.className && carried.has(it.className)) classOf.set(it.text, it.className);
    for (const e of c.evaluations) {
      // A verdict on a span's answer (an event, a score) names its question and answer too.
      const { query, prediction } = caseVerdict(e) === null ? e : evaluatedTexts(c, e);
      if (query !== null && !classOf.has(query)) classOf.set(query, 'query');
      if (prediction !== null && !classOf.has(prediction)) classOf.set(prediction, 'prediction');
    }
  }
  return classOf;
}

type Tree = ReturnType<typeof spanTree>;

/** Per span (by `rep`) with outputs and children: the outputs its descendants write. */
function descendantOutputs(
  spans: OtelSpan[],
  contents: SpanContent[],
  tree: Tree,
): Map<number, TextMap<true>> {
  const { rep, parentOf, hasChildren } = tree;
  const out = new Map<number, TextMap<true>>();
  const writers = new Uint8Array(spans.length);
  let anyWriter = false;
  spans.forEach((_, i) => {
    if (!contents[i].outputs.length || !hasChildren[rep[i]]) return;
    writers[rep[i]] = 1;
    anyWriter = true;
  });
  if (!anyWriter) return out;
  const seen = new Int32Array(spans.length).fill(-1); // the span whose ancestors were walked last
  spans.forEach((_, i) => {
    for (let p = parentOf[rep[i]]; p >= 0 && seen[p] !== i; p = parentOf[p]) {
      seen[p] = i;
      if (!writers[p]) continue;
      const set = out.get(p) ?? new TextMap<true>();
      out.set(p, set);
      for (const o of contents[i].outputs) set.set(o.text, true, slotOf(o));
    }
  });
  return out;
}

/** Everything the build needs across spans. */
interface Build {
  g: GraphWriter;
  records: MemoryRecords;
  tree: Tree;
  skips: Map<number, TextMap<true>>;
  summary: OtelImportSummary;
  unread: NameCounter;
  notOps: NameCounter;
  usedOpIds: Set<string>;
  /** By span (`rep`): the latest session seen. */
  sessionOfSpan: (string | undefined)[];
  /** Score ops, written after every span: they read answers that later spans may write. */
  scores: (() => void)[];
  /** Container spans (not ops), kept for the span view. */
  containers: JsonObject[];
}

/** Counts a span's convention, and what it could not give (no content, text not read): false when it is no op. */
function countSpan(b: Build, span: OtelSpan, c: SpanContent, k: number): boolean {
  b.summary.byConvention[c.convention] = (b.summary.byConvention[c.convention] ?? 0) + 1;
  if (c.convention === 'none') b.summary.unknownKind++;
  for (const key of unreadTextKeys(span, c)) b.unread.add(key);
  if (c.hasContent) return true;
  if (b.tree.hasChildren[k]) {
    b.summary.containers++;
    b.notOps.add(c.kind ?? span.name ?? '(no name)');
    return false;
  }
  b.summary.withoutContent++;
  return true;
}

/** Categories whose inputs are never a memory write (model calls, searches, judges, embeddings). */
const NOT_STORES = new Set([
  'llm_call',
  'retrieval',
  'evaluation',
  'embedding',
  'prompt',
  'agent',
  'workflow',
]);

/** One span → an op (with its variables and edges), and judge ops for evaluations of its answer. */
function addSpan(b: Build, span: OtelSpan, c: SpanContent, i: number): void {
  const k = b.tree.rep[i];
  const parent = b.tree.parentOf[k];
  const session =
    c.session ?? (parent >= 0 ? b.sessionOfSpan[parent] : undefined) ?? `trace-${span.traceId || 'unknown'}`;
  b.sessionOfSpan[k] = session;
  if (!countSpan(b, span, c, k)) {
    b.containers.push(containerShape(span, c.kind));
    return;
  }
  const at = formatNanos(span.start ?? 0n);
  b.g.ensureSession(session, at);
  const op = new SpanOp(b.g, b.records, uniqueOpId(span, b.usedOpIds), session, at, b.skips.get(k));
  const stores = !NOT_STORES.has(c.category) && !c.memory;
  for (const it of c.inputs) {
    const varId = op.readItem(it);
    if (stores)
      b.g.fileStored(it.text, { varId, inputs: op.inputs, opId: op.opId, category: c.category, session, at });
  }
  if (c.memory?.op === 'search') op.readSearch(c.memory, c.outputs.length > 0);
  else if (c.memory) op.writeRecords(c.memory);
  const metadata: JsonObject = { span_id: span.spanId, trace_id: span.traceId, ...spanMetadata(span, c) };
  metadata.otel_span = spanShape(span);
  const judge = judgeOf(c, op.inputs.length > 0 || op.outputs.length > 0 || c.outputs.length > 0);
  // A judge's own output messages are its verdict, written below as judge variables.
  if (!judge?.inline) for (const it of c.outputs) op.writeItem(it);
  let opName = span.name || null;
  // Memory spans are named by their operation alone; the store tells a buffer's update from an index's.
  if (c.memory?.store && opName && !opName.includes(c.memory.store)) opName = `${opName} ${c.memory.store}`;
  let category = c.category;
  if (judge?.inline) {
    opName = 'llm-judge';
    category = 'evaluation';
    metadata.span_name = span.name;
    op.judgeInline(judge.evaluation);
    b.summary.cases++;
  }
  b.g.addOperation(
    op.opId,
    opName,
    category,
    session,
    at,
    metadata,
    span.status.message ?? exceptionOf(span),
  );
  b.g.writeEdges(op.opId, category, session, at, op.inputs, op.outputs);
  if (op.outputs.length)
    b.g.opWrites.set(op.opId, { inputs: op.inputs, opId: op.opId, category, session, at });
  // A later prompt holding a search's query took the search's result, even an empty one.
  if (category === 'retrieval')
    for (const q of c.inputs) if (q.role === 'query') for (const id of op.outputs) b.g.fileUnits(q.text, id);
  for (const [index, e] of c.evaluations.entries()) {
    if (judge?.inline && judge.source === e) continue;
    const verdict = caseVerdict(e);
    if (verdict === null) {
      b.summary.evaluationsWithoutGolden++;
      const end = formatNanos(span.end ?? span.start ?? 0n);
      b.scores.push(() => op.scoreOp(c, e, index, span.spanId, end));
    } else {
      op.evaluationOp(c, { ...e, score: verdict }, index, span.spanId);
      b.summary.cases++;
    }
  }
}

/** Spans → a document and what became of them (`file` is read, not changed). */
export function spansToDocument(file: SpanFile): { doc: TraceDocument; summary: OtelImportSummary } {
  const spans = orderSpans(file.spans);
  // Records rewritten span after span (windows, transcripts) are read and kept once (`record-texts.ts`).
  const recordTexts = new RecordTexts();
  const contents = spans.map((span) => spanContent(span, recordTexts));
  recordTexts.flush();
  const graphId = `graph-${spans[0]?.traceId || '0'.repeat(32)}`.slice(0, 38);
  const tree = spanTree(spans);
  const b: Build = {
    g: new GraphWriter(graphId, judgeClasses(contents)),
    records: new MemoryRecords(),
    tree,
    skips: descendantOutputs(spans, contents, tree),
    summary: emptySummary(file, 'inferred'),
    unread: new NameCounter(),
    notOps: new NameCounter(),
    usedOpIds: new Set(),
    scores: [],
    sessionOfSpan: [],
    containers: [],
  };
  for (const [i, span] of spans.entries()) addSpan(b, span, contents[i], i);
  for (const write of b.scores) write();
  const { g, summary } = b;
  const first = spans.find((s) => s.start !== null)?.start ?? 0n;
  const doc = g.document({
    graph_id: graphId,
    user_id: null,
    project_id: null,
    storage_path: null,
    strict: false,
    driver_type: 'in_memory',
    created_at: formatNanos(first),
    metadata: { source_format: file.format, service: serviceName(spans), otel_containers: b.containers },
  });
  Object.assign(summary, {
    operations: g.operations.length,
    variables: g.nodes.length,
    edges: g.edges.length,
    inferredEdges: g.inferredEdges,
    unreadText: b.unread.list(),
    notOps: b.notOps.list(),
  });
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

/**
 * Execution order: start time, then — SDKs stamp starts in whole milliseconds, so many spans
 * tie — the earliest end among the span and its children that started in the same millisecond
 * (sequential siblings end in order; a parent comes no later than its first child), then depth,
 * then file order (a span without a time keeps its place).
 */
function orderSpans(spans: OtelSpan[]): OtelSpan[] {
  let last = 0n;
  const timed = spans.map((s, i) => {
    if (s.start !== null) last = s.start;
    return { s, t: s.start ?? last, i, end: s.end ?? s.start ?? last, depth: 0 };
  });
  const byId = new Map(timed.map((x) => [`${x.s.traceId}/${x.s.spanId}`, x]));
  const parentOf = (x: (typeof timed)[number]) =>
    x.s.parentSpanId ? byId.get(`${x.s.traceId}/${x.s.parentSpanId}`) : undefined;
  // Deepest first is not needed: each span pushes its end up the chain of same-start ancestors.
  for (const x of timed) {
    let depth = 0;
    for (let p = parentOf(x), n = 0; p && n < 10_000; p = parentOf(p), n++) depth++;
    x.depth = depth;
    for (let c = x, p = parentOf(x), n = 0; p && p.t === c.t && n < 10_000; c = p, p = parentOf(p), n++)
      if (x.end < p.end) p.end = x.end;
  }
  const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
  timed.sort((a, b) => cmp(a.t, b.t) || cmp(a.end, b.end) || a.depth - b.depth || a.i - b.i);
  return timed.map((x) => x.s);
}

function uniqueOpId(span: OtelSpan, used: Set<string>): string {
  const id = `op-${span.spanId}`;
  // Span ids are unique within a trace; two traces in one file may reuse one.
  const out = used.has(id) ? `op-${span.traceId}-${span.spanId}` : id;
  used.add(out);
  return out;
}

/** Attributes that carry content (read into variables): not repeated in the op's metadata. */
const CONTENT_KEYS =
  /^(gen_ai\.(input|output)\.messages|gen_ai\.system_instructions|gen_ai\.memory\.records|gen_ai\.memory\.content|gen_ai\.retrieval\.documents|gen_ai\.tool\.call\.(arguments|result)|gen_ai\.(prompt|completion)(\.|$)|gen_ai\.content\.|input\.value|output\.value|llm\.(input|output)_messages\.|retrieval\.documents|reranker\.(input|output)_documents|embedding\.embeddings\.|ai\.prompt|ai\.response\.(text|object|toolCalls)|ai\.toolCall\.(args|input|result|output)|ai\.values?$|ai\.embeddings?$|traceloop\.entity\.(input|output)|langwatch\.(input|output)|langfuse\.(observation|trace)\.(input|output)$|gen_ai\.(tool\.definitions|agent\.tools|tool\.description|system\.instructions)$|system_prompt$|llm\.tools\.|llm\.request\.functions\.|tool\.(description|parameters)$)/;

/** The span's other attributes (model, tokens, ids, …) as op metadata: small, never the content twice. */
function spanMetadata(span: OtelSpan, c: SpanContent): JsonObject {
  // fromEntries defines own properties, so an attribute named "__proto__" stays data instead of
  // setting a prototype.
  const attrs: JsonObject = Object.fromEntries(
    Object.keys(span.attributes)
      .filter((k) => !CONTENT_KEYS.test(k))
      .map((k) => {
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

/** Evaluations whose score does not say "the answer is right" (higher is worse, or not about the answer: a retrieval's relevance). */
const NOT_CORRECTNESS = /halluc|toxic|bias|harm|pii|jailbreak|latency|cost|token|relevan/i;

/**
 * Does an evaluation make a case? With a golden answer, any score does; without one, only a
 * pass/fail verdict: a label that says so, or a 0/1 score of an evaluation that is about the
 * answer being right (a toxicity of 0 is no failed answer). The verdict is then its score.
 */
export function caseVerdict(e: SpanEvaluation): number | null {
  if (e.score === null) return null;
  if (e.golden !== null) return e.score;
  if (
    e.label !== null &&
    /^(correct|pass|passed|true|yes|right|incorrect|wrong|fail|failed|false|no)$/i.test(e.label)
  )
    return /^(correct|pass|passed|true|yes|right)$/i.test(e.label) ? 1 : 0;
  if (NOT_CORRECTNESS.test(e.name)) return null;
  return e.score === 0 || e.score === 1 ? e.score : null;
}

function judgeOf(
  c: SpanContent,
  hasOwnContent: boolean,
): { evaluation: SpanEvaluation; source: SpanEvaluation; inline: boolean } | null {
  const found = c.evaluations.find((x) => caseVerdict(x) !== null);
  const e = found && { ...found, score: caseVerdict(found) };
  if (!e) return null;
  // An evaluator span (or an evaluation with nothing else around it) is the judge itself;
  // an evaluation event on a generation judges that generation in an op of its own.
  const inline = c.category === 'evaluation' || !hasOwnContent;
  return { evaluation: e, source: found, inline };
}

/** The message of a span's `exception` event, for an op whose status says none. */
function exceptionOf(span: OtelSpan): string | null {
  const e = span.events.find((x) => x.name === 'exception');
  const m = e?.attributes['exception.message'];
  return typeof m === 'string' && m ? m : null;
}

function serviceName(spans: OtelSpan[]): string | null {
  const v: AttrValue | undefined = spans[0]?.resource['service.name'];
  return typeof v === 'string' ? v : null;
}
