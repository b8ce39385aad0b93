/**
 * Langfuse trace exports, in the shapes people have:
 * - the UI's "Download trace as JSON": `{trace: {..., scores}, observations: [...]}`;
 * - the newer server-side download: `{observations: [...], scores: [...]}` (no trace object);
 * - the public API's trace (`GET /api/public/traces/{id}`): `{id, ..., observations: [...],
 *   scores: [...]}`, one, a list, or the list endpoint's `{data: [...]}` (whose observations are
 *   ids only: said, not guessed).
 * Observations (`{id, type, name, startTime, endTime, parentObservationId, input, output, model,
 * metadata}`) become spans with OpenInference names; scores become `gen_ai.evaluation.result`
 * events on what they score, with the golden answer from the trace's (or the score's) metadata.
 * Input and output may be JSON text, even JSON text of JSON text: decoded before reading.
 */

import { appendAll } from '../../arrays.ts';
import type { IssueCollector } from '../issues.ts';
import type { OtelSpan, SpanEvent } from './span.ts';
import { type AttrValue, decodeJsonString, derivedSpanId, maybeJson, normalizeTime } from './values.ts';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The public API's trace: an id and a list of observations. */
function isApiTrace(v: unknown): v is Obj & { id: string; observations: unknown[] } {
  return isObject(v) && typeof v.id === 'string' && Array.isArray(v.observations);
}

/** The UI download: a trace object beside the observations. */
const isUiDownload = (v: unknown): v is { trace: Obj; observations: unknown[] } =>
  isObject(v) && isObject(v.trace) && Array.isArray(v.observations);

/** The server-side download: observations (each with its trace id) and scores, no trace object. */
const isServerDownload = (v: unknown): v is { observations: unknown[]; scores?: unknown } =>
  isObject(v) &&
  !('id' in v) &&
  Array.isArray(v.observations) &&
  (Array.isArray(v.scores) || v.observations.some((o) => isObject(o) && typeof o.traceId === 'string'));

/** A Langfuse export in one of the shapes above (a list of traces too). */
export function isLangfuseExport(v: unknown): boolean {
  if (isApiTrace(v) || isUiDownload(v) || isServerDownload(v)) return true;
  if (isObject(v) && Array.isArray(v.data) && v.data.length) return v.data.every(isApiTrace);
  return Array.isArray(v) && v.length > 0 && v.every(isApiTrace);
}

/** One trace of an export in the API's shape, with where it and its observations are in the file. */
interface Located {
  trace: Obj;
  place: string;
  observationsAt: string;
}

/** The traces of an export. */
function tracesOf(v: unknown): Located[] {
  if (isUiDownload(v))
    return [
      { trace: { ...v.trace, observations: v.observations }, place: 'trace', observationsAt: 'observations' },
    ];
  if (isServerDownload(v)) {
    const first = v.observations.find((o): o is Obj => isObject(o) && typeof o.traceId === 'string');
    const id = (first?.traceId as string | undefined) ?? 'langfuse-trace';
    const name = typeof first?.traceName === 'string' && first.traceName ? first.traceName : 'trace';
    const trace = { id, name, observations: v.observations, scores: v.scores };
    return [{ trace, place: 'observations', observationsAt: 'observations' }];
  }
  if (isApiTrace(v)) return [{ trace: v, place: '', observationsAt: 'observations' }];
  const wrapped = isObject(v) && Array.isArray(v.data);
  const list = wrapped ? (v as { data: unknown[] }).data : (v as unknown[]);
  return list.flatMap((trace, i) => {
    const place = `${wrapped ? 'data' : ''}[${i}]`;
    return isObject(trace) ? [{ trace, place, observationsAt: `${place}.observations` }] : [];
  });
}

/** Observation types → OpenInference kinds (a Map: the type comes from the file). */
const KIND: ReadonlyMap<string, string> = new Map([
  ['GENERATION', 'LLM'],
  ['SPAN', 'CHAIN'],
  ['EVENT', 'CHAIN'],
  ['AGENT', 'AGENT'],
  ['TOOL', 'TOOL'],
  ['CHAIN', 'CHAIN'],
  ['RETRIEVER', 'RETRIEVER'],
  ['EVALUATOR', 'EVALUATOR'],
  ['EMBEDDING', 'EMBEDDING'],
  ['GUARDRAIL', 'GUARDRAIL'],
]);

const GOLDEN = [
  'expected_output',
  'expectedOutput',
  'golden_answer',
  'golden_answers',
  'reference',
  'ground_truth',
];

function golden(meta: unknown): AttrValue | undefined {
  const m = typeof meta === 'string' ? maybeJson(meta) : meta;
  if (!isObject(m)) return undefined;
  for (const k of GOLDEN) if (Object.hasOwn(m, k)) return m[k] as AttrValue;
  return undefined;
}

/** Input / output as text: JSON text of JSON text (Langfuse double-encodes some) decoded once. */
function ioText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? decodeJsonString(v) : JSON.stringify(v);
}

function ioAttributes(o: Obj, kind: string | undefined, type: string): Record<string, AttrValue> {
  const a: Record<string, AttrValue> = Object.create(null);
  if (kind) a['openinference.span.kind'] = kind;
  else a['langfuse.observation.type'] = type;
  const input = ioText(o.input);
  const output = ioText(o.output);
  if (input !== undefined) a['input.value'] = input;
  if (output !== undefined) a['output.value'] = output;
  if (typeof o.model === 'string') a['llm.model_name'] = o.model;
  if (typeof o.sessionId === 'string') a['session.id'] = o.sessionId;
  if (typeof o.metadata === 'string' && o.metadata !== '{}') a.metadata = o.metadata;
  else if (isObject(o.metadata) && Object.keys(o.metadata).length) a.metadata = JSON.stringify(o.metadata);
  return a;
}

function langfuseSpan(o: Obj, traceId: string, parent: string | null, place: string): OtelSpan {
  const type = typeof o.type === 'string' ? o.type.toUpperCase() : 'SPAN';
  return {
    traceId,
    spanId: o.id as string,
    parentSpanId: parent,
    name: typeof o.name === 'string' ? o.name : type.toLowerCase(),
    kind: null,
    start: normalizeTime(o.startTime ?? o.timestamp),
    end: normalizeTime(o.endTime),
    attributes: ioAttributes(o, KIND.get(type), type),
    events: [],
    status: {
      code: typeof o.level === 'string' ? o.level : null,
      message: typeof o.statusMessage === 'string' ? o.statusMessage : null,
    },
    resource: {},
    scope: 'langfuse',
    place,
  };
}

/** Observations → spans; what cannot be read is said (ids only, no id, none at all). */
function observationSpans(t: Located, traceId: string, issues: IssueCollector): OtelSpan[] {
  const observations = Array.isArray(t.trace.observations) ? t.trace.observations : [];
  if (!observations.length)
    issues.warn(
      'langfuse-no-observations',
      'the trace has no observations: only its own input, output and scores are read',
      t.place || undefined,
    );
  const spans: OtelSpan[] = [];
  let idsOnly = 0;
  observations.forEach((o, i) => {
    const p = `${t.observationsAt}[${i}]`;
    if (typeof o === 'string') idsOnly++;
    else if (!isObject(o)) issues.warn('langfuse-shape', 'observation is not an object; skipped', p);
    else {
      const id = typeof o.id === 'string' && o.id ? o.id : derivedSpanId(p, 'id', issues, `${p}.id`);
      const parent = typeof o.parentObservationId === 'string' ? o.parentObservationId : null;
      spans.push(langfuseSpan({ ...o, id }, traceId, parent, p));
    }
  });
  const objects = observations.filter(isObject);
  if (objects.length && objects.every((o) => !('input' in o) && !('output' in o)))
    issues.warn(
      'langfuse-no-io',
      'no observation has an input or output: Langfuse leaves them out of the download of a trace with many observations; fetch the observations through the public API for their text',
      t.observationsAt,
    );
  if (idsOnly)
    issues.warn(
      'langfuse-observation-ids',
      `${idsOnly} observation(s) are ids only (the traces list endpoint); download the trace itself (GET /api/public/traces/{id}) for their content`,
      t.observationsAt,
    );
  return spans;
}

/**
 * The span the trace's own input, output and scores belong to: its one root observation (given
 * the trace's input / output when it has none), else a span for the trace above the roots.
 */
function traceRoot(t: Located, traceId: string, spans: OtelSpan[]): { root: OtelSpan; own: boolean } {
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const traceAttrs = ioAttributes(t.trace, 'CHAIN', 'TRACE');
  if (roots.length === 1) {
    const root = roots[0];
    for (const k of ['input.value', 'output.value', 'session.id'])
      if (root.attributes[k] === undefined && traceAttrs[k] !== undefined) root.attributes[k] = traceAttrs[k];
    return { root, own: false };
  }
  for (const s of roots) if (!s.parentSpanId) s.parentSpanId = traceId;
  const root: OtelSpan = {
    ...langfuseSpan({ ...t.trace, id: traceId, type: 'SPAN' }, traceId, null, t.place || 'trace'),
    name: typeof t.trace.name === 'string' ? t.trace.name : 'trace',
    attributes: traceAttrs,
  };
  return { root, own: true };
}

/** A score → a `gen_ai.evaluation.result` event on what it scores. */
function scoreEvent(
  s: Obj,
  i: number,
  expected: AttrValue | undefined,
  root: OtelSpan,
  onRoot: boolean,
): SpanEvent {
  const e: SpanEvent = {
    name: 'gen_ai.evaluation.result',
    time: normalizeTime(s.timestamp),
    attributes: Object.create(null),
  };
  e.attributes['gen_ai.evaluation.name'] = typeof s.name === 'string' ? s.name : `score ${i}`;
  if (typeof s.value === 'number' || typeof s.value === 'boolean')
    e.attributes['gen_ai.evaluation.score.value'] = s.value;
  if (typeof s.stringValue === 'string') e.attributes['gen_ai.evaluation.score.label'] = s.stringValue;
  if (typeof s.comment === 'string') e.attributes['gen_ai.evaluation.explanation'] = s.comment;
  const g = golden(s.metadata) ?? expected;
  if (g !== undefined) e.attributes.expected_output = g;
  // A score of the whole trace judges the trace's answer to the trace's question.
  if (onRoot && root.attributes['input.value'] !== undefined)
    e.attributes.input = JSON.stringify({
      query: root.attributes['input.value'],
      prediction: root.attributes['output.value'] ?? null,
    });
  return e;
}

/** Appends the spans of one Langfuse export (`prefix` names the line of a JSON Lines file) to `out`. */
export function readLangfuseExport(
  value: unknown,
  prefix: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  for (const located of tracesOf(value)) {
    const t = prefix
      ? {
          ...located,
          place: `${prefix}: ${located.place}`,
          observationsAt: `${prefix}: ${located.observationsAt}`,
        }
      : located;
    const traceId = typeof t.trace.id === 'string' ? t.trace.id : 'langfuse-trace';
    const spans = observationSpans(t, traceId, issues);
    const { root, own } = traceRoot(t, traceId, spans);
    if (own) out.push(root);
    appendAll(out, spans);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const expected = golden(t.trace.metadata);
    (Array.isArray(t.trace.scores) ? t.trace.scores : []).forEach((s, i) => {
      if (!isObject(s)) return;
      const target = (typeof s.observationId === 'string' && byId.get(s.observationId)) || root;
      target.events.push(scoreEvent(s, i, expected, root, target === root));
    });
  }
}
