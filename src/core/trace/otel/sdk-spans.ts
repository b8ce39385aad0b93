/**
 * Span objects as an OpenTelemetry JS SDK holds them (`ReadableSpan`, written out with
 * JSON.stringify by test fixtures, in-memory exporters and the Vercel AI SDK's examples): `{name,
 * spanContext: {traceId, spanId}, parentSpanContext | parentSpanId, kind, startTime: [s, ns],
 * endTime, attributes: {flat}, events: [{name, time, attributes}], status, resource,
 * instrumentationScope}` — one, or a list.
 */
import type { IssueCollector } from '../issues.ts';
import type { OtelSpan, SpanEvent } from './span.ts';
import { type AttrValue, derivedSpanId, normalizeId, normalizeTime } from './values.ts';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The span context of an SDK span (`spanContext`, or `_spanContext` on a serialised Span). */
function contextOf(v: Obj): Obj | null {
  const c = v.spanContext ?? v._spanContext;
  return isObject(c) ? c : null;
}

/** An SDK span: a name and a span context with a span id. */
export function isSdkSpan(v: unknown): boolean {
  if (!isObject(v) || typeof v.name !== 'string') return false;
  const c = contextOf(v);
  return c !== null && 'spanId' in c;
}

/** Flat attributes (an SDK keeps them as `{key: value}`), copied to an object with a null prototype. */
function flatAttributes(v: unknown): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = Object.create(null);
  if (isObject(v)) for (const k of Object.keys(v)) out[k] = v[k] as AttrValue;
  return out;
}

function parentOf(s: Obj): unknown {
  const p = s.parentSpanContext;
  if (isObject(p)) return p.spanId;
  return s.parentSpanId ?? s.parentId;
}

function events(v: unknown): SpanEvent[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((e) => ({
    name: typeof e.name === 'string' ? e.name : '',
    time: normalizeTime(e.time),
    attributes: flatAttributes(e.attributes),
  }));
}

/** One SDK span (an id derived from its place when it has none), or null when it is not an object. */
export function readSdkSpan(s: unknown, place: string, issues: IssueCollector): OtelSpan | null {
  if (!isObject(s)) {
    issues.warn('sdk-span-shape', 'span is not an object; skipped', place);
    return null;
  }
  const ctx = contextOf(s) ?? {};
  const spanId =
    normalizeId(ctx.spanId, 8) ??
    derivedSpanId(place, 'spanContext.spanId', issues, `${place}.spanContext.spanId`);
  const status = isObject(s.status) ? s.status : {};
  const resource = isObject(s.resource) ? flatAttributes(s.resource.attributes) : {};
  const scope = s.instrumentationScope ?? s.instrumentationLibrary;
  return {
    traceId: normalizeId(ctx.traceId, 16) ?? '',
    spanId,
    parentSpanId: normalizeId(parentOf(s), 8),
    name: s.name as string,
    kind: typeof s.kind === 'number' ? s.kind : null,
    start: normalizeTime(s.startTime),
    end: normalizeTime(s.endTime),
    attributes: flatAttributes(s.attributes),
    events: events(s.events),
    status: {
      code: typeof status.code === 'number' || typeof status.code === 'string' ? status.code : null,
      message: typeof status.message === 'string' && status.message ? status.message : null,
    },
    resource,
    scope: isObject(scope) && typeof scope.name === 'string' ? scope.name : null,
    place,
  };
}
