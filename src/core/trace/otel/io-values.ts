/**
 * A span's input and output as one value each, as framework SDKs write them: Traceloop /
 * OpenLLMetry workflows and tasks (`traceloop.entity.input|output`: JSON such as `{"inputs":
 * …}`, `{"input": …}`, `{"args": […], "kwargs": …}`, a list of messages, a JSON-encoded text) and
 * LangWatch (`langwatch.input|output`: `{type, value}`), Langfuse's SDK
 * (`langfuse.observation.input|output`, `langfuse.trace.input|output`).
 */

import { appendAll } from '../../arrays.ts';
import { type Attrs, isObject } from './attrs.ts';
import { type SpanContent, valueItems } from './items.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, decodeJsonString, maybeJson } from './values.ts';

/** The attribute pairs read here, input first. */
const PAIRS: readonly [string, string][] = [
  ['traceloop.entity.input', 'traceloop.entity.output'],
  ['langwatch.input', 'langwatch.output'],
  // Langfuse's SDK (v3, over OpenTelemetry): an observation's input / output, the trace's on its root.
  ['langfuse.observation.input', 'langfuse.observation.output'],
  ['langfuse.trace.input', 'langfuse.trace.output'],
];

/** Wrappers Traceloop puts around a value: LangChain's `{inputs}` / `{outputs}`, Laminar-style `{input}` / `{output}`. */
const WRAPPERS = ['inputs', 'outputs', 'input', 'output'];

/** The value inside Traceloop's wrappers or LangWatch's `{type, value}`, JSON text decoded. */
export function unwrap(v: AttrValue | undefined): AttrValue | undefined {
  const parsed = maybeJson(typeof v === 'string' ? decodeJsonString(v) : v);
  if (!isObject(parsed)) return parsed;
  if (typeof parsed.type === 'string' && 'value' in parsed) return maybeJson(parsed.value);
  const keys = Object.keys(parsed);
  const wrapper = WRAPPERS.find((k) => Object.hasOwn(parsed, k));
  // `{inputs, tags, metadata, kwargs}` (LangChain) or a lone `{input}`: the value inside.
  if (wrapper && (wrapper.endsWith('s') || keys.length === 1)) return maybeJson(parsed[wrapper]);
  return parsed;
}

/** What a span's whole-value input / output attributes say it read and wrote. */
export function readIoValues(span: OtelSpan, c: SpanContent): void {
  const a: Attrs = span.attributes;
  for (const [input, output] of PAIRS) {
    appendAll(c.inputs, valueItems(unwrap(a[input]), false, true));
    appendAll(c.outputs, valueItems(unwrap(a[output]), true, true));
  }
}
