/**
 * A memory agent's turn traced with the real OpenTelemetry JS SDK (GenAI conventions):
 * extraction by a model, a memory record written, a search, the answer. `exportTurn` sends it
 * through a real OTLP/HTTP exporter; the texts are what a test expects back after import.
 */
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

export const TEXTS = {
  user: 'I adopted a grey cat called Miso last Saturday.',
  fact: 'User adopted a grey cat named Miso (Saturday).',
  question: 'What is the name of my cat?',
  answer: 'Your cat is called Miso.',
};

const messages = (role: string, content: string) =>
  JSON.stringify([{ role, parts: [{ type: 'text', content }] }]);

/**
 * Traces one turn (root span `memory-agent turn` and four children) and exports it with
 * `exporter`: `batch` sends it in one request, else one request per span as spans end.
 * Returns the trace id.
 */
export async function exportTurn(
  exporter: SpanExporter,
  options: { batch: boolean; service?: string },
): Promise<string> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service ?? 'memory-agent' }),
    spanProcessors: [options.batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('memory-agent-test', '1.0.0');
  const root = tracer.startSpan('memory-agent turn', {}, ROOT_CONTEXT);
  const ctx = trace.setSpan(context.active(), root);
  const child = (name: string, attributes: Record<string, string>) =>
    tracer.startSpan(name, { attributes }, ctx).end();
  child('chat extract', {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'test-model',
    'gen_ai.input.messages': messages('user', TEXTS.user),
    'gen_ai.output.messages': messages('assistant', TEXTS.fact),
  });
  child('create_memory', {
    'gen_ai.operation.name': 'create_memory',
    'gen_ai.memory.store.id': 'user-1',
    'gen_ai.memory.records': JSON.stringify([{ id: 'mem_1', content: TEXTS.fact }]),
  });
  child('search_memory', {
    'gen_ai.operation.name': 'search_memory',
    'gen_ai.memory.store.id': 'user-1',
    'gen_ai.memory.query.text': TEXTS.question,
    'gen_ai.memory.records': JSON.stringify([{ id: 'mem_1', content: TEXTS.fact, score: 0.9 }]),
  });
  child('chat answer', {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'test-model',
    'gen_ai.input.messages': messages('user', `Memories:\n${TEXTS.fact}\nQuestion: ${TEXTS.question}`),
    'gen_ai.output.messages': messages('assistant', TEXTS.answer),
  });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return root.spanContext().traceId;
}
