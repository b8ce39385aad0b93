/**
 * One request → one request per trace id (each with only that trace's spans, under the
 * same resource and scope envelopes), so each trace's file grows by one OTLP/JSON line per
 * request that carried it; and the short description a live list shows of each trace.
 */
import type { OtlpResourceSpans, OtlpSpan, OtlpTraceRequest } from './request.ts';

/** What a list of received traces shows of one trace (merged over every request that carried it). */
export interface ReceivedTrace {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** Spans received so far. */
  spans: number;
  /** Requests (file lines) that carried them. */
  requests: number;
  /** `service.name` of the first resource that sent spans of it, or null. */
  service: string | null;
  /** Name of its root span (a span without parent), once one arrived, else null. */
  root: string | null;
  /** Earliest span start and latest span end, in ms since the epoch (null when no span had one). */
  startMs: number | null;
  endMs: number | null;
}

/** A received trace as the receiver lists it: its description and its file. */
export interface ReceivedTraceFile extends ReceivedTrace {
  /** File name inside the receiver's folder (`<trace id>.jsonl`). */
  file: string;
  /** Size of the file's whole lines. */
  bytes: number;
  /** When its last part arrived (ms since the epoch). */
  updatedMs: number;
}

/**
 * `GET api/received/?offset=0&limit=1000`: the folder, a page of the received traces (most
 * recently updated first; without parameters the first `RECEIVED_PAGE_MAX`), how many there
 * are, and the receiver's memory.
 */
export interface ReceivedList {
  dir: string;
  traces: ReceivedTraceFile[];
  /** Traces received in all (the pages together). */
  total: number;
  /** The page: its first trace's place in the whole list, and the most it holds. */
  offset: number;
  limit: number;
  memory: { rss: number; heapUsed: number };
}

/** The largest page `api/received/` gives (and its default). */
export const RECEIVED_PAGE_MAX = 1000;

/** The part of a request that belongs to one trace, and what it adds to the trace's description. */
export interface TracePart {
  traceId: string;
  request: OtlpTraceRequest;
  summary: ReceivedTrace;
}

/** `service.name` of a resource (its attribute's text), or null. */
export function serviceName(rs: OtlpResourceSpans): string | null {
  const attributes = rs.resource?.attributes;
  if (!Array.isArray(attributes)) return null;
  for (const kv of attributes) {
    if (typeof kv !== 'object' || kv === null || kv.key !== 'service.name') continue;
    const v = kv.value;
    if (typeof v === 'string') return v;
    if (typeof v === 'object' && v !== null && typeof v.stringValue === 'string') return v.stringValue;
  }
  return null;
}

/** Nanoseconds (a number or a digit string) → ms, or null. */
function toMs(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n / 1e6 : null;
}

const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/** The description of a trace's part before its spans are added. */
export function emptySummary(traceId: string, service: string | null): ReceivedTrace {
  return { traceId, spans: 0, requests: 1, service, root: null, startMs: null, endMs: null };
}

/** Adds one span to a trace's description (count, root name, start and end). */
export function addSpan(s: ReceivedTrace, span: OtlpSpan): void {
  s.spans++;
  if (s.root === null && !span.parentSpanId) s.root = span.name ?? '';
  s.startMs = min(s.startMs, toMs(span.startTimeUnixNano));
  s.endMs = max(s.endMs, toMs(span.endTimeUnixNano));
}

/** Splits a (checked) request by trace id, in the order the traces first appear. */
export function splitByTrace(request: OtlpTraceRequest): TracePart[] {
  const parts = new Map<string, TracePart & { at: string }>();
  request.resourceSpans.forEach((rs, i) => {
    const service = serviceName(rs);
    const { scopeSpans, ...resourceFields } = rs;
    scopeSpans.forEach((ss, j) => {
      const { spans, ...scopeFields } = ss;
      for (const span of spans) {
        let part = parts.get(span.traceId);
        if (!part) {
          const summary = emptySummary(span.traceId, service);
          part = { traceId: span.traceId, request: { resourceSpans: [] }, summary, at: '' };
          parts.set(span.traceId, part);
        }
        // The envelopes a trace meets are contiguous: open new ones when (i, j) moves on.
        const out = part.request.resourceSpans;
        if (!part.at.startsWith(`${i}/`)) out.push({ ...resourceFields, scopeSpans: [] });
        const scopes = out[out.length - 1].scopeSpans;
        if (part.at !== `${i}/${j}`) scopes.push({ ...scopeFields, spans: [] });
        part.at = `${i}/${j}`;
        scopes[scopes.length - 1].spans.push(span);
        part.summary.service ??= service;
        addSpan(part.summary, span);
      }
    });
  });
  return [...parts.values()].map(({ at: _at, ...part }) => part);
}

/** The description after one more part of the trace arrived. */
export function mergeReceived(a: ReceivedTrace, b: ReceivedTrace): ReceivedTrace {
  return {
    traceId: a.traceId,
    spans: a.spans + b.spans,
    requests: a.requests + b.requests,
    service: a.service ?? b.service,
    root: a.root ?? b.root,
    startMs: min(a.startMs, b.startMs),
    endMs: max(a.endMs, b.endMs),
  };
}

/** The description of one stored line (a request holding spans of one trace). */
export function describeLine(request: OtlpTraceRequest, traceId: string): ReceivedTrace {
  const s = emptySummary(traceId, null);
  for (const rs of request.resourceSpans) {
    s.service ??= serviceName(rs);
    for (const ss of rs.scopeSpans) for (const span of ss.spans) addSpan(s, span);
  }
  return s;
}
