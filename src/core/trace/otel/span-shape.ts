/**
 * A span's place in its tree and its timing, as plain JSON: kept on the span's op
 * (`metadata.otel_span`) and, for container spans that make no op, in the document's
 * `metadata.otel_containers`, so a span view rebuilds the tree the file had (parents,
 * durations, statuses) from the stored graph alone. Times are decimal nanosecond strings:
 * epoch nanoseconds are past 2^53 and would lose digits as JSON numbers.
 */
import type { JsonObject } from '../types.ts';
import type { OtelSpan } from './span.ts';

/** The first `exception` event's message (or type), else null. */
function exceptionText(span: OtelSpan): string | null {
  for (const e of span.events) {
    if (e.name !== 'exception') continue;
    const m = e.attributes['exception.message'] ?? e.attributes['exception.type'];
    if (typeof m === 'string' && m) return m.length > 2000 ? `${m.slice(0, 2000)}…` : m;
  }
  return null;
}

/** Parent, kind, start / end (ns, decimal), status and exception of a span. */
export function spanShape(span: OtelSpan): JsonObject {
  return {
    parent_span_id: span.parentSpanId || null,
    kind: span.kind,
    start_ns: span.start === null ? null : span.start.toString(),
    end_ns: span.end === null ? null : span.end.toString(),
    status_code: span.status.code === null ? null : String(span.status.code),
    exception: exceptionText(span),
  };
}

/** A container span (no content, only children; not an op) as the span view needs it. */
export function containerShape(span: OtelSpan, kind: string | null): JsonObject {
  return {
    span_id: span.spanId,
    trace_id: span.traceId,
    name: span.name,
    otel_kind: kind,
    status_message: span.status.message,
    ...spanShape(span),
  };
}
