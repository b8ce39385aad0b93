/**
 * A smartcomment document → span descriptions for an OpenTelemetry exporter: one span per
 * op (under one span per session, under one root span), with the GenAI memory / inference
 * attribute names or the OpenInference ones, derived from the graph's structure (version
 * chains are memory records, `retrieval` ops are searches, `evaluation` ops are judges).
 * With `exact`, every record also rides along in `memtrace.*` attributes, so importing the
 * file gives back the same document (ids, categories, values, edges, annotations).
 */
import { fnv1a, hex8 } from '../../hash/index.ts';
import { isGenericCategory, isQueryCategory } from '../categories.ts';
import { valueText } from '../pyrepr.ts';
import type { EdgeRecord, OperationRecord, SessionRecord, TraceDocument, VariableRecord } from '../types.ts';

/** The attribute names spans carry: OpenTelemetry's GenAI conventions or OpenInference's. */
export type OtelFlavour = 'genai' | 'openinference';

/** How `documentToSpans` writes spans: the attribute flavour, and whether the records ride along. */
export interface EmitOptions {
  flavour: OtelFlavour;
  /** Carry the document's records in `memtrace.*` attributes (lossless round trip). */
  exact: boolean;
}

/** What the SDK accepts as an attribute value; structured content goes as JSON strings. */
export type SpanAttr = string | number | boolean | string[];

/** One span for an OpenTelemetry exporter, as plain data (ids in hex, times in Unix nanoseconds). */
export interface SpanDescription {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind: 1 internal, 3 client. */
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, SpanAttr>;
  events: { name: string; time: bigint; attributes: Record<string, SpanAttr> }[];
}

/** The attribute names of the exact (`memtrace.*`) records. */
export const MEMTRACE_ATTR = {
  graph: 'memtrace.graph',
  annotations: 'memtrace.annotations',
  session: 'memtrace.session',
  op: 'memtrace.op',
  nodes: 'memtrace.nodes',
  edges: 'memtrace.edges',
} as const;

/** 8 hex digits of FNV-1a from `seed` (ids derived from ids: stable across exports). */
function fnv32(text: string, seed: number): string {
  return hex8(fnv1a(text, 0, text.length, seed));
}

/** The span id an op gets: 16 hex digits derived from its op_id (importing gives op `op-<span id>`). */
export function opSpanId(opId: string): string {
  const hex = /^op-([0-9a-f]{32})$/.exec(opId);
  if (hex) return hex[1].slice(16);
  return fnv32(opId, 0x811c9dc5) + fnv32(opId, 0x9747b28c);
}

/** The trace id of a document: the 32 hex digits of `graph-<hex>`, else derived from the graph id. */
export function traceIdOf(graphId: string): string {
  const hex = /([0-9a-f]{32})$/.exec(graphId);
  if (hex) return hex[1];
  return [0x811c9dc5, 0x9747b28c, 0x01000193, 0x5bd1e995].map((s) => fnv32(graphId, s)).join('');
}

/** `YYYY-MM-DD HH:MM:SS.mmm` (read as UTC) → nanoseconds; null when it is no such time. */
export function timestampNanos(t: unknown): bigint | null {
  if (typeof t !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,3})?/.exec(t);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? ''}Z`);
  return Number.isFinite(ms) ? BigInt(ms) * 1_000_000n : null;
}

interface OpShape {
  inputs: VariableRecord[];
  outputs: VariableRecord[];
}

const LLM_CATEGORIES = /llm|generat|extract|chat|answer|summar/i;

/** The document's lists, with variables by id, edges by op and each op's inputs and outputs. */
interface DocIndex {
  nodes: VariableRecord[];
  ops: OperationRecord[];
  edges: EdgeRecord[];
  sessions: SessionRecord[];
  byId: Map<string, VariableRecord>;
  /** Versions per full name. */
  chainLength: Map<string, number>;
  firstOfChain: Map<string, VariableRecord>;
  opIndex: Map<string, number>;
  /** Edge indexes per op; `looseEdges` name an op that does not exist. */
  edgesOf: number[][];
  looseEdges: number[];
  shapes: OpShape[];
}

function indexDocument(doc: TraceDocument): DocIndex {
  const d = doc.data;
  const nodes = Array.isArray(d.nodes) ? d.nodes : [];
  const ops = Array.isArray(d.operations) ? d.operations : [];
  const edges = Array.isArray(d.edges) ? d.edges : [];
  const sessions = Array.isArray(d.sessions) ? d.sessions : [];
  const byId = new Map<string, VariableRecord>();
  const chainLength = new Map<string, number>();
  const firstOfChain = new Map<string, VariableRecord>();
  for (const n of nodes) {
    const id =
      n.full_node_id ?? `${n.class_name == null ? n.name : `${n.class_name}:${n.name}`}@${n.version}`;
    byId.set(id, n);
    const fn = fullName(n);
    chainLength.set(fn, (chainLength.get(fn) ?? 0) + 1);
    if (!firstOfChain.has(fn)) firstOfChain.set(fn, n);
  }
  const opIndex = new Map<string, number>(ops.map((o, i) => [o.op_id, i]));
  const edgesOf: number[][] = ops.map(() => []);
  const looseEdges: number[] = [];
  edges.forEach((e, i) => {
    const k = opIndex.get(e.op_id);
    if (k === undefined) looseEdges.push(i);
    else edgesOf[k].push(i);
  });
  const shapes = ops.map((_, k) =>
    shapeOf(
      edgesOf[k].map((i) => edges[i]),
      byId,
    ),
  );
  return {
    nodes,
    ops,
    edges,
    sessions,
    byId,
    chainLength,
    firstOfChain,
    opIndex,
    edgesOf,
    looseEdges,
    shapes,
  };
}

/**
 * Memory records: variables with a version history, what searches pick from a store, and
 * every variable of the same (specific) category as those — a chunk no search picked is a record too.
 * What a search returns is a result, not a unit of the store (a reranker reads the first round's results).
 */
function unitTest(ix: DocIndex): (v: VariableRecord) => boolean {
  const { ops, shapes } = ix;
  const results = new Set<string>();
  ops.forEach((o, k) => {
    if (o.category === 'retrieval') for (const v of shapes[k].outputs) results.add(fullName(v));
  });
  const searchedUnits = new Set<string>();
  ops.forEach((o, k) => {
    if (o.category !== 'retrieval') return;
    for (const v of shapes[k].inputs)
      if (!isQuery(v) && !results.has(fullName(v))) searchedUnits.add(fullName(v));
  });
  const recordLike = (v: VariableRecord) =>
    (ix.chainLength.get(fullName(v)) ?? 0) > 1 || searchedUnits.has(fullName(v));
  const unitCategories = new Set<string>();
  for (const n of ix.nodes)
    if (recordLike(n) && !isGenericCategory(String(n.category))) unitCategories.add(String(n.category));
  return (v: VariableRecord) => recordLike(v) || unitCategories.has(String(v.category));
}

/** Which span carries which variable record (exact mode): node indexes per op, per session, and the root's. */
interface NodeHomes {
  ofOp: number[][];
  ofSession: Map<string, number[]>;
  root: number[];
}

/** A variable goes with the first op that touches it, else with its session, else with the root. */
function nodeHomes(ix: DocIndex, exact: boolean): NodeHomes {
  const homes: NodeHomes = { ofOp: ix.ops.map(() => []), ofSession: new Map(), root: [] };
  if (!exact) return homes;
  const nodeHome = new Map<string, number>();
  ix.edges.forEach((e) => {
    const k = ix.opIndex.get(e.op_id);
    if (k === undefined) return;
    for (const id of [e.source_full_node_id, e.target_full_node_id])
      if (!nodeHome.has(id)) nodeHome.set(id, k);
  });
  const sessionIds = new Set(ix.sessions.map((s) => s.session_id));
  ix.nodes.forEach((n, i) => {
    const k = nodeHome.get(n.full_node_id ?? '');
    if (k !== undefined) homes.ofOp[k].push(i);
    else if (sessionIds.has(n.session_id)) {
      const list = homes.ofSession.get(n.session_id) ?? [];
      list.push(i);
      homes.ofSession.set(n.session_id, list);
    } else homes.root.push(i);
  });
  return homes;
}

/** What every span of one document is written from. */
interface EmitContext {
  doc: TraceDocument;
  options: EmitOptions;
  ix: DocIndex;
  homes: NodeHomes;
  traceId: string;
  rootId: string;
  /** Each op's time (null when unreadable), and the earliest and latest of them. */
  times: (bigint | null)[];
  t0: bigint;
  tEnd: bigint;
}

function emitContext(doc: TraceDocument, options: EmitOptions): EmitContext {
  const ix = indexDocument(doc);
  const traceId = traceIdOf(String(doc.graph_id));
  const times = ix.ops.map((o) => timestampNanos(o.created_at));
  const known = times.filter((t): t is bigint => t !== null);
  let t0 = known[0] ?? timestampNanos(doc.created_at) ?? 0n;
  let tEnd = t0;
  for (const t of known) {
    if (t < t0) t0 = t;
    if (t > tEnd) tEnd = t;
  }
  const rootId = fnv32(`root:${traceId}`, 0x811c9dc5) + fnv32(`root:${traceId}`, 0x01000193);
  return { doc, options, ix, homes: nodeHomes(ix, options.exact), traceId, rootId, times, t0, tEnd };
}

/** The root span; in exact mode it carries the header, extra lists, annotations and homeless records. */
function rootSpan(c: EmitContext): SpanDescription {
  const { doc, ix } = c;
  const d = doc.data;
  const { data: _data, ...header } = doc;
  // Null prototype: a list named "__proto__" is carried as data, not set as a prototype.
  const extraData: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(d))
    if (!['nodes', 'edges', 'operations', 'sessions', 'annotations'].includes(k)) extraData[k] = d[k];
  const rootAttrs: Record<string, SpanAttr> =
    c.options.flavour === 'genai'
      ? { 'gen_ai.operation.name': 'invoke_workflow' }
      : { 'openinference.span.kind': 'CHAIN' };
  if (c.options.exact) {
    rootAttrs[MEMTRACE_ATTR.graph] = JSON.stringify({
      header,
      lists: Object.keys(d),
      extra: extraData,
      nodes: c.homes.root.map((i) => [i, ix.nodes[i]]),
      edges: ix.looseEdges.map((i) => [i, ix.edges[i]]),
    });
    if (Array.isArray(d.annotations)) rootAttrs[MEMTRACE_ATTR.annotations] = JSON.stringify(d.annotations);
  }
  return {
    traceId: c.traceId,
    spanId: c.rootId,
    parentSpanId: null,
    name: `memtrace ${doc.graph_id}`,
    kind: 1,
    start: c.t0,
    end: c.tEnd,
    attributes: rootAttrs,
    events: [],
  };
}

function sessionSpan(c: EmitContext, s: SessionRecord, i: number): SpanDescription {
  const attrs: Record<string, SpanAttr> =
    c.options.flavour === 'genai'
      ? { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.conversation.id': s.session_id }
      : { 'openinference.span.kind': 'CHAIN', 'session.id': s.session_id };
  if (c.options.exact) {
    attrs[MEMTRACE_ATTR.session] = JSON.stringify([i, s]);
    const own = c.homes.ofSession.get(s.session_id);
    if (own) attrs[MEMTRACE_ATTR.nodes] = JSON.stringify(own.map((j) => [j, c.ix.nodes[j]]));
  }
  const st = timestampNanos(s.created_at) ?? c.t0;
  return {
    traceId: c.traceId,
    spanId: sessionSpanId(s, i),
    parentSpanId: c.rootId,
    name: `session ${s.session_name ?? s.session_id}`,
    kind: 1,
    start: st,
    end: st,
    attributes: attrs,
    events: [],
  };
}

function sessionSpanId(s: SessionRecord, i: number): string {
  return fnv32(`session:${s.session_id}`, 0x811c9dc5) + fnv32(`session:${i}`, 0x01000193);
}

/** One span per op, under its session's span; an op without a readable time takes the one before's. */
function opSpans(c: EmitContext, sessionSpanIds: Map<string, string>): SpanDescription[] {
  const { ix, options } = c;
  const isUnit = unitTest(ix);
  const out: SpanDescription[] = [];
  let last = c.t0;
  ix.ops.forEach((o, k) => {
    const start = c.times[k] ?? last;
    last = start;
    const shape = ix.shapes[k];
    const std =
      options.flavour === 'genai'
        ? genAiAttributes(o, shape, isUnit, ix.firstOfChain)
        : openInferenceAttributes(o, shape, isUnit);
    const attrs = std.attributes;
    if (options.flavour === 'genai') attrs['gen_ai.conversation.id'] = o.session_id;
    else attrs['session.id'] = o.session_id;
    if (options.exact) {
      attrs[MEMTRACE_ATTR.op] = JSON.stringify([k, o]);
      attrs[MEMTRACE_ATTR.edges] = JSON.stringify(ix.edgesOf[k].map((i) => [i, ix.edges[i]]));
      if (c.homes.ofOp[k].length)
        attrs[MEMTRACE_ATTR.nodes] = JSON.stringify(c.homes.ofOp[k].map((i) => [i, ix.nodes[i]]));
    }
    out.push({
      traceId: c.traceId,
      spanId: opSpanId(o.op_id),
      parentSpanId: sessionSpanIds.get(o.session_id) ?? c.rootId,
      name: std.name,
      kind: std.kind,
      start,
      end: start,
      attributes: attrs,
      events: std.events.map((e) => ({ ...e, time: start })),
    });
  });
  return out;
}

/** The spans of a smartcomment document: a root span, one per session, one per op (see the file's header). */
export function documentToSpans(doc: TraceDocument, options: EmitOptions): SpanDescription[] {
  const c = emitContext(doc, options);
  const sessionSpanIds = new Map<string, string>();
  const sessions = c.ix.sessions.map((s, i) => {
    const span = sessionSpan(c, s, i);
    sessionSpanIds.set(s.session_id, span.spanId);
    return span;
  });
  return [rootSpan(c), ...sessions, ...opSpans(c, sessionSpanIds)];
}

function fullName(n: VariableRecord): string {
  return n.full_name ?? (n.class_name == null ? n.name : `${n.class_name}:${n.name}`);
}

function isQuery(v: VariableRecord): boolean {
  return v.class_name === 'query' || isQueryCategory(String(v.category));
}

/** Inputs = sources that are not targets of the op's edges; outputs = targets that are not sources. */
function shapeOf(opEdges: EdgeRecord[], byId: Map<string, VariableRecord>): OpShape {
  const sources = new Set(opEdges.map((e) => e.source_full_node_id));
  const targets = new Set(opEdges.map((e) => e.target_full_node_id));
  const pickVars = (ids: Set<string>, other: Set<string>) =>
    [...ids]
      .filter((id) => !other.has(id))
      .flatMap((id) => {
        const v = byId.get(id);
        return v && v.category !== 'sentinel' ? [v] : [];
      });
  return { inputs: pickVars(sources, targets), outputs: pickVars(targets, sources) };
}

const text = (v: VariableRecord) => valueText(typeof v.value === 'string' ? v.value : String(v.value));

function message(role: string, v: VariableRecord) {
  return {
    role,
    parts: [{ type: 'text', content: text(v) }],
    ...(v.class_name ? { name: v.class_name } : {}),
  };
}

interface StdAttributes {
  name: string;
  kind: number;
  attributes: Record<string, SpanAttr>;
  events: { name: string; attributes: Record<string, SpanAttr> }[];
}

function genAiAttributes(
  o: OperationRecord,
  shape: OpShape,
  isUnit: (v: VariableRecord) => boolean,
  firstOfChain: Map<string, VariableRecord>,
): StdAttributes {
  const a: Record<string, SpanAttr> = {};
  const events: StdAttributes['events'] = [];
  const storeOf = (v: VariableRecord) => String(firstOfChain.get(fullName(v))?.category ?? 'memory');
  const written = shape.outputs.filter(isUnit);
  const prompts = shape.inputs.filter((v) => v.category === 'prompt');
  const record = (v: VariableRecord) => ({ id: fullName(v), content: text(v) });
  let op: string;
  let rest = shape.inputs.filter((v) => v.category !== 'prompt');
  let outputs = shape.outputs;
  if (o.category === 'evaluation') {
    op = 'evaluate';
    const score = shape.outputs.find((v) => v.class_name === 'judge_score');
    const response = shape.outputs.find((v) => v.class_name === 'judge_response');
    const value = score ? Number(text(score)) : Number.NaN;
    const ev: Record<string, SpanAttr> = { 'gen_ai.evaluation.name': o.op_name ?? 'evaluation' };
    if (Number.isFinite(value)) {
      ev['gen_ai.evaluation.score.value'] = value;
      ev['gen_ai.evaluation.score.label'] = value > 0 ? 'correct' : 'incorrect';
    }
    if (response) ev['gen_ai.evaluation.explanation'] = text(response);
    events.push({ name: 'gen_ai.evaluation.result', attributes: ev });
  } else if (written.length) {
    const deleting = /delet/i.test(String(o.category)) || written.every((v) => text(v) === 'None');
    const created = written.every((v) => v.version === 1);
    op = deleting ? 'delete_memory' : created ? 'create_memory' : 'update_memory';
    const prior = new Set(written.map(fullName));
    rest = rest.filter((v) => !prior.has(fullName(v)));
    outputs = shape.outputs.filter((v) => !isUnit(v));
    a['gen_ai.memory.store.id'] = storeOf(written[0]);
    if (written.length === 1) a['gen_ai.memory.record.id'] = fullName(written[0]);
    a['gen_ai.memory.record.count'] = written.length;
    if (!deleting) a['gen_ai.memory.records'] = JSON.stringify(written.map(record));
    else if (written.length > 1)
      a['gen_ai.memory.records'] = JSON.stringify(written.map((v) => ({ id: fullName(v), content: null })));
  } else if (o.category === 'retrieval') {
    op = 'search_memory';
    const units = rest.filter((v) => isUnit(v) && !isQuery(v));
    const query = rest.find(isQuery);
    rest = rest.filter((v) => !units.includes(v) && v !== query);
    if (units.length) a['gen_ai.memory.store.id'] = storeOf(units[0]);
    if (query) a['gen_ai.memory.query.text'] = text(query);
    a['gen_ai.memory.records'] = JSON.stringify(units.map(record));
    a['gen_ai.memory.record.count'] = units.length;
  } else if (prompts.length || LLM_CATEGORIES.test(String(o.category))) op = 'chat';
  else {
    op = 'execute_tool';
    a['gen_ai.tool.name'] = o.op_name ?? 'tool';
  }
  a['gen_ai.operation.name'] = op;
  if (prompts.length)
    a['gen_ai.system_instructions'] = JSON.stringify(
      prompts.map((v) => ({ type: 'text', content: text(v) })),
    );
  if (rest.length) a['gen_ai.input.messages'] = JSON.stringify(rest.map((v) => message('user', v)));
  if (outputs.length)
    a['gen_ai.output.messages'] = JSON.stringify(
      outputs.map((v) => ({ ...message('assistant', v), finish_reason: 'stop' })),
    );
  const name =
    op === 'chat' || op === 'execute_tool'
      ? `${op} ${o.op_name ?? ''}`.trim()
      : op === 'evaluate'
        ? (o.op_name ?? op)
        : op;
  return { name, kind: op === 'chat' ? 3 : 1, attributes: a, events };
}

function openInferenceAttributes(
  o: OperationRecord,
  shape: OpShape,
  isUnit: (v: VariableRecord) => boolean,
): StdAttributes {
  const a: Record<string, SpanAttr> = {};
  const prompts = shape.inputs.filter((v) => v.category === 'prompt');
  let kind: string;
  if (o.category === 'evaluation') {
    kind = 'EVALUATOR';
    const by = (list: VariableRecord[], cls: string) => list.find((v) => v.class_name === cls);
    const pick = (list: VariableRecord[], cls: string) => {
      const v = by(list, cls);
      return v ? text(v) : null;
    };
    a['input.value'] = JSON.stringify({
      query: pick(shape.inputs, 'query'),
      golden_answers: pick(shape.inputs, 'golden_answers'),
      prediction: pick(shape.inputs, 'prediction'),
    });
    a['input.mime_type'] = 'application/json';
    const score = Number(pick(shape.outputs, 'judge_score'));
    a['output.value'] = JSON.stringify({
      score: Number.isFinite(score) ? score : null,
      label: score > 0 ? 'correct' : 'incorrect',
      explanation: pick(shape.outputs, 'judge_response'),
    });
    a['output.mime_type'] = 'application/json';
  } else if (o.category === 'retrieval') {
    kind = 'RETRIEVER';
    const query = shape.inputs.find(isQuery);
    if (query) a['input.value'] = text(query);
    shape.inputs
      .filter((v) => v !== query && isUnit(v))
      .forEach((v, i) => {
        a[`retrieval.documents.${i}.document.id`] = fullName(v);
        a[`retrieval.documents.${i}.document.content`] = text(v);
      });
  } else if (prompts.length || LLM_CATEGORIES.test(String(o.category))) {
    kind = 'LLM';
    const msgs = [
      ...prompts.map((v) => ['system', v] as const),
      ...shape.inputs.filter((v) => !prompts.includes(v)).map((v) => ['user', v] as const),
    ];
    msgs.forEach(([role, v], i) => {
      a[`llm.input_messages.${i}.message.role`] = role;
      a[`llm.input_messages.${i}.message.content`] = text(v);
      if (v.class_name) a[`llm.input_messages.${i}.message.name`] = v.class_name;
    });
    shape.outputs.forEach((v, i) => {
      a[`llm.output_messages.${i}.message.role`] = 'assistant';
      a[`llm.output_messages.${i}.message.content`] = text(v);
    });
  } else {
    kind = /tool/i.test(String(o.category)) ? 'TOOL' : 'CHAIN';
    const io = (list: VariableRecord[]) =>
      list.length === 1 ? text(list[0]) : JSON.stringify(list.map(text));
    if (shape.inputs.length) a['input.value'] = io(shape.inputs);
    if (shape.outputs.length) a['output.value'] = io(shape.outputs);
  }
  a['openinference.span.kind'] = kind;
  return { name: o.op_name ?? kind.toLowerCase(), kind: kind === 'LLM' ? 3 : 1, attributes: a, events: [] };
}
