/**
 * OTLP/JSON readers: one `ExportTraceServiceRequest` object (`{resourceSpans: [...]}`), JSON
 * Lines of them (the file exporter of the Collector writes one request per line), or oteltest's
 * capture, which wraps each request it received (`{trace_requests: [{pbreq, headers}]}`).
 */
import type { IssueCollector } from '../issues.ts';
import type { OtelSpan, SpanEvent } from './span.ts';
import { decodeKeyValues, derivedSpanId, normalizeId, normalizeTime } from './values.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the value looks like an OTLP trace request. */
export function isOtlpRequest(v: unknown): v is { resourceSpans: unknown } {
  return isObject(v) && Object.hasOwn(v, 'resourceSpans');
}

const KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

function spanKind(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return KIND_NAMES[v] ?? (/^\d$/.test(v) ? Number(v) : null);
  return null;
}

/** oteltest's capture: `{trace_requests: [{pbreq, headers, test_elapsed_ms}], metric_requests, log_requests}`. */
export function isWrappedRequests(v: unknown): v is { trace_requests: unknown[] } {
  if (!isObject(v) || !Array.isArray(v.trace_requests)) return false;
  const list = v.trace_requests;
  return list.length
    ? list.some((r) => isObject(r) && 'pbreq' in r)
    : 'metric_requests' in v || 'log_requests' in v;
}

/** `resource_spans` → `resourceSpans`, in every object key (protobuf's own field names, as MessageToDict may keep them). */
function camelKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(v))
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = camelKeys(v[k]);
  return out;
}

/**
 * Appends the spans of each trace request of an oteltest capture to `out`: `pbreq` is an
 * ExportTraceServiceRequest as protobuf's JSON mapping writes it (base64 ids); a request
 * without spans is `{}` there.
 */
export function readWrappedRequests(
  value: unknown,
  prefix: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  const list = isWrappedRequests(value) ? value.trace_requests : [];
  const at = (p: string) => (prefix ? `${prefix}: ${p}` : p);
  list.forEach((r, i) => {
    const place = `trace_requests[${i}].pbreq`;
    const req = isObject(r) ? r.pbreq : undefined;
    if (!isObject(req)) issues.warn('otlp-shape', 'no pbreq object; skipped', at(place));
    else if (Object.keys(req).length) {
      const snake = Object.hasOwn(req, 'resource_spans');
      readOtlpRequest(snake ? camelKeys(req) : req, at(place), issues, out, '.');
    }
  });
}

/** True when the value looks like one `ResourceSpans` (a server's decoded request, without the envelope). */
export function isResourceSpans(v: unknown): boolean {
  return isObject(v) && (Array.isArray(v.scopeSpans) || Array.isArray(v.instrumentationLibrarySpans));
}

/**
 * Appends the spans of one request to `out`. Problems are warnings naming the place
 * (`line 3: resourceSpans[0].scopeSpans[1].spans[2].spanId`); a span without a usable
 * span id gets one derived from its place (`derivedSpanId`).
 */
export function readOtlpRequest(
  value: unknown,
  prefix: string,
  issues: IssueCollector,
  out: OtelSpan[],
  /** Between `prefix` and a place in the request: `line 3: resourceSpans…`, `…pbreq.resourceSpans…`. */
  joiner = ': ',
): void {
  if (!isOtlpRequest(value)) {
    issues.error('otlp-shape', 'expected an object with "resourceSpans"', prefix || undefined);
    return;
  }
  const at = (p: string) => (prefix ? `${prefix}${joiner}${p}` : p);
  if (!Array.isArray(value.resourceSpans)) {
    issues.error('otlp-shape', 'resourceSpans is not a list', at('resourceSpans'));
    return;
  }
  const resourceSpans = value.resourceSpans;
  for (let i = 0; i < resourceSpans.length; i++)
    readResourceSpans(resourceSpans[i], at(`resourceSpans[${i}]`), issues, out);
}

/** Appends the spans of one `ResourceSpans` (at `rsPath`) to `out`. */
export function readResourceSpans(
  rs: unknown,
  rsPath: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  if (!isObject(rs)) {
    issues.warn('otlp-shape', 'not an object; skipped', rsPath);
    return;
  }
  const resource = decodeKeyValues(isObject(rs.resource) ? rs.resource.attributes : undefined);
  const scopeSpans = rs.scopeSpans ?? rs.instrumentationLibrarySpans;
  if (!Array.isArray(scopeSpans)) {
    issues.warn('otlp-shape', 'scopeSpans is not a list; skipped', `${rsPath}.scopeSpans`);
    return;
  }
  for (let j = 0; j < scopeSpans.length; j++) {
    const ss = scopeSpans[j];
    const ssPath = `${rsPath}.scopeSpans[${j}]`;
    if (!isObject(ss)) {
      issues.warn('otlp-shape', 'not an object; skipped', ssPath);
      continue;
    }
    const scopeObj = ss.scope ?? ss.instrumentationLibrary;
    const scope = isObject(scopeObj) && typeof scopeObj.name === 'string' ? scopeObj.name : null;
    if (!Array.isArray(ss.spans)) {
      issues.warn('otlp-shape', 'spans is not a list; skipped', `${ssPath}.spans`);
      continue;
    }
    for (let k = 0; k < ss.spans.length; k++) {
      const span = readSpan(ss.spans[k], `${ssPath}.spans[${k}]`, issues, resource, scope);
      if (span) out.push(span);
    }
  }
}

/** The trace id, with a warning when it is missing or not an id (the span then joins a trace of no id). */
function traceIdOf(s: Record<string, unknown>, place: string, issues: IssueCollector): string {
  const id = normalizeId(s.traceId, 16);
  if (id === null)
    issues.warn(
      'otlp-trace-id',
      s.traceId === undefined
        ? 'traceId is missing; the span is put in a trace without id'
        : `traceId is ${describe(s.traceId)}, not an id; the span is put in a trace without id`,
      `${place}.traceId`,
    );
  return id ?? '';
}

/** The parent span id, with a warning when one is given but is not an id (the span is then a root). */
function parentIdOf(s: Record<string, unknown>, place: string, issues: IssueCollector): string | null {
  const raw = s.parentSpanId;
  const id = normalizeId(raw, 8);
  if (id === null && raw !== undefined && raw !== null && raw !== '')
    issues.warn(
      'otlp-parent-id',
      `parentSpanId is ${describe(raw)}, not an id; the span is read as a root`,
      `${place}.parentSpanId`,
    );
  return id;
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (v === '') return 'empty';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function readSpan(
  s: unknown,
  place: string,
  issues: IssueCollector,
  resource: OtelSpan['resource'],
  scope: OtelSpan['scope'],
): OtelSpan | null {
  if (!isObject(s)) {
    issues.warn('otlp-shape', 'span is not an object; skipped', place);
    return null;
  }
  const spanId = normalizeId(s.spanId, 8) ?? derivedSpanId(place, 'spanId', issues, `${place}.spanId`);
  const traceId = traceIdOf(s, place, issues);
  const start = normalizeTime(s.startTimeUnixNano);
  if (start === null && s.startTimeUnixNano !== undefined)
    issues.warn(
      'otlp-time',
      'startTimeUnixNano is not a time; span placed by file order',
      `${place}.startTimeUnixNano`,
    );
  const events: SpanEvent[] = Array.isArray(s.events)
    ? s.events.filter(isObject).map((e) => ({
        name: typeof e.name === 'string' ? e.name : '',
        time: normalizeTime(e.timeUnixNano),
        attributes: decodeKeyValues(e.attributes),
      }))
    : [];
  const status = isObject(s.status) ? s.status : {};
  return {
    traceId,
    spanId,
    parentSpanId: parentIdOf(s, place, issues),
    name: typeof s.name === 'string' ? s.name : '',
    kind: spanKind(s.kind),
    start,
    end: normalizeTime(s.endTimeUnixNano),
    attributes: decodeKeyValues(s.attributes),
    events,
    status: {
      code: typeof status.code === 'number' || typeof status.code === 'string' ? status.code : null,
      message: typeof status.message === 'string' ? status.message : null,
    },
    place,
    resource,
    scope,
  };
}
