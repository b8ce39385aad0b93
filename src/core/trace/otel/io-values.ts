/**
 * A span's input and output as one value each, as framework SDKs write them: Traceloop /
 * OpenLLMetry workflows and tasks (`traceloop.entity.input|output`, JSON such as `{"inputs":
 * …}` or `{"args": […], "kwargs": …}`) and LangWatch (`langwatch.input|output`: `{type, value}`).
 */
import { type Attrs, asText, isObject } from './attrs.ts';
import type { SpanContent } from './items.ts';
import { type ContentItem, messageItems } from './items.ts';
import { chatMessages } from './messages.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** The attribute pairs read here, input first. */
const PAIRS: readonly [string, string][] = [
  ['traceloop.entity.input', 'traceloop.entity.output'],
  ['langwatch.input', 'langwatch.output'],
];

/** Traceloop wraps LangChain values in `{inputs}` / `{outputs}`; LangWatch in `{type, value}`. */
function unwrap(v: AttrValue | undefined): AttrValue | undefined {
  const parsed = maybeJson(v);
  if (!isObject(parsed)) return parsed;
  if (typeof parsed.type === 'string' && 'value' in parsed) return maybeJson(parsed.value);
  if ('inputs' in parsed) return parsed.inputs;
  if ('outputs' in parsed) return parsed.outputs;
  return parsed;
}

function items(raw: AttrValue | undefined, output: boolean): ContentItem[] {
  const v = unwrap(raw);
  if (v === undefined || v === null) return [];
  const messages = typeof v === 'string' ? null : chatMessages(v);
  if (messages?.length) return messageItems(messages, output);
  const text = typeof v === 'string' ? v : asText(v);
  return text ? [{ text, role: output ? 'output' : 'value' }] : [];
}

/** What a span's whole-value input / output attributes say it read and wrote. */
export function readIoValues(span: OtelSpan, c: SpanContent): void {
  const a: Attrs = span.attributes;
  for (const [input, output] of PAIRS) {
    c.inputs.push(...items(a[input], false));
    c.outputs.push(...items(a[output], true));
  }
}
