/**
 * A span's input and output as one value each, as framework SDKs write them: Traceloop /
 * OpenLLMetry workflows and tasks (`traceloop.entity.input|output`, JSON such as `{"inputs":
 * …}` or `{"args": […], "kwargs": …}`) and LangWatch (`langwatch.input|output`: `{type, value}`).
 */
import { type Attrs, isObject } from './attrs.ts';
import { type SpanContent, valueItems } from './items.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, decodeJsonString, maybeJson } from './values.ts';

/** The attribute pairs read here, input first. */
const PAIRS: readonly [string, string][] = [
  ['traceloop.entity.input', 'traceloop.entity.output'],
  ['langwatch.input', 'langwatch.output'],
];

/** Traceloop wraps LangChain values in `{inputs}` / `{outputs}`; LangWatch in `{type, value}`. */
function unwrap(v: AttrValue | undefined): AttrValue | undefined {
  const parsed = maybeJson(typeof v === 'string' ? decodeJsonString(v) : v);
  if (!isObject(parsed)) return parsed;
  if (typeof parsed.type === 'string' && 'value' in parsed) return maybeJson(parsed.value);
  if ('inputs' in parsed) return parsed.inputs;
  if ('outputs' in parsed) return parsed.outputs;
  return parsed;
}

/** What a span's whole-value input / output attributes say it read and wrote. */
export function readIoValues(span: OtelSpan, c: SpanContent): void {
  const a: Attrs = span.attributes;
  for (const [input, output] of PAIRS) {
    c.inputs.push(...valueItems(unwrap(a[input]), false, true));
    c.outputs.push(...valueItems(unwrap(a[output]), true, true));
  }
}
