/**
 * A memory app as its developers write one: the real `openai` client, instrumented by
 * OpenInference's OpenAI instrumentation, extracts facts from each conversation with one chat
 * call, keeps them in an in-process keyword store (a write span per fact), and answers a
 * question from the facts its retriever returns (a RETRIEVER span whose documents are those
 * texts) with a second chat call. Spans go through the OTel SDK's OTLP/protobuf exporter.
 */
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { context, type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import OpenAI from 'openai';

/** The extraction prompt (the system message of the extraction call). */
export const EXTRACT_PROMPT =
  'You extract durable facts about the user from a conversation. Reply with JSON: {"facts": ["..."]}.';
/** The answer prompt (the system message of the answer call). */
export const ANSWER_PROMPT = 'Answer the question from the memories. Reply with a short answer.';

/** Words a keyword search leaves out. */
const STOP = new Set(
  'a an the is am are do did does i my me to of in on at for what which when where how who user s and'.split(
    ' ',
  ),
);

/** The in-process keyword store: facts, and the top `k` by shared content words with a query. */
class KeywordStore {
  readonly facts: { id: string; text: string }[] = [];
  add(text: string): string {
    const id = `mem-${this.facts.length + 1}`;
    this.facts.push({ id, text });
    return id;
  }
  search(query: string, k: number): { id: string; text: string; score: number }[] {
    const words = (s: string) =>
      new Set((s.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w)));
    const q = words(query);
    return this.facts
      .map((f) => ({ ...f, score: [...words(f.text)].filter((w) => q.has(w)).length }))
      .filter((f) => f.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }
}

/** The app: `remember` a conversation, `ask` a question. */
export class MemoryApp {
  readonly store = new KeywordStore();
  constructor(
    private readonly openai: OpenAI,
    private readonly tracer: Tracer,
    private readonly topK = 2,
  ) {}

  /** Extracts facts from a conversation and stores each. */
  remember(conversation: string): Promise<void> {
    return this.tracer.startActiveSpan('remember', async (span) => {
      const res = await this.openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: EXTRACT_PROMPT },
          { role: 'user', content: conversation },
        ],
      });
      const facts = (JSON.parse(res.choices[0].message.content ?? '{}') as { facts?: string[] }).facts ?? [];
      for (const fact of facts) this.write(fact);
      span.end();
    });
  }

  private write(fact: string): void {
    this.tracer.startActiveSpan('memory.add', (span) => {
      const id = this.store.add(fact);
      span.setAttributes({
        'openinference.span.kind': 'CHAIN',
        'input.value': JSON.stringify({ user_id: 'u1', text: fact }),
        'input.mime_type': 'application/json',
        'output.value': JSON.stringify({ id }),
        'output.mime_type': 'application/json',
      });
      span.end();
    });
  }

  private retrieve(query: string): string[] {
    return this.tracer.startActiveSpan('memory.search', (span) => {
      const hits = this.store.search(query, this.topK);
      span.setAttributes({ 'openinference.span.kind': 'RETRIEVER', 'input.value': query });
      hits.forEach((h, i) => {
        span.setAttribute(`retrieval.documents.${i}.document.id`, h.id);
        span.setAttribute(`retrieval.documents.${i}.document.content`, h.text);
        span.setAttribute(`retrieval.documents.${i}.document.score`, h.score);
      });
      span.end();
      return hits.map((h) => h.text);
    });
  }

  /** Answers a question from the retrieved memories. */
  ask(question: string): Promise<string> {
    return this.tracer.startActiveSpan('ask', async (span) => {
      const memories = this.retrieve(question);
      const res = await this.openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: ANSWER_PROMPT },
          {
            role: 'user',
            content: `Memories:\n${memories.map((m) => `- ${m}`).join('\n')}\n\nQuestion: ${question}`,
          },
        ],
      });
      span.end();
      return res.choices[0].message.content ?? '';
    });
  }
}

/** A traced run: the app, the root span's context, and `finish()` (ends the root span, flushes, shuts down). */
export function tracedApp(options: { llmBaseURL: string; otlpURL: string; topK?: number }) {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'memory-app' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.otlpURL }))],
  });
  provider.register();
  const instrumentation = new OpenAIInstrumentation();
  instrumentation.setTracerProvider(provider);
  instrumentation.manuallyInstrument(OpenAI);
  const tracer = provider.getTracer('memory-app');
  const openai = new OpenAI({ baseURL: options.llmBaseURL, apiKey: 'scripted-double', maxRetries: 0 });
  const app = new MemoryApp(openai, tracer, options.topK);
  const root = tracer.startSpan('memory-app session');
  const ctx = trace.setSpan(context.active(), root);
  return {
    app,
    /** Runs `fn` inside the root span. */
    run: <T>(fn: () => Promise<T>) => context.with(ctx, fn),
    async finish(): Promise<string> {
      root.end();
      await provider.forceFlush();
      await provider.shutdown();
      instrumentation.disable();
      return root.spanContext().traceId;
    },
  };
}
