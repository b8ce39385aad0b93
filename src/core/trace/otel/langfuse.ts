/**
 * Langfuse trace exports: a trace `{id, name, input, output, sessionId, metadata,
 * observations: [{id, type, name, startTime, endTime, parentObservationId, input, output,
 * model, metadata}], scores: [{name, value, stringValue, comment, observationId}]}` (one, a
 * list, or the API's `{data: [...]}`). Observations become spans with OpenInference names;
 * scores become `gen_ai.evaluation.result` events on what they score, with the golden answer
 * from the trace's (or the score's) metadata.
 */
import type { IssueCollector } from '../issues.ts';
import type { OtelSpan, SpanEvent } from './span.ts';
import { type AttrValue, normalizeTime } from './values.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A Langfuse trace: an id and a list of observations. */
export function isLangfuseTrace(v: unknown): boolean {
  return isObject(v) && typeof v.id === 'string' && Array.isArray(v.observations);
}

const KIND: Record<string, string> = {
  GENERATION: 'LLM',
  SPAN: 'CHAIN',
  EVENT: 'CHAIN',
  AGENT: 'AGENT',
  TOOL: 'TOOL',
  CHAIN: 'CHAIN',
  RETRIEVER: 'RETRIEVER',
  EVALUATOR: 'EVALUATOR',
  EMBEDDING: 'EMBEDDING',
  GUARDRAIL: 'GUARDRAIL',
};

const GOLDEN = [
  'expected_output',
  'expectedOutput',
  'golden_answer',
  'golden_answers',
  'reference',
  'ground_truth',
];

function golden(meta: unknown): AttrValue | undefined {
  if (!isObject(meta)) return undefined;
  for (const k of GOLDEN) if (Object.hasOwn(meta, k)) return meta[k] as AttrValue;
  return undefined;
}

const json = (v: unknown): AttrValue | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

function ioAttributes(o: Record<string, unknown>, kind: string): Record<string, AttrValue> {
  const a: Record<string, AttrValue> = Object.create(null);
  a['openinference.span.kind'] = kind;
  const input = json(o.input);
  const output = json(o.output);
  if (input !== undefined) a['input.value'] = input;
  if (output !== undefined) a['output.value'] = output;
  if (typeof o.model === 'string') a['llm.model_name'] = o.model;
  if (typeof o.sessionId === 'string') a['session.id'] = o.sessionId;
  if (isObject(o.metadata)) a.metadata = JSON.stringify(o.metadata);
  return a;
}

export function readLangfuseTrace(
  trace: unknown,
  place: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  if (!isObject(trace) || typeof trace.id !== 'string' || !Array.isArray(trace.observations)) {
    issues.warn('langfuse-shape', 'not a Langfuse trace (id and observations); skipped', place);
    return;
  }
  const traceId = trace.id;
  const root: OtelSpan = {
    traceId,
    spanId: traceId,
    parentSpanId: null,
    name: typeof trace.name === 'string' ? trace.name : 'trace',
    kind: null,
    start: normalizeTime(trace.timestamp),
    end: null,
    attributes: ioAttributes(trace, 'CHAIN'),
    events: [],
    status: { code: null, message: null },
    resource: {},
    scope: 'langfuse',
    place,
  };
  const spans = new Map<string, OtelSpan>([[traceId, root]]);
  out.push(root);
  trace.observations.forEach((o, i) => {
    const p = `${place}.observations[${i}]`;
    if (!isObject(o) || typeof o.id !== 'string') {
      issues.warn('langfuse-shape', 'observation without an id; skipped', p);
      return;
    }
    const type = typeof o.type === 'string' ? o.type.toUpperCase() : 'SPAN';
    const kind = KIND[type];
    const attrs = ioAttributes(o, kind ?? 'CHAIN');
    if (!kind) {
      delete attrs['openinference.span.kind'];
      attrs['langfuse.observation.type'] = type;
    }
    const span: OtelSpan = {
      traceId,
      spanId: o.id,
      parentSpanId: typeof o.parentObservationId === 'string' ? o.parentObservationId : traceId,
      name: typeof o.name === 'string' ? o.name : type.toLowerCase(),
      kind: null,
      start: normalizeTime(o.startTime),
      end: normalizeTime(o.endTime),
      attributes: attrs,
      events: [],
      status: {
        code: typeof o.level === 'string' ? o.level : null,
        message: typeof o.statusMessage === 'string' ? o.statusMessage : null,
      },
      resource: {},
      scope: 'langfuse',
      place: p,
    };
    spans.set(o.id, span);
    out.push(span);
  });
  const expected = golden(trace.metadata);
  (Array.isArray(trace.scores) ? trace.scores : []).forEach((s, i) => {
    if (!isObject(s)) return;
    const target = (typeof s.observationId === 'string' && spans.get(s.observationId)) || root;
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
    if (target === root) {
      // A score of the whole trace judges the trace's answer to the trace's question.
      if (root.attributes['input.value'] !== undefined)
        e.attributes.input = JSON.stringify({
          query: root.attributes['input.value'],
          prediction: root.attributes['output.value'] ?? null,
        });
    }
    target.events.push(e);
  });
}
