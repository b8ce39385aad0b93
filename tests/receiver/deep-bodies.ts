/**
 * Export requests with one span whose attribute `deep` holds an AnyValue nested `levels`
 * kvlists deep, written byte by byte (protobuf) or as text (JSON) without recursion, so
 * 100,000 levels cost no stack in the test either. The protobuf field numbers are those of
 * opentelemetry-proto v1, written out here rather than taken from the receiver's schema.
 */

export const DEEP_TRACE = 'dee9'.repeat(8);
export const DEEP_SPAN = '0d0d0d0d0d0d0d0d';

/** A protobuf varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** Field `field` (wire type 2) holding `size` bytes: its tag and length. */
const lengthHeader = (field: number, size: number) => [(field << 3) | 2, ...varint(size)];

/** The request in protobuf: headers are made inside out (each needs its content's size), then put in order. */
export function deepProtobuf(levels: number): Uint8Array {
  const inner = [...lengthHeader(1, 1), 0x78]; // AnyValue.string_value = "x"
  const heads: number[][] = [];
  let size = inner.length;
  const wrap = (field: number, extra: number[] = []) => {
    const head = [...extra, ...lengthHeader(field, size)];
    heads.push(head);
    size += head.length;
  };
  const key = (k: string) => [...lengthHeader(1, k.length), ...Buffer.from(k)];
  for (let i = 0; i < levels; i++) {
    wrap(2, key('k')); // KeyValue{key: "k", value}
    wrap(1); // KeyValueList.values
    wrap(6); // AnyValue.kvlist_value
  }
  wrap(2, key('deep')); // KeyValue{key: "deep", value}
  const ids = [
    ...lengthHeader(1, 16),
    ...Buffer.from(DEEP_TRACE, 'hex'),
    ...lengthHeader(2, 8),
    ...Buffer.from(DEEP_SPAN, 'hex'),
    ...lengthHeader(5, 4),
    ...Buffer.from('root'),
  ];
  wrap(9, ids); // Span{trace_id, span_id, name, attributes}
  wrap(2); // ScopeSpans.spans
  wrap(2); // ResourceSpans.scope_spans
  wrap(1); // ExportTraceServiceRequest.resource_spans
  return Uint8Array.from([...heads.reverse().flat(), ...inner]);
}

/** The same request in OTLP/JSON. */
export function deepJson(levels: number): string {
  const open = '{"kvlistValue":{"values":[{"key":"k","value":';
  const value = `${open.repeat(levels)}{"stringValue":"x"}${'}]}}'.repeat(levels)}`;
  const span = `{"traceId":"${DEEP_TRACE}","spanId":"${DEEP_SPAN}","name":"root","attributes":[{"key":"deep","value":${value}}]}`;
  return `{"resourceSpans":[{"scopeSpans":[{"spans":[${span}]}]}]}`;
}
