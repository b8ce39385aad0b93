/**
 * What one span says it read and wrote, in the words of the convention it follows:
 * OpenTelemetry GenAI (`gen_ai.*`, with the memory spans and the older mem0
 * instrumentation's names), OpenInference (`openinference.span.kind`, flattened indexed
 * attributes, `input.value` / `output.value`), and Langfuse (mapped to OpenInference names by
 * its reader). The graph builder turns these items into variables.
 */
import type { RecordTexts } from './record-texts.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** What part an item plays; it picks the variable's category on first sight. */
export type ItemRole = 'prompt' | 'message' | 'query' | 'output' | 'tool' | 'document' | 'record' | 'value';

export interface ContentItem {
  text: string;
  /** Filled by the graph builder: the text's `textSlot`, computed once. */
  slot?: string;
  role: ItemRole;
  /** A namespace for the variable (smartcomment `class_name`), when the span says which. */
  className?: string;
}

export type MemoryOp = 'create' | 'update' | 'upsert' | 'delete' | 'search' | 'create_store' | 'delete_store';

export interface MemoryRecordRef {
  id: string | null;
  content: string | null;
}

export interface SpanMemory {
  op: MemoryOp;
  store: string | null;
  records: MemoryRecordRef[];
}

export interface SpanEvaluation {
  name: string;
  score: number | null;
  label: string | null;
  explanation: string | null;
  query: string | null;
  golden: string | null;
  prediction: string | null;
}

export interface SpanContent {
  convention: 'genai' | 'openinference' | 'none';
  /** `gen_ai.operation.name` or the OpenInference kind, as written. */
  kind: string | null;
  category: string;
  inputs: ContentItem[];
  outputs: ContentItem[];
  /** Memory-store reads and writes (records by store id + record id). */
  memory: SpanMemory | null;
  evaluations: SpanEvaluation[];
  session: string | null;
  /** Whether the span carried any content attribute (capture may have been off). */
  hasContent: boolean;
}

/** The class names the paper's tools pick the judge's variables by. */
export const JUDGE_CLASSES = [
  'query',
  'golden_answers',
  'prediction',
  'judge_response',
  'judge_score',
] as const;

const GENAI_CATEGORY: Record<string, string> = {
  chat: 'llm_call',
  text_completion: 'llm_call',
  generate_content: 'llm_call',
  embeddings: 'embedding',
  retrieval: 'retrieval',
  search_memory: 'retrieval',
  create_memory: 'update',
  update_memory: 'update',
  upsert_memory: 'update',
  delete_memory: 'deletion',
  create_memory_store: 'update',
  delete_memory_store: 'deletion',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  invoke_workflow: 'workflow',
  plan: 'agent',
  evaluate: 'evaluation',
};

const OI_CATEGORY: Record<string, string> = {
  LLM: 'llm_call',
  EMBEDDING: 'embedding',
  CHAIN: 'chain',
  RETRIEVER: 'retrieval',
  RERANKER: 'retrieval',
  TOOL: 'tool',
  AGENT: 'agent',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluation',
  PROMPT: 'prompt',
};

const MEMORY_OPS: Record<string, MemoryOp> = {
  create_memory: 'create',
  update_memory: 'update',
  upsert_memory: 'upsert',
  delete_memory: 'delete',
  search_memory: 'search',
  create_memory_store: 'create_store',
  delete_memory_store: 'delete_store',
};

function isObject(v: unknown): v is Record<string, AttrValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Any value as text: strings as they are, everything else as JSON. */
export function asText(v: AttrValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/**
 * Collects flattened indexed attributes (`llm.input_messages.0.message.role`) into a list
 * of objects keyed by the rest of the name (`message.role`); a structured list under the
 * prefix itself is accepted too.
 */
export function indexed(attrs: Record<string, AttrValue>, prefix: string): Record<string, AttrValue>[] {
  const direct = maybeJson(attrs[prefix]);
  if (Array.isArray(direct)) return direct.map((x) => (isObject(x) ? flatten(x) : { value: x }));
  const rows: Record<string, AttrValue>[] = [];
  const head = `${prefix}.`;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    const n = Number(dot < 0 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(n) || n < 0 || n > 100_000) continue;
    rows[n] ??= Object.create(null);
    rows[n][dot < 0 ? '' : rest.slice(dot + 1)] = attrs[key];
  }
  return rows.filter(Boolean);
}

/** Nested objects → dotted keys (`{message: {role}}` → `message.role`); lists stay lists. */
export function flatten(
  obj: Record<string, AttrValue>,
  prefix = '',
  out: Record<string, AttrValue> = Object.create(null),
) {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const k = prefix ? `${prefix}.${key}` : key;
    if (isObject(v)) flatten(v, k, out);
    else out[k] = v;
  }
  return out;
}

/** The text of a GenAI message's parts, or an OpenAI-style `content`. */
function messageText(m: AttrValue): string | null {
  if (typeof m === 'string') return m;
  if (!isObject(m)) return asText(m);
  const parts = m.parts;
  if (Array.isArray(parts)) {
    const texts = parts.map((p) =>
      isObject(p) ? (asText(p.content ?? p.result ?? p.arguments ?? null) ?? '') : (asText(p) ?? ''),
    );
    return texts.join('\n');
  }
  if (Array.isArray(m.content))
    return m.content
      .map((p) => (isObject(p) ? (asText(p.text ?? p.content ?? null) ?? '') : (asText(p) ?? '')))
      .join('\n');
  return asText(m.content ?? null);
}

function roleOf(role: AttrValue | undefined): ItemRole {
  if (role === 'system' || role === 'developer') return 'prompt';
  if (role === 'tool') return 'tool';
  return 'message';
}

/** A class name carried by a message (`name`) when it is one the judge rule uses. */
function classOf(name: AttrValue | undefined): string | undefined {
  return typeof name === 'string' && (JUDGE_CLASSES as readonly string[]).includes(name) ? name : undefined;
}

function genAiMessages(v: AttrValue | undefined, output: boolean): ContentItem[] {
  const list = maybeJson(v);
  if (!Array.isArray(list))
    return typeof list === 'string' ? [{ text: list, role: output ? 'output' : 'message' }] : [];
  const items: ContentItem[] = [];
  for (const m of list) {
    const text = messageText(m);
    if (text === null) continue;
    const className = isObject(m) ? classOf(m.name) : undefined;
    items.push({
      text,
      role: output ? 'output' : roleOf(isObject(m) ? m.role : undefined),
      ...(className ? { className } : {}),
    });
  }
  return items;
}

function records(v: AttrValue | undefined): MemoryRecordRef[] {
  const list = maybeJson(v);
  if (!Array.isArray(list)) return [];
  return list.map((r) =>
    isObject(r)
      ? { id: asText(r.id ?? null), content: asText(r.content ?? null) }
      : { id: null, content: asText(r) },
  );
}

const str = (v: AttrValue | undefined) => (typeof v === 'string' && v !== '' ? v : null);

function genAi(span: OtelSpan, op: string, c: SpanContent, texts?: RecordTexts): void {
  const a = span.attributes;
  c.convention = 'genai';
  c.kind = op;
  c.category = GENAI_CATEGORY[op] ?? 'operation';
  const instructions = maybeJson(a['gen_ai.system_instructions']);
  if (Array.isArray(instructions))
    for (const p of instructions) {
      const t = isObject(p) ? asText(p.content ?? null) : asText(p);
      if (t !== null) c.inputs.push({ text: t, role: 'prompt' });
    }
  else if (typeof instructions === 'string') c.inputs.push({ text: instructions, role: 'prompt' });
  c.inputs.push(...genAiMessages(a['gen_ai.input.messages'], false));
  c.outputs.push(...genAiMessages(a['gen_ai.output.messages'], true));
  // Older instrumentations (OpenLLMetry): gen_ai.prompt.N.* / gen_ai.completion.N.*.
  for (const m of indexed(a, 'gen_ai.prompt'))
    if (m.content !== undefined) c.inputs.push({ text: asText(m.content) ?? '', role: roleOf(m.role) });
  for (const m of indexed(a, 'gen_ai.completion'))
    if (m.content !== undefined) c.outputs.push({ text: asText(m.content) ?? '', role: 'output' });
  const toolArgs = asText(a['gen_ai.tool.call.arguments']);
  if (toolArgs !== null) c.inputs.push({ text: toolArgs, role: 'value' });
  const toolResult = asText(a['gen_ai.tool.call.result']);
  if (toolResult !== null) c.outputs.push({ text: toolResult, role: 'output' });

  const retrievalQuery = str(a['gen_ai.retrieval.query.text']);
  if (op === 'retrieval') {
    if (retrievalQuery) c.inputs.push({ text: retrievalQuery, role: 'query' });
    const docs = records(a['gen_ai.retrieval.documents']);
    if (docs.length) c.memory = { op: 'search', store: str(a['gen_ai.data_source.id']), records: docs };
  }
  const memOp = MEMORY_OPS[op];
  if (memOp) {
    const store =
      str(a['gen_ai.memory.store.id']) ?? str(a['gen_ai.memory.namespace']) ?? str(a['gen_ai.memory.scope']);
    const recordId = str(a['gen_ai.memory.record.id']) ?? str(a['gen_ai.memory.id']);
    const raw = a['gen_ai.memory.records'];
    let recs =
      texts && typeof raw === 'string'
        ? texts.read(`${store ?? ''}\u0000${recordId ?? ''}`, raw, records)
        : records(raw);
    const legacyContent = asText(a['gen_ai.memory.content']);
    if (!recs.length && (recordId || legacyContent !== null))
      recs = [{ id: recordId, content: legacyContent }];
    else if (recs.length === 1 && recs[0].id === null && recordId) recs[0].id = recordId;
    c.memory = { op: memOp, store, records: recs };
    const q = str(a['gen_ai.memory.query.text']) ?? str(a['gen_ai.memory.query']);
    if (q) c.inputs.push({ text: q, role: 'query' });
  }
}

/** Keys evaluator inputs use for the question, the golden answer and the answer judged. */
const QUERY_KEYS = ['query', 'question', 'input'];
const GOLDEN_KEYS = [
  'golden_answers',
  'golden_answer',
  'expected_output',
  'expectedOutput',
  'reference',
  'ground_truth',
  'expected',
  'answer',
];
const PREDICTION_KEYS = ['prediction', 'output', 'response', 'completion', 'generated_answer'];

function pick(o: Record<string, AttrValue>, keys: string[]): string | null {
  for (const k of keys) if (Object.hasOwn(o, k) && o[k] !== null && o[k] !== undefined) return asText(o[k]);
  return null;
}

function num(v: AttrValue | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

const PASS = /^(correct|pass|passed|true|yes|right|relevant)$/i;
const FAIL = /^(incorrect|wrong|fail|failed|false|no|not_relevant)$/i;

/** A verdict from `gen_ai.evaluation.*` attributes (or an evaluator's plain keys). */
export function evaluationFrom(a: Record<string, AttrValue>, fallbackName: string): SpanEvaluation {
  const label = str(a['gen_ai.evaluation.score.label']) ?? str(a.label);
  let score = num(a['gen_ai.evaluation.score.value'] ?? a.score ?? a.value);
  if (score === null && label) score = PASS.test(label) ? 1 : FAIL.test(label) ? 0 : null;
  const input = maybeJson(a.input);
  const inObj = isObject(input) ? input : a;
  return {
    name: str(a['gen_ai.evaluation.name']) ?? str(a.name) ?? fallbackName,
    score,
    label,
    explanation: str(a['gen_ai.evaluation.explanation']) ?? str(a.explanation) ?? str(a.comment),
    query: pick(inObj, QUERY_KEYS),
    golden: pick(inObj, GOLDEN_KEYS) ?? pick(a, GOLDEN_KEYS),
    prediction: pick(inObj, PREDICTION_KEYS),
  };
}

function docsOf(rows: Record<string, AttrValue>[]): MemoryRecordRef[] {
  return rows.map((d) => ({
    id: asText(d['document.id'] ?? d.id ?? null),
    content: asText(d['document.content'] ?? d.content ?? null),
  }));
}

function oiMessages(rows: Record<string, AttrValue>[], output: boolean): ContentItem[] {
  return rows.map((m) => {
    let text = asText(m['message.content'] ?? null);
    if (text === null) {
      const parts = indexed(m, 'message.contents').map(
        (p) => asText(p['message_content.text'] ?? null) ?? '',
      );
      text = parts.join('\n');
    }
    const className = classOf(m['message.name']);
    return {
      text,
      role: output ? ('output' as const) : roleOf(m['message.role']),
      ...(className ? { className } : {}),
    };
  });
}

/** `input.value` / `output.value`: JSON when the mime type says so (or it parses), else text. */
function ioValue(a: Record<string, AttrValue>, which: 'input' | 'output'): AttrValue | undefined {
  const v = a[`${which}.value`];
  if (v === undefined) return undefined;
  const mime = a[`${which}.mime_type`];
  return mime === 'text/plain' ? v : maybeJson(v);
}

/** Messages when the value is a list of `{role, content}` (Langfuse generations), else one item. */
function ioItems(v: AttrValue | undefined, output: boolean): ContentItem[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v) && v.length && v.every((m) => isObject(m) && 'role' in m))
    return genAiMessages(v, output);
  const text = asText(v);
  return text === null ? [] : [{ text, role: output ? 'output' : 'value' }];
}

function openInference(span: OtelSpan, kind: string, c: SpanContent): void {
  const a = span.attributes;
  c.convention = 'openinference';
  c.kind = kind;
  c.category = OI_CATEGORY[kind] ?? 'operation';
  const input = ioValue(a, 'input');
  const output = ioValue(a, 'output');
  const template = str(a['llm.prompt_template.template']);
  if (template) c.inputs.push({ text: template, role: 'prompt' });
  const inMsgs = oiMessages(indexed(a, 'llm.input_messages'), false);
  const outMsgs = oiMessages(indexed(a, 'llm.output_messages'), true);
  if (kind === 'EVALUATOR') {
    const inObj = isObject(input) ? input : {};
    const outObj = isObject(output) ? output : {};
    const e = evaluationFrom({ ...flatten(a), ...outObj, input: inObj as AttrValue }, span.name);
    e.query ??= typeof input === 'string' ? input : null;
    c.evaluations.push(e);
    return;
  }
  c.inputs.push(...(inMsgs.length ? inMsgs : kind === 'RETRIEVER' ? [] : ioItems(input, false)));
  if (kind === 'RETRIEVER') {
    const q = typeof input === 'string' ? input : asText(input ?? null);
    if (q !== null) c.inputs.push({ text: q, role: 'query' });
    const docs = docsOf(indexed(a, 'retrieval.documents'));
    if (docs.length) c.memory = { op: 'search', store: str(a['metadata.store']) ?? null, records: docs };
    else c.outputs.push(...ioItems(output, true));
    return;
  }
  if (kind === 'RERANKER') {
    const q = str(a['reranker.query']);
    if (q) c.inputs.push({ text: q, role: 'query' });
    for (const d of docsOf(indexed(a, 'reranker.input_documents')))
      if (d.content !== null) c.inputs.push({ text: d.content, role: 'document' });
    const out = docsOf(indexed(a, 'reranker.output_documents'));
    if (out.length) c.outputs.push({ text: JSON.stringify(out.map((d) => d.content)), role: 'output' });
    return;
  }
  if (kind === 'EMBEDDING')
    for (const e of indexed(a, 'embedding.embeddings')) {
      const t = asText(e['embedding.text'] ?? null);
      if (t !== null) c.inputs.push({ text: t, role: 'value' });
    }
  c.outputs.push(...(outMsgs.length ? outMsgs : ioItems(output, true)));
}

/**
 * Reads one span's content by the first convention it follows. With `texts`, memory
 * records are read through it (the contents then arrive at `texts.flush()`).
 */
export function spanContent(span: OtelSpan, texts?: RecordTexts): SpanContent {
  const a = span.attributes;
  const c: SpanContent = {
    convention: 'none',
    kind: null,
    category: 'span',
    inputs: [],
    outputs: [],
    memory: null,
    evaluations: [],
    session: str(a['session.id']) ?? str(a['gen_ai.conversation.id']),
    hasContent: false,
  };
  let op = str(a['gen_ai.operation.name']);
  // The community mem0 instrumentation names spans `update_memory mem0` without the attribute.
  const first = span.name.split(' ')[0];
  if (!op && MEMORY_OPS[first] && span.name.includes(' ')) op = first;
  const oiKind = str(a['openinference.span.kind']);
  if (op) genAi(span, op, c, texts);
  else if (oiKind) openInference(span, oiKind.toUpperCase(), c);
  else {
    // No convention: plain input/output values still count, e.g. a hand-instrumented span.
    c.inputs.push(...ioItems(ioValue(a, 'input'), false));
    c.outputs.push(...ioItems(ioValue(a, 'output'), true));
  }
  // Evaluation results are events on the span they judge, in every convention (Langfuse scores too).
  for (const e of span.events)
    if (e.name === 'gen_ai.evaluation.result') c.evaluations.push(evaluationFrom(e.attributes, span.name));
  if (c.kind === 'evaluate' && !c.evaluations.length) c.evaluations.push(evaluationFrom(a, span.name));
  // A judge's question, golden answer and answer may be its own input messages, named by class.
  for (const e of c.evaluations) {
    const named = (cls: string) => c.inputs.find((x) => x.className === cls)?.text ?? null;
    e.query ??= named('query');
    e.golden ??= named('golden_answers');
    e.prediction ??= named('prediction');
  }
  c.hasContent =
    c.inputs.length > 0 ||
    c.outputs.length > 0 ||
    c.evaluations.length > 0 ||
    (c.memory !== null &&
      (c.memory.records.length > 0 || c.memory.op === 'delete' || c.memory.op.endsWith('store')));
  return c;
}
