/**
 * OpenTelemetry output of a traced run or a finished document, through the real
 * OpenTelemetry JS SDK: the spans `documentToSpans` describes are started and ended on an
 * SDK tracer (ids and times as described), collected by the in-memory exporter, and
 * serialised by `@opentelemetry/otlp-transformer`'s OTLP/JSON serializer — the bytes an
 * OTLP/HTTP JSON exporter would send. `OtelSink` does it at the end of a `Tracer` run.
 */
import { context, type HrTime, ROOT_CONTEXT, type SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type IdGenerator,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  documentToSpans,
  type EmitOptions,
  type SpanDescription,
  type TraceDocument,
} from '../core/trace/index.ts';
import { type GraphSink, MemorySink, type RecordList, type StreamOutput, type TraceHeader } from './sink.ts';

export interface OtlpOptions extends EmitOptions {
  /** `service.name` of the resource; default `memtrace`. */
  serviceName?: string;
}

/** Hands the SDK the ids the description names, one span at a time. */
class ScriptedIds implements IdGenerator {
  next: SpanDescription | null = null;
  generateTraceId(): string {
    return this.next?.traceId ?? '0'.repeat(31) + '1';
  }
  generateSpanId(): string {
    return this.next?.spanId ?? '0'.repeat(15) + '1';
  }
}

const hrTime = (ns: bigint): HrTime => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];

/** The document as OTLP/JSON bytes (an `ExportTraceServiceRequest`), made by the OpenTelemetry SDK. */
export async function otlpJson(doc: TraceDocument, options: OtlpOptions): Promise<Uint8Array> {
  const ids = new ScriptedIds();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'memtrace' }),
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    // Values are whole prompts and memory stores; spans list many messages.
    spanLimits: {
      attributeCountLimit: 1_000_000,
      attributeValueLengthLimit: Number.POSITIVE_INFINITY,
      eventCountLimit: 10_000,
    },
  });
  const tracer = provider.getTracer('memtrace-workbench', '0.1.0');
  for (const d of documentToSpans(doc, options)) {
    ids.next = d;
    const parent = d.parentSpanId
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: d.traceId,
          spanId: d.parentSpanId,
          traceFlags: TraceFlags.SAMPLED,
        })
      : ROOT_CONTEXT;
    const span = tracer.startSpan(
      d.name,
      // The API numbers kinds from INTERNAL = 0; OTLP from INTERNAL = 1.
      {
        kind: (d.kind - 1) as SpanKind,
        attributes: d.attributes,
        startTime: hrTime(d.start),
        root: !d.parentSpanId,
      },
      parent ?? context.active(),
    );
    for (const e of d.events) span.addEvent(e.name, e.attributes, hrTime(e.time));
    span.end(hrTime(d.end < d.start ? d.start : d.end));
  }
  await provider.forceFlush();
  const bytes = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  await provider.shutdown();
  if (!bytes) throw new Error('the OTLP serializer returned nothing');
  return bytes;
}

/** A tracer sink writing the run as OTLP/JSON when it finishes (records are kept in memory until then). */
export class OtelSink implements GraphSink {
  private readonly memory = new MemorySink();
  constructor(
    private readonly output: StreamOutput,
    private readonly options: OtlpOptions,
  ) {}
  add(list: RecordList, record: object): void {
    this.memory.add(list, record);
  }
  async close(header: TraceHeader): Promise<void> {
    this.output.write(await otlpJson(this.memory.document(header), this.options));
    await this.output.close?.();
  }
}
