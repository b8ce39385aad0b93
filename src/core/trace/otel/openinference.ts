/**
 * The OpenInference conventions (Arize Phoenix; names from
 * `@arizeai/openinference-semantic-conventions`): `openinference.span.kind`, flattened indexed
 * messages and documents (`llm.input_messages.N.message.*`, `retrieval.documents.N.document.*`),
 * `input.value` / `output.value` with their mime types. Langfuse observations arrive here too,
 * mapped to these names by their reader; a span of no convention is read by its values alone.
 */
import {
  DOCUMENT_CONTENT,
  DOCUMENT_ID,
  EMBEDDING_EMBEDDINGS,
  EMBEDDING_TEXT,
  INPUT_MIME_TYPE,
  INPUT_VALUE,
  LLM_INPUT_MESSAGES,
  LLM_OUTPUT_MESSAGES,
  MESSAGE_CONTENT,
  MESSAGE_CONTENT_TEXT,
  MESSAGE_CONTENTS,
  MESSAGE_NAME,
  MESSAGE_ROLE,
  MESSAGE_TOOL_CALLS,
  OUTPUT_MIME_TYPE,
  OUTPUT_VALUE,
  PROMPT_TEMPLATE_TEMPLATE,
  RERANKER_INPUT_DOCUMENTS,
  RERANKER_OUTPUT_DOCUMENTS,
  RERANKER_QUERY,
  RETRIEVAL_DOCUMENTS,
  TOOL_CALL_FUNCTION_ARGUMENTS_JSON,
  TOOL_CALL_FUNCTION_NAME,
} from '@arizeai/openinference-semantic-conventions';
import { ATTR_GEN_AI_RETRIEVAL_DOCUMENTS } from '@opentelemetry/semantic-conventions/incubating';
import { appendAll } from '../../arrays.ts';
import { type Attrs, asText, flatten, indexed, isObject, str } from './attrs.ts';
import { evaluationFrom } from './evaluation.ts';
import {
  type ContentItem,
  type MemoryRecordRef,
  messageItems,
  type SpanContent,
  valueItems,
} from './items.ts';
import { type ChatMessage, expandToolCalls } from './messages.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** Op categories by OpenInference span kind (a Map: the kind comes from the file). */
export const OI_CATEGORY: ReadonlyMap<string, string> = new Map([
  ['LLM', 'llm_call'],
  ['EMBEDDING', 'embedding'],
  ['CHAIN', 'chain'],
  ['RETRIEVER', 'retrieval'],
  ['RERANKER', 'retrieval'],
  ['TOOL', 'tool'],
  ['AGENT', 'agent'],
  ['GUARDRAIL', 'guardrail'],
  ['EVALUATOR', 'evaluation'],
  ['PROMPT', 'prompt'],
]);

function docsOf(rows: Attrs[]): MemoryRecordRef[] {
  return rows.map((d) => ({
    id: asText(d[DOCUMENT_ID] ?? d.id ?? null),
    content: asText(d[DOCUMENT_CONTENT] ?? d.content ?? null),
  }));
}

/** A flattened message's text: its content, else its content parts. */
function oiMessageText(m: Attrs): string {
  const content = asText(m[MESSAGE_CONTENT] ?? null);
  if (content !== null) return content;
  return indexed(m, MESSAGE_CONTENTS)
    .map((p) => asText(p[MESSAGE_CONTENT_TEXT] ?? null) ?? '')
    .filter((p) => p !== '')
    .join('\n');
}

/** A flattened message as chat messages: its text, then each tool call's arguments and name. */
function oiMessage(m: Attrs): ChatMessage {
  const calls = indexed(m, MESSAGE_TOOL_CALLS).map((t) => ({
    name: str(t[TOOL_CALL_FUNCTION_NAME]),
    args: asText(t[TOOL_CALL_FUNCTION_ARGUMENTS_JSON] ?? null),
  }));
  const name = str(m[MESSAGE_NAME]);
  return { role: str(m[MESSAGE_ROLE]), text: oiMessageText(m), ...(name ? { name } : {}), calls };
}

function oiMessages(rows: Attrs[], output: boolean): ContentItem[] {
  const messages = expandToolCalls(rows.map(oiMessage)).filter((m) => m.text !== '');
  return messageItems(messages, output);
}

/** `input.value` / `output.value`: JSON when the mime type says so (or it parses), else text. */
function ioValue(a: Attrs, which: 'input' | 'output'): AttrValue | undefined {
  const v = a[which === 'input' ? INPUT_VALUE : OUTPUT_VALUE];
  if (v === undefined) return undefined;
  const mime = a[which === 'input' ? INPUT_MIME_TYPE : OUTPUT_MIME_TYPE];
  return mime === 'text/plain' ? v : maybeJson(v);
}

/** `input.value` / `output.value` as items. */
function ioItems(a: Attrs, which: 'input' | 'output'): ContentItem[] {
  const plain = a[which === 'input' ? INPUT_MIME_TYPE : OUTPUT_MIME_TYPE] === 'text/plain';
  return valueItems(a[which === 'input' ? INPUT_VALUE : OUTPUT_VALUE], which === 'output', plain);
}

function readRetriever(a: Attrs, input: AttrValue | undefined, c: SpanContent) {
  const q = typeof input === 'string' ? input : asText(input ?? null);
  if (q !== null) c.inputs.push({ text: q, role: 'query' });
  const docs = docsOf(indexed(a, RETRIEVAL_DOCUMENTS));
  const out = docs.length ? [] : ioItems(a, 'output');
  // A search that found nothing is still a search (its empty result fed the prompt after it).
  if (out.length === 0) c.memory = { op: 'search', store: str(a['metadata.store']) ?? null, records: docs };
  else appendAll(c.outputs, out);
}

/**
 * Retrieved documents on a span of another kind (an OpenInference `retrieval.documents.N.…` or a
 * GenAI `gen_ai.retrieval.documents`): a search of its store, as on a retriever.
 */
export function readDocuments(a: Attrs, c: SpanContent): void {
  const rows = indexed(a, RETRIEVAL_DOCUMENTS);
  const docs = rows.length ? docsOf(rows) : docsOf(indexed(a, ATTR_GEN_AI_RETRIEVAL_DOCUMENTS));
  const found = docs.filter((d) => d.content !== null);
  if (found.length) c.memory = { op: 'search', store: str(a['metadata.store']) ?? null, records: found };
}

function readReranker(a: Attrs, c: SpanContent) {
  const q = str(a[RERANKER_QUERY]);
  if (q) c.inputs.push({ text: q, role: 'query' });
  for (const d of docsOf(indexed(a, RERANKER_INPUT_DOCUMENTS)))
    if (d.content !== null) c.inputs.push({ text: d.content, role: 'document' });
  const out = docsOf(indexed(a, RERANKER_OUTPUT_DOCUMENTS));
  if (out.length) c.outputs.push({ text: JSON.stringify(out.map((d) => d.content)), role: 'output' });
}

/** What a span's OpenInference attributes say it read and wrote (`kind`: its span kind, upper case, or ''). */
export function readOpenInference(span: OtelSpan, kind: string, c: SpanContent): void {
  const a = span.attributes;
  const input = ioValue(a, 'input');
  if (kind === 'EVALUATOR') {
    const output = ioValue(a, 'output');
    const inObj = isObject(input) ? input : {};
    const outObj = isObject(output) ? output : {};
    const e = evaluationFrom({ ...flatten(a), ...outObj, input: inObj as AttrValue }, span.name);
    e.query ??= typeof input === 'string' ? input : null;
    c.evaluations.push(e);
    return;
  }
  if (kind === 'RETRIEVER') {
    readRetriever(a, input, c);
    return;
  }
  if (kind === 'RERANKER') {
    readReranker(a, c);
    return;
  }
  const template = str(a[PROMPT_TEMPLATE_TEMPLATE]);
  if (template) c.inputs.push({ text: template, role: 'prompt' });
  const inMsgs = oiMessages(indexed(a, LLM_INPUT_MESSAGES), false);
  appendAll(c.inputs, inMsgs.length ? inMsgs : ioItems(a, 'input'));
  if (kind === 'EMBEDDING')
    for (const e of indexed(a, EMBEDDING_EMBEDDINGS)) {
      const t = asText(e[EMBEDDING_TEXT] ?? null);
      if (t !== null) c.inputs.push({ text: t, role: 'value' });
    }
  const outMsgs = oiMessages(indexed(a, LLM_OUTPUT_MESSAGES), true);
  appendAll(c.outputs, outMsgs.length ? outMsgs : ioItems(a, 'output'));
}
