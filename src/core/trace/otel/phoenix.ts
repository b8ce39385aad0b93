/**
 * Arize Phoenix span rows (its span JSON export / REST API): `{name, context: {trace_id,
 * span_id}, parent_id, span_kind, start_time, end_time, status_code, attributes, events}`;
 * attributes may be nested objects (`{input: {value}}`) or flattened dotted keys.
 */
import type { IssueCollector } from '../issues.ts';
import { flatten } from './attrs.ts';
import type { OtelSpan } from './span.ts';
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
