/** The one span shape every reader (OTLP/JSON, SDK spans, Phoenix rows, Langfuse) produces. */
import type { AttrValue } from './values.ts';

export interface SpanEvent {
  name: string;
  time: bigint | null;
  attributes: Record<string, AttrValue>;
}

export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind number (0–5) when known. */
  kind: number | null;
  /** Nanoseconds since the epoch. */
  start: bigint | null;
  end: bigint | null;
  /** Decoded attributes (null prototype); resource and scope attributes are kept apart. */
  attributes: Record<string, AttrValue>;
  events: SpanEvent[];
  status: { code: number | string | null; message: string | null };
  resource: Record<string, AttrValue>;
  scope: string | null;
  /** Where the span is in the file, for messages: `resourceSpans[0].scopeSpans[0].spans[3]`, `line 12`. */
  place: string;
}

/** Which dialect a file speaks; chosen by the reader, shown in the import summary. */
export type SpanFormat =
  | 'otlp-json'
  | 'otlp-jsonl'
  | 'otlp-resource-spans'
  | 'oteltest'
  | 'sdk-spans'
  | 'phoenix'
  | 'langfuse';

export interface SpanFile {
  format: SpanFormat;
  spans: OtelSpan[];
}
