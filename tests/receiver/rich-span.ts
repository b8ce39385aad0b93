/** A span (protobufjs object form) using every Span field kind: ids, state, times, attributes, events, links, status, flags. */

/** An id of `bytes` bytes, each `n`. */
export const ID = (n: number, bytes: number) => Buffer.alloc(bytes, n);

/** The span with ids `trace` / `span` (`parent`: a parent id when given) and `value` as its one attribute. */
export function richSpan(o: { trace: number; span: number; parent?: number; name: string; value: object }) {
  return {
    traceId: ID(o.trace, 16),
    spanId: ID(o.span, 8),
    parentSpanId: o.parent === undefined ? undefined : ID(o.parent, 8),
    traceState: 'a=b',
    name: o.name,
    kind: 3,
    startTimeUnixNano: '1764950000123456789',
    endTimeUnixNano: '18446744073709551615',
    attributes: [{ key: 'x', value: o.value }],
    droppedAttributesCount: 2,
    events: [{ timeUnixNano: '9007199254740993', name: 'e', attributes: [] }],
    links: [{ traceId: ID(4, 16), spanId: ID(5, 8), flags: 1 }],
    status: { code: 2, message: 'bad' },
    flags: 256,
  };
}
