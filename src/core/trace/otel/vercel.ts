/**
 * Vercel AI SDK telemetry (`ai.*` attributes; the SDK has no constants package): the prompt
 * (`ai.prompt` on a call, `ai.prompt.messages` on the provider call under it), the response
 * (`ai.response.text`, `.object`, `.toolCalls` with their tools' names), tool calls (`ai.toolCall.args|input`,
 * `.result|output`) and embeddings (`ai.value`, `ai.values`: JSON-encoded texts).
 */

import { appendAll } from '../../arrays.ts';
import { type Attrs, asText } from './attrs.ts';
import type { ContentItem, SpanContent } from './items.ts';
import { messageItems } from './items.ts';
import { chatMessages } from './messages.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, decodeJsonString, maybeJson } from './values.ts';

/** The attribute that names a Vercel AI SDK span's operation (`ai.generateText.doGenerate`, …). */
export const VERCEL_OPERATION = 'ai.operationId';

/** The op category of a Vercel AI SDK operation id. */
export function vercelCategory(operationId: string): string {
  if (operationId.startsWith('ai.toolCall')) return 'tool';
  if (operationId.startsWith('ai.embed')) return 'embedding';
  return 'llm_call';
}

/** A text the SDK wrote JSON-encoded (`"\"The quick…\""`) decoded; other values as text. */
const decodedText = (v: AttrValue | undefined): string | null =>
  typeof v === 'string' ? decodeJsonString(v) : asText(v);

/** Each call in `ai.response.toolCalls`: its arguments, as the tool span receives them, and its tool's name. */
function toolCallItems(v: AttrValue | undefined): ContentItem[] {
  const list = maybeJson(v);
  if (!Array.isArray(list)) return [];
  const out: ContentItem[] = [];
  for (const c of list) {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) continue;
    const args = asText(c.args ?? c.input ?? null);
    if (args !== null) out.push({ text: args, role: 'output' });
    if (typeof c.toolName === 'string' && c.toolName) out.push({ text: c.toolName, role: 'tool_call' });
  }
  return out;
}

function readVercelInputs(a: Attrs, c: SpanContent): void {
  const messages = chatMessages(a['ai.prompt.messages']) ?? chatMessages(a['ai.prompt']) ?? [];
  appendAll(c.inputs, messageItems(messages, false));
  const args = asText(a['ai.toolCall.args'] ?? a['ai.toolCall.input'] ?? null);
  if (args !== null) c.inputs.push({ text: args, role: 'value' });
  const values = Array.isArray(a['ai.values'])
    ? a['ai.values']
    : a['ai.value'] !== undefined
      ? [a['ai.value']]
      : [];
  for (const v of values) {
    const t = decodedText(v);
    if (t) c.inputs.push({ text: t, role: 'value' });
  }
}

function readVercelOutputs(a: Attrs, c: SpanContent): void {
  for (const key of ['ai.response.text', 'ai.response.object', 'ai.toolCall.result', 'ai.toolCall.output']) {
    const t = asText(a[key] ?? null);
    if (t) c.outputs.push({ text: t, role: 'output' });
  }
  appendAll(c.outputs, toolCallItems(a['ai.response.toolCalls']));
}

/** What a span's Vercel AI SDK attributes say it read and wrote. */
export function readVercel(span: OtelSpan, c: SpanContent): void {
  readVercelInputs(span.attributes, c);
  readVercelOutputs(span.attributes, c);
}
