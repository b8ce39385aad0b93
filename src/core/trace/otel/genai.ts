/**
 * The OpenTelemetry GenAI conventions (names from `@opentelemetry/semantic-conventions`):
 * `gen_ai.operation.name`; messages as attributes (`gen_ai.input.messages`, …) or as span
 * events — the older per-message events (`gen_ai.user.message`, `gen_ai.choice`, …), OpenLIT's
 * `gen_ai.content.prompt` / `gen_ai.content.completion`, the newer
 * `gen_ai.client.inference.operation.details`; the older flattened `gen_ai.prompt.N.*` /
 * `gen_ai.completion.N.*` (OpenLLMetry); tool calls, retrieval; and the memory spans (store id +
 * record id + records, also the older mem0 instrumentation's names).
 */
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_DATA_SOURCE_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_RETRIEVAL_DOCUMENTS,
  ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  EVENT_GEN_AI_ASSISTANT_MESSAGE,
  EVENT_GEN_AI_CHOICE,
  EVENT_GEN_AI_SYSTEM_MESSAGE,
  EVENT_GEN_AI_TOOL_MESSAGE,
  EVENT_GEN_AI_USER_MESSAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import { appendAll } from '../../arrays.ts';
import { type Attrs, asText, indexed, isObject, str } from './attrs.ts';
import { unwrap } from './io-values.ts';
import type { SpanContent } from './items.ts';
import {
  type ContentItem,
  type MemoryOp,
  type MemoryRecordRef,
  messageItems,
  roleOf,
  valueItems,
} from './items.ts';
import { type ChatMessage, chatMessages, expandToolCalls, roleLines } from './messages.ts';
import type { RecordTexts } from './record-texts.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** Op categories by `gen_ai.operation.name` (a Map: the name comes from the file). */
export const GENAI_CATEGORY: ReadonlyMap<string, string> = new Map([
  ['chat', 'llm_call'],
  ['text_completion', 'llm_call'],
  ['generate_content', 'llm_call'],
  ['embeddings', 'embedding'],
  ['retrieval', 'retrieval'],
  ['search_memory', 'retrieval'],
  ['create_memory', 'update'],
  ['update_memory', 'update'],
  ['upsert_memory', 'update'],
  ['delete_memory', 'deletion'],
  ['create_memory_store', 'update'],
  ['delete_memory_store', 'deletion'],
  ['execute_tool', 'tool'],
  ['invoke_agent', 'agent'],
  ['create_agent', 'agent'],
  ['invoke_workflow', 'workflow'],
  ['plan', 'agent'],
  ['evaluate', 'evaluation'],
]);

/** Memory operations (proposed GenAI memory conventions; not in the semantic-conventions package yet). */
export const MEMORY_OPS: ReadonlyMap<string, MemoryOp> = new Map([
  ['create_memory', 'create'],
  ['update_memory', 'update'],
  ['upsert_memory', 'upsert'],
  ['delete_memory', 'delete'],
  ['search_memory', 'search'],
  ['create_memory_store', 'create_store'],
  ['delete_memory_store', 'delete_store'],
]);

/** OpenLIT's events, older than the per-message ones; their attributes carry the whole prompt / completion. */
const CONTENT_PROMPT_EVENT = 'gen_ai.content.prompt';
const CONTENT_COMPLETION_EVENT = 'gen_ai.content.completion';

/** Messages of a prompt / completion text: OpenLIT's `role: content` lines, JSON messages, or the text. */
function promptMessages(v: AttrValue | undefined): ChatMessage[] {
  if (typeof v === 'string') return roleLines(v) ?? chatMessages(v) ?? [];
  return chatMessages(v) ?? (v === undefined || v === null ? [] : [{ role: null, text: asText(v) ?? '' }]);
}

/**
 * A whole prompt / completion as items: its messages, else (LangSmith writes its run's inputs
 * and outputs so: `{"question": …}`) the value inside the usual wrappers, kept as written.
 */
function promptItems(v: AttrValue | undefined, output: boolean): ContentItem[] {
  const messages = promptMessages(v);
  if (messages.length) return messageItems(messages, output);
  return valueItems(unwrap(v), output, true);
}

/**
 * Input and output messages, as span attributes or as an event's attributes; an event's system
 * instructions too (a span's are read with the rest it was given, `given.ts`).
 */
function readMessageAttributes(a: Attrs, c: SpanContent, instructions = false): void {
  if (instructions)
    for (const m of chatMessages(a[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]) ?? [])
      c.inputs.push({ text: m.text, role: 'prompt' });
  appendAll(c.inputs, messageItems(chatMessages(a[ATTR_GEN_AI_INPUT_MESSAGES]) ?? [], false));
  appendAll(c.outputs, messageItems(chatMessages(a[ATTR_GEN_AI_OUTPUT_MESSAGES]) ?? [], true));
}

/** OpenLLMetry's flattened `gen_ai.prompt.N.{role,content}` / `gen_ai.completion.N.*` (or one whole text). */
function readLegacyPrompts(a: Attrs, c: SpanContent): void {
  const rows = (prefix: string): ChatMessage[] =>
    expandToolCalls(
      indexed(a, prefix).map((m) => ({
        role: str(m.role),
        text: asText(m.content ?? null) ?? '',
        calls: indexed(m, 'tool_calls').map((t) => ({
          name: str(t.name),
          args: asText(t.arguments ?? null),
        })),
      })),
    );
  const read = (key: string, output: boolean) =>
    typeof a[key] === 'string'
      ? promptItems(a[key], output)
      : messageItems(
          rows(key).filter((m) => m.text !== ''),
          output,
        );
  appendAll(c.inputs, read(ATTR_GEN_AI_PROMPT, false));
  appendAll(c.outputs, read(ATTR_GEN_AI_COMPLETION, true));
}

function readToolCall(a: Attrs, c: SpanContent): void {
  const args = asText(a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]);
  if (args !== null) c.inputs.push({ text: args, role: 'value' });
  const result = asText(a[ATTR_GEN_AI_TOOL_CALL_RESULT]);
  if (result !== null) c.outputs.push({ text: result, role: 'output' });
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

function readRetrieval(a: Attrs, c: SpanContent): void {
  const query = str(a[ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT]);
  if (query) c.inputs.push({ text: query, role: 'query' });
  const docs = records(a[ATTR_GEN_AI_RETRIEVAL_DOCUMENTS]);
  if (docs.length) c.memory = { op: 'search', store: str(a[ATTR_GEN_AI_DATA_SOURCE_ID]), records: docs };
}

function readMemory(a: Attrs, op: MemoryOp, c: SpanContent, texts?: RecordTexts): void {
  const store =
    str(a['gen_ai.memory.store.id']) ?? str(a['gen_ai.memory.namespace']) ?? str(a['gen_ai.memory.scope']);
  const recordId = str(a['gen_ai.memory.record.id']) ?? str(a['gen_ai.memory.id']);
  const raw = a['gen_ai.memory.records'];
  let recs =
    texts && typeof raw === 'string'
      ? texts.read(`${store ?? ''}\u0000${recordId ?? ''}`, raw, records)
      : records(raw);
  const legacyContent = asText(a['gen_ai.memory.content']);
  if (!recs.length && (recordId || legacyContent !== null)) recs = [{ id: recordId, content: legacyContent }];
  else if (recs.length === 1 && recs[0].id === null && recordId) recs[0].id = recordId;
  c.memory = { op, store, records: recs };
  const q = str(a['gen_ai.memory.query.text']) ?? str(a['gen_ai.memory.query']);
  if (q) c.inputs.push({ text: q, role: 'query' });
}

/** What a span's GenAI attributes say it read and wrote (`op`: its operation name, when it has one). */
export function readGenAi(span: OtelSpan, op: string | null, c: SpanContent, texts?: RecordTexts): void {
  const a = span.attributes;
  readMessageAttributes(a, c);
  readLegacyPrompts(a, c);
  readToolCall(a, c);
  if (op === 'retrieval') readRetrieval(a, c);
  const memOp = op === null ? undefined : MEMORY_OPS.get(op);
  if (memOp) readMemory(a, memOp, c, texts);
}

/** The message of a per-message event: its `content` (or a choice's `message`) and tool calls. */
function eventMessage(e: Attrs, role: string): AttrValue {
  const message = maybeJson(e.message);
  if (isObject(message)) return message;
  return {
    role: str(e.role) ?? role,
    content: maybeJson(message ?? e.content ?? null) ?? null,
    tool_calls: maybeJson(e.tool_calls ?? null) ?? null,
  };
}

const INPUT_EVENTS: ReadonlyMap<string, string> = new Map([
  [EVENT_GEN_AI_SYSTEM_MESSAGE, 'system'],
  [EVENT_GEN_AI_USER_MESSAGE, 'user'],
  [EVENT_GEN_AI_ASSISTANT_MESSAGE, 'assistant'],
  [EVENT_GEN_AI_TOOL_MESSAGE, 'tool'],
]);

function eventItems(name: string, e: Attrs): { inputs: ContentItem[]; outputs: ContentItem[] } {
  const inputRole = INPUT_EVENTS.get(name);
  if (inputRole) {
    const messages = chatMessages(eventMessage(e, inputRole)) ?? [];
    return {
      inputs: messages.map((m) => ({ text: m.text, role: roleOf(m.role ?? inputRole) })),
      outputs: [],
    };
  }
  if (name === EVENT_GEN_AI_CHOICE) {
    // Strands also puts the result of the tool the choice called on the choice.
    const toolResult = chatMessages(e['tool.result']) ?? [];
    const messages = [...(chatMessages(eventMessage(e, 'assistant')) ?? []), ...toolResult];
    return { inputs: [], outputs: messageItems(messages, true) };
  }
  if (name === CONTENT_PROMPT_EVENT)
    return { inputs: promptItems(e[ATTR_GEN_AI_PROMPT], false), outputs: [] };
  if (name === CONTENT_COMPLETION_EVENT)
    return { inputs: [], outputs: promptItems(e[ATTR_GEN_AI_COMPLETION], true) };
  return { inputs: [], outputs: [] };
}

/**
 * What a span's GenAI events say it read and wrote: the per-message events, OpenLIT's content
 * events, and any event with the message attributes (`gen_ai.client.inference.operation.details`).
 */
export function readGenAiEvents(span: OtelSpan, c: SpanContent): void {
  for (const e of span.events) {
    const { inputs, outputs } = eventItems(e.name, e.attributes);
    appendAll(c.inputs, inputs);
    appendAll(c.outputs, outputs);
    readMessageAttributes(e.attributes, c, true);
  }
}
