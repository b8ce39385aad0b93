/**
 * The spans of a stored trace, read back from its graph: every op an OpenTelemetry,
 * OpenInference / Phoenix or Langfuse import made from a span (`metadata.otel_span`, written
 * by core/trace's importer), and the container spans that made no op (the document's
 * `metadata.otel_containers`). Model and token counts come from the span's attributes.
 */
import type { TraceGraph } from '../graph/index.ts';
import type { JsonObject } from '../trace/index.ts';
import { type SpanInput, type SpanStatus, STATUS } from './tree.ts';

const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.model.id'];
const IN_KEYS = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'llm.token_count.prompt',
  'ai.usage.inputTokens',
  'ai.usage.promptTokens',
];
const OUT_KEYS = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'llm.token_count.completion',
  'ai.usage.outputTokens',
  'ai.usage.completionTokens',
];

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function firstText(attrs: JsonObject, keys: string[]): string {
  for (const k of keys) if (typeof attrs[k] === 'string' && attrs[k]) return attrs[k] as string;
  return '';
}

function firstCount(attrs: JsonObject, keys: string[]): number | null {
  for (const k of keys) {
    const v = attrs[k];
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : Number.NaN;
    if (Number.isFinite(n)) return n;
  }
  return null;
}

/** OTLP's codes (2, `STATUS_CODE_ERROR`), Phoenix's (`ERROR`) and Langfuse's levels (`ERROR`). */
export function statusOf(code: unknown): SpanStatus {
  const c = String(code ?? '').toUpperCase();
  if (c === '2' || c === 'STATUS_CODE_ERROR' || c === 'ERROR') return STATUS.error;
  if (c === '1' || c === 'STATUS_CODE_OK' || c === 'OK') return STATUS.ok;
  return STATUS.unset;
}

function nanos(v: unknown): bigint | null {
  return typeof v === 'string' && /^\d{1,30}$/.test(v) ? BigInt(v) : null;
}

/** The error said: status message, exception, `error.type` (each once). */
function errorText(message: string, exception: string, type: string): string {
  let out = message;
  for (const t of [exception, type]) if (t && !out.includes(t)) out = out ? `${out} · ${t}` : t;
  return out;
}

/** One span from its shape (`otel_span` fields), its ids, name and kind, attributes and status message. */
function spanOf(
  shape: JsonObject,
  ids: { traceId: string; spanId: string; name: string; kind: string; opId: string },
  attrs: JsonObject,
  message: string,
): SpanInput {
  const exception = str(shape.exception);
  const status = statusOf(shape.status_code);
  return {
    traceId: ids.traceId,
    spanId: ids.spanId,
    parentSpanId: str(shape.parent_span_id) || null,
    name: ids.name,
    kind: ids.kind,
    start: nanos(shape.start_ns),
    end: nanos(shape.end_ns),
    // An exception event marks an error even when the status was left unset.
    status: exception && status === STATUS.unset ? STATUS.error : status,
    error: errorText(message, exception, str(attrs['error.type'])),
    model: firstText(attrs, MODEL_KEYS),
    tokensIn: firstCount(attrs, IN_KEYS),
    tokensOut: firstCount(attrs, OUT_KEYS),
    opId: ids.opId,
  };
}

/** The spans of a graph (ops made from spans, then container spans); empty for a trace of no spans. */
export function spanInputs(g: TraceGraph): SpanInput[] {
  const out: SpanInput[] = [];
  for (let o = 0; o < g.ops.length; o++) {
    const m = g.ops[o].metadata;
    if (!isObject(m) || !isObject(m.otel_span)) continue;
    const attrs = isObject(m.otel_attributes) ? m.otel_attributes : {};
    const ids = {
      traceId: str(m.trace_id),
      spanId: str(m.span_id),
      // An inline judge's op is named `llm-judge`; the span's own name is kept beside it.
      name: str(m.span_name) || g.opName[o],
      kind: str(m.otel_kind),
      opId: g.opId[o],
    };
    out.push(spanOf(m.otel_span, ids, attrs, str(g.ops[o].comment)));
  }
  const meta = g.doc.metadata;
  const containers = isObject(meta) && Array.isArray(meta.otel_containers) ? meta.otel_containers : [];
  for (const c of containers) {
    if (!isObject(c)) continue;
    const ids = {
      traceId: str(c.trace_id),
      spanId: str(c.span_id),
      name: str(c.name),
      kind: str(c.otel_kind),
      opId: '',
    };
    out.push(spanOf(c, ids, {}, str(c.status_message)));
  }
  return out;
}
