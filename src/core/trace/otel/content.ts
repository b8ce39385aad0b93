/**
 * What one span says it read and wrote, in the words of the convention it follows. The kind
 * comes from the first convention that names one (GenAI `gen_ai.operation.name`, OpenInference
 * `openinference.span.kind`, Vercel `ai.operationId`, Traceloop `traceloop.span.kind` /
 * `llm.request.type`, Langfuse `langfuse.observation.type`, LangSmith `langsmith.span.kind`);
 * the content from the first reader that finds any: GenAI attributes, GenAI events,
 * OpenInference (or plain `input.value`), Vercel `ai.*`, whole-value inputs and outputs
 * (Traceloop, LangWatch, Langfuse). Whichever reader found them, the span's instructions, tool
 * definitions and retrieved documents are read too. The graph builder turns the items into
 * variables.
 */

import { SESSION_ID, SemanticConventions } from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
} from '@opentelemetry/semantic-conventions/incubating';
import { appendAll } from '../../arrays.ts';
import { str } from './attrs.ts';
import { evaluationFrom, openInferenceEvaluations } from './evaluation.ts';
import { GENAI_CATEGORY, MEMORY_OPS, readGenAi, readGenAiEvents } from './genai.ts';
import { readGiven } from './given.ts';
import { readIoValues } from './io-values.ts';
import { type Convention, GIVEN, type SpanContent } from './items.ts';
import { OI_CATEGORY, readDocuments, readOpenInference } from './openinference.ts';
import type { RecordTexts } from './record-texts.ts';
import type { OtelSpan } from './span.ts';
import { readVercel, VERCEL_OPERATION, vercelCategory } from './vercel.ts';

export type * from './items.ts';

/** Traceloop's span kinds and OpenLLMetry's request types → op categories. */
const TRACELOOP_CATEGORY: ReadonlyMap<string, string> = new Map([
  ['workflow', 'workflow'],
  ['task', 'chain'],
  ['agent', 'agent'],
  ['tool', 'tool'],
  ['chat', 'llm_call'],
  ['completion', 'llm_call'],
  ['embedding', 'embedding'],
  ['rerank', 'retrieval'],
]);

/** Where Langfuse's SDK and LangSmith's OpenTelemetry export name a span's kind. */
const FRAMEWORK_KINDS: readonly [Convention, string][] = [
  ['langfuse', 'langfuse.observation.type'],
  ['langsmith', 'langsmith.span.kind'],
];

/** Langfuse observation types and LangSmith run types (lower-cased) → op categories. */
const FRAMEWORK_CATEGORY: ReadonlyMap<string, string> = new Map([
  ['generation', 'llm_call'],
  ['llm', 'llm_call'],
  ['span', 'chain'],
  ['event', 'chain'],
  ['chain', 'chain'],
  ['parser', 'chain'],
  ['agent', 'agent'],
  ['tool', 'tool'],
  ['retriever', 'retrieval'],
  ['evaluator', 'evaluation'],
  ['embedding', 'embedding'],
  ['guardrail', 'guardrail'],
  ['prompt', 'prompt'],
]);

type Kind = Pick<SpanContent, 'convention' | 'kind' | 'category'>;

/** The kind of a span: the first convention that names one. */
function kindOf(span: OtelSpan): Kind {
  const a = span.attributes;
  let op = str(a[ATTR_GEN_AI_OPERATION_NAME]);
  // The community mem0 instrumentation names spans `update_memory mem0` without the attribute.
  const first = span.name.split(' ')[0];
  if (!op && MEMORY_OPS.has(first) && span.name.includes(' ')) op = first;
  if (op) return { convention: 'genai', kind: op, category: GENAI_CATEGORY.get(op) ?? 'operation' };
  const oi = str(a[SemanticConventions.OPENINFERENCE_SPAN_KIND])?.toUpperCase();
  if (oi) return { convention: 'openinference', kind: oi, category: OI_CATEGORY.get(oi) ?? 'operation' };
  const vercel = str(a[VERCEL_OPERATION]);
  if (vercel) return { convention: 'vercel-ai', kind: vercel, category: vercelCategory(vercel) };
  const tl = str(a['traceloop.span.kind']) ?? str(a['llm.request.type']);
  if (tl) return { convention: 'traceloop', kind: tl, category: TRACELOOP_CATEGORY.get(tl) ?? 'operation' };
  for (const [convention, key] of FRAMEWORK_KINDS) {
    const kind = str(a[key]);
    if (kind)
      return { convention, kind, category: FRAMEWORK_CATEGORY.get(kind.toLowerCase()) ?? 'operation' };
  }
  return { convention: 'none', kind: null, category: 'span' };
}

const found = (c: SpanContent) =>
  c.inputs.length > 0 || c.outputs.length > 0 || c.memory !== null || c.evaluations.length > 0;

/** The readers, in the order they are tried; the first that finds content is the span's. */
const READERS: ((span: OtelSpan, c: SpanContent, texts?: RecordTexts) => void)[] = [
  (span, c, texts) => readGenAi(span, c.convention === 'genai' ? c.kind : null, c, texts),
  readGenAiEvents,
  (span, c) => readOpenInference(span, c.convention === 'openinference' ? (c.kind ?? '') : '', c),
  readVercel,
  readIoValues,
];

/** Evaluation results are events on the span they judge, in every convention (Langfuse scores too). */
function readEvaluations(span: OtelSpan, c: SpanContent): void {
  for (const e of span.events)
    if (e.name === 'gen_ai.evaluation.result') c.evaluations.push(evaluationFrom(e.attributes, span.name));
  appendAll(c.evaluations, openInferenceEvaluations(span.attributes, span.name));
  if (c.kind === 'evaluate' && !c.evaluations.length)
    c.evaluations.push(evaluationFrom(span.attributes, span.name));
  // A judge's question, golden answer and answer may be its own input messages, named by class.
  for (const e of c.evaluations) {
    const named = (cls: string) => c.inputs.find((x) => x.className === cls)?.text ?? null;
    e.query ??= named('query');
    e.golden ??= named('golden_answers');
    e.prediction ??= named('prediction');
  }
}

/** What a response echoes of its request (instructions, tools) was given to the span, not made by it. */
function givenFromOutputs(c: SpanContent): void {
  const given = c.outputs.filter((x) => GIVEN.has(x.role));
  if (!given.length) return;
  c.outputs = c.outputs.filter((x) => !GIVEN.has(x.role));
  c.inputs = [...given.filter((x) => !c.inputs.some((y) => y.text === x.text)), ...c.inputs];
}

/**
 * Reads one span's content. With `texts`, memory records are read through it (the contents
 * then arrive at `texts.flush()`).
 */
export function spanContent(span: OtelSpan, texts?: RecordTexts): SpanContent {
  const a = span.attributes;
  const c: SpanContent = {
    ...kindOf(span),
    inputs: [],
    outputs: [],
    memory: null,
    evaluations: [],
    session: str(a[SESSION_ID]) ?? str(a[ATTR_GEN_AI_CONVERSATION_ID]),
    hasContent: false,
  };
  for (const read of READERS) {
    if (found(c)) break;
    read(span, c, texts);
  }
  givenFromOutputs(c);
  readGiven(a, c);
  // An event may carry them too (`gen_ai.client.inference.operation.details`), messages read or not.
  for (const e of span.events) readGiven(e.attributes, c);
  if (!c.memory) readDocuments(a, c);
  readEvaluations(span, c);
  c.hasContent =
    c.inputs.length > 0 ||
    c.outputs.length > 0 ||
    c.evaluations.length > 0 ||
    (c.memory !== null &&
      (c.memory.records.length > 0 || c.memory.op === 'delete' || c.memory.op.endsWith('store')));
  return c;
}
