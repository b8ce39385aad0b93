/**
 * Which span format a parsed JSON value is in. The tests are by shape, most specific first;
 * a value of no format gets one message naming every format tried and what the value has.
 */
import { isLangfuseExport } from './langfuse.ts';
import { isOtlpRequest, isResourceSpans, isWrappedRequests } from './otlp.ts';
import { isPhoenixRow } from './phoenix.ts';
import { isSdkSpan } from './sdk-spans.ts';
import type { SpanFormat } from './span.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Tests of one value (an object, or each item of a list) by format, in the order they are tried. */
const SHAPES: [SpanFormat, (v: unknown) => boolean][] = [
  ['otlp-json', isOtlpRequest],
  ['oteltest', isWrappedRequests],
  ['otlp-resource-spans', isResourceSpans],
  ['langfuse', isLangfuseExport],
  ['phoenix', isPhoenixRow],
  ['sdk-spans', isSdkSpan],
];

/** Which span format a parsed JSON value is in, or null (then it is read as smartcomment). */
export function detectSpanFormat(value: unknown): SpanFormat | null {
  if (isObject(value)) {
    for (const [format, test] of SHAPES) if (test(value)) return format;
    return null;
  }
  if (!Array.isArray(value) || !value.length) return null;
  if (isLangfuseExport(value)) return 'langfuse';
  for (const [format, test] of SHAPES) if (test(value[0])) return format;
  return null;
}

/** Looks like JSON Lines: the first non-empty line is a whole JSON object of a span format. */
export function jsonLinesFormat(text: string): SpanFormat | null {
  const start = text.search(/\S/);
  if (start < 0) return null;
  const end = text.indexOf('\n', start);
  if (end < 0) return null;
  const first = text.slice(start, end).trim();
  if (!first.startsWith('{')) return null;
  let v: unknown;
  try {
    v = JSON.parse(first);
  } catch {
    return null;
  }
  const format = detectSpanFormat(v);
  return format === 'otlp-json' ? 'otlp-jsonl' : format;
}

/** What each format needs, for the message of a file of none. */
const TRIED =
  'tried smartcomment / MemTraceBench (an object with "data"), OTLP/JSON ("resourceSpans"), ' +
  'oteltest capture ("trace_requests" of "pbreq"), ' +
  'OTLP ResourceSpans ("scopeSpans"), Langfuse export ("observations"), Phoenix span rows ' +
  '("context.span_id"), OpenTelemetry SDK spans ("spanContext")';

function keysOf(v: Record<string, unknown>): string {
  const keys = Object.keys(v);
  if (!keys.length) return 'no keys';
  const shown = keys.slice(0, 8).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
  return `keys ${shown.join(', ')}${keys.length > 8 ? `, … (${keys.length})` : ''}`;
}

/**
 * Why a parsed value is no trace file, naming the formats tried — or null when it should be read
 * as smartcomment (an object with `data` or `graph_id`), whose validation then says what is wrong.
 */
export function noFormatMessage(value: unknown): string | null {
  if (isObject(value)) {
    if (Object.hasOwn(value, 'data') || Object.hasOwn(value, 'graph_id')) return null;
    return `the top level is an object of no trace format this workbench reads (${keysOf(value)}); ${TRIED}`;
  }
  if (Array.isArray(value)) {
    if (!value.length) return `the top level is a list with no items; ${TRIED}`;
    const first = value[0];
    const what = isObject(first)
      ? `whose first item has ${keysOf(first)}`
      : 'whose first item is not an object';
    return `the top level is a list ${what}, of no trace format this workbench reads; ${TRIED}`;
  }
  return null;
}
