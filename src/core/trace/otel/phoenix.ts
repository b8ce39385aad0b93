/**
 * Arize Phoenix span rows (its span JSON export / REST API): `{name, context: {trace_id,
 * span_id}, parent_id, span_kind, start_time, end_time, status_code, attributes, events}`;
 * attributes may be nested objects (`{input: {value}}`) or flattened dotted keys; span
 * annotations beside a row (`annotations: [{name, result: {label, score, explanation}}]`) are
 * read as evaluations.
 */
import { appendAll } from '../../arrays.ts';
import type { IssueCollector } from '../issues.ts';
import { flatten } from './attrs.ts';
import type { OtelSpan, SpanEvent } from './span.ts';
import { type AttrValue, derivedSpanId, normalizeId, normalizeTime } from './values.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A Phoenix row: a span id under `context` (or at the top, as in flattened dataframes). */
export function isPhoenixRow(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (isObject(v.context) && 'span_id' in v.context) return true;
  return 'span_id' in v && ('span_kind' in v || 'attributes' in v || 'parent_id' in v);
}

/**
 * A Phoenix span annotation (`{name, annotator_kind, result: {label, score, explanation}}`, or
 * the result's fields beside the name) as the `gen_ai.evaluation.result` event it is.
 */
function annotationEvent(x: Record<string, unknown>): SpanEvent {
  const r = isObject(x.result) ? x.result : x;
  const attributes: Record<string, AttrValue> = Object.create(null);
  const put = (key: string, v: unknown) => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') attributes[key] = v;
  };
  put('gen_ai.evaluation.name', x.name);
  put('gen_ai.evaluation.score.value', r.score);
  put('gen_ai.evaluation.score.label', r.label);
  put('gen_ai.evaluation.explanation', r.explanation);
  return { name: 'gen_ai.evaluation.result', time: normalizeTime(x.created_at), attributes };
}

export function readPhoenixRow(row: unknown, place: string, issues: IssueCollector): OtelSpan | null {
  if (!isObject(row)) {
    issues.warn('phoenix-shape', 'row is not an object; skipped', place);
    return null;
  }
  const ctx = isObject(row.context) ? row.context : row;
  const spanId =
    normalizeId(ctx.span_id, 8) ??
    derivedSpanId(place, 'context.span_id', issues, `${place}.context.span_id`);
  // Dataframe-style rows flatten attributes into the row (`attributes.input.value`).
  const attributes: Record<string, AttrValue> = isObject(row.attributes)
    ? flatten(row.attributes as Record<string, AttrValue>)
    : Object.create(null);
  for (const k of Object.keys(row))
    if (k.startsWith('attributes.')) attributes[k.slice('attributes.'.length)] = row[k] as AttrValue;
  if (typeof row.span_kind === 'string' && attributes['openinference.span.kind'] === undefined)
    attributes['openinference.span.kind'] = row.span_kind;
  const events = Array.isArray(row.events)
    ? row.events.filter(isObject).map((e) => ({
        name: typeof e.name === 'string' ? e.name : '',
        time: normalizeTime(e.timestamp),
        attributes: isObject(e.attributes) ? flatten(e.attributes as Record<string, AttrValue>) : {},
      }))
    : [];
  if (Array.isArray(row.annotations))
    appendAll(events, row.annotations.filter(isObject).map(annotationEvent));
  return {
    traceId: normalizeId(ctx.trace_id, 16) ?? '',
    spanId,
    parentSpanId: normalizeId(row.parent_id, 8),
    name: typeof row.name === 'string' ? row.name : '',
    kind: null,
    start: normalizeTime(row.start_time),
    end: normalizeTime(row.end_time),
    attributes,
    events,
    status: {
      code: typeof row.status_code === 'string' ? row.status_code : null,
      message: typeof row.status_message === 'string' && row.status_message ? row.status_message : null,
    },
    resource: {},
    scope: null,
    place,
  };
}
