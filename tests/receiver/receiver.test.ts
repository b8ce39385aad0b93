/**
 * The receiver's pure part: bodies made by the real OpenTelemetry serializers decoded back
 * (expectations from the SDK's own spans, not from the decoder), spans with bad ids refused
 * one by one, bad bodies refused whole, requests split per trace, replies read back by the
 * OpenTelemetry exporter's own response decoder.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  decodeTraceRequest,
  encodingOf,
  exportResponse,
  idHex,
  type OtlpTraceRequest,
  splitByTrace,
  statusBody,
} from '../../src/core/receiver/index.ts';

/** Two traces of real SDK spans: a root with two children, and a lone root. */
async function sdkSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'unit-svc' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('unit');
  const root = tracer.startSpan('agent run');
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  const a = tracer.startSpan(
    'chat',
    { attributes: { 'gen_ai.operation.name': 'chat', n: 7, ok: true } },
    ctx,
  );
  a.addEvent('gen_ai.choice', { 'gen_ai.choice.text': 'hi' });
  a.end();
  tracer.startSpan('search_memory', { attributes: { 'gen_ai.memory.query.text': 'tea?' } }, ctx).end();
  root.end();
  tracer.startSpan('lone').end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

const allSpans = (r: OtlpTraceRequest) =>
  r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans));

describe('decodeTraceRequest', () => {
  it('reads protobuf and JSON made by the OpenTelemetry serializers: hex ids, names, attributes, events', async () => {
    const spans = await sdkSpans();
    for (const [encoding, bytes] of [
      ['protobuf', ProtobufTraceSerializer.serializeRequest(spans)],
      ['json', JsonTraceSerializer.serializeRequest(spans)],
    ] as const) {
      const r = decodeTraceRequest(bytes!, encoding);
      if (!r.ok) throw new Error(r.message);
      expect(r).toMatchObject({ accepted: 4, rejected: 0 });
      const got = allSpans(r.request);
      for (const s of spans) {
        const g = got.find((x) => x.spanId === s.spanContext().spanId);
        expect(g, `${encoding} ${s.name}`).toBeDefined();
        expect(g!.traceId).toBe(s.spanContext().traceId);
        expect(g!.name).toBe(s.name);
        expect(g!.parentSpanId).toBe(s.parentSpanContext?.spanId);
        expect(BigInt(g!.startTimeUnixNano!)).toBe(
          BigInt(s.startTime[0]) * 1_000_000_000n + BigInt(s.startTime[1]),
        );
      }
      const chat = got.find((x) => x.name === 'chat')!;
      expect(chat.attributes).toEqual(
        expect.arrayContaining([
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'ok', value: { boolValue: true } },
        ]),
      );
      expect(chat.events).toMatchObject([{ name: 'gen_ai.choice' }]);
      expect(r.request.resourceSpans[0].resource?.attributes).toEqual(
        expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'unit-svc' } }]),
      );
    }
  });

  it('refuses spans with a missing, short or all-zero id one by one, and says where', () => {
    const good = { traceId: 'AB'.repeat(16), spanId: '01'.repeat(8), name: 'ok' };
    const body = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                good,
                { ...good, traceId: '00'.repeat(16) },
                { ...good, spanId: 'abc' },
                { name: 'no ids' },
                'not a span',
                { ...good, spanId: '02'.repeat(8), parentSpanId: '' },
              ],
            },
          ],
        },
      ],
    };
    const r = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(body)), 'json');
    if (!r.ok) throw new Error(r.message);
    expect(r.accepted).toBe(2);
    expect(r.rejected).toBe(4);
    expect(r.reasons[0]).toBe(
      `resourceSpans[0].scopeSpans[0].spans[1]: traceId "${'00'.repeat(16)}" is not a valid 16-byte id`,
    );
    expect(r.reasons[1]).toMatch(/spans\[2\]: spanId "abc"/);
    const kept = allSpans(r.request);
    expect(kept.map((s) => s.traceId)).toEqual(['ab'.repeat(16), 'ab'.repeat(16)]);
    expect('parentSpanId' in kept[1]).toBe(false);
  });

  it('accepts base64 ids in JSON (the plain protobuf JSON mapping) and the old instrumentationLibrarySpans', () => {
    const traceB64 = btoa(String.fromCharCode(...Array.from({ length: 16 }, (_, i) => i + 1)));
    const body = {
      resourceSpans: [
        {
          instrumentationLibrarySpans: [
            {
              instrumentationLibrary: { name: 'old' },
              spans: [{ traceId: traceB64, spanId: 'AAAAAAAAAAE=' }],
            },
          ],
        },
      ],
    };
    const r = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(body)), 'json');
    if (!r.ok) throw new Error(r.message);
    expect(r.request.resourceSpans[0].scopeSpans[0].scope).toEqual({ name: 'old' });
    expect(allSpans(r.request)[0]).toMatchObject({
      traceId: '0102030405060708090a0b0c0d0e0f10',
      spanId: '0000000000000001',
    });
  });

  it('refuses a body that is not a request: bad protobuf, bad JSON, bad UTF-8, wrong shapes', () => {
    const bad = (bytes: Uint8Array, encoding: 'protobuf' | 'json') => {
      const r = decodeTraceRequest(bytes, encoding);
      return r.ok ? 'accepted' : r.message;
    };
    // Field 1, length-delimited, claims 2^28 bytes: the buffer ends first.
    expect(bad(Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01]), 'protobuf')).toMatch(
      /^not a protobuf ExportTraceServiceRequest: a field of 268435456 bytes runs past the end of its message/,
    );
    expect(bad(new TextEncoder().encode('{"resourceSpans": ['), 'json')).toMatch(/^invalid JSON/);
    expect(bad(Uint8Array.from([0x7b, 0xc0, 0x7d]), 'json')).toBe('the JSON body is not valid UTF-8');
    expect(bad(new TextEncoder().encode('[]'), 'json')).toBe(
      'the body is not an ExportTraceServiceRequest object',
    );
    expect(bad(new TextEncoder().encode('{"resourceSpans": {}}'), 'json')).toBe(
      'request.resourceSpans is not a list',
    );
    expect(bad(new TextEncoder().encode('{"resourceSpans": [{"scopeSpans": [{"spans": 3}]}]}'), 'json')).toBe(
      'resourceSpans[0].scopeSpans[0].spans is not a list',
    );
  });

  it('an empty request is a success with no spans (the spec: respond with success)', () => {
    for (const [bytes, enc] of [
      [new Uint8Array(0), 'protobuf'],
      [new TextEncoder().encode('{}'), 'json'],
      [new TextEncoder().encode('{"resourceSpans": null}'), 'json'],
    ] as const)
      expect(decodeTraceRequest(bytes, enc)).toMatchObject({ ok: true, accepted: 0, rejected: 0 });
  });
});

describe('encodingOf and idHex', () => {
  it('names the two OTLP media types, parameters and case ignored', () => {
    expect(encodingOf('application/x-protobuf')).toBe('protobuf');
    expect(encodingOf('Application/JSON; charset=utf-8')).toBe('json');
    expect(encodingOf('text/plain')).toBeNull();
    expect(encodingOf(undefined)).toBeNull();
  });
  it('checks length and zeros', () => {
    expect(idHex('0123456789ABCDEF', 8)).toBe('0123456789abcdef');
    expect(idHex('0000000000000000', 8)).toBeNull();
    expect(idHex('0123456789abcdef', 16)).toBeNull();
    expect(idHex(42, 8)).toBeNull();
  });
});

describe('splitByTrace', () => {
  it('gives each trace its spans under their own resource and scope, with a description', async () => {
    const spans = await sdkSpans();
    const r = decodeTraceRequest(ProtobufTraceSerializer.serializeRequest(spans)!, 'protobuf');
    if (!r.ok) throw new Error(r.message);
    const parts = splitByTrace(r.request);
    const ids = [...new Set(spans.map((s) => s.spanContext().traceId))];
    expect(parts.map((p) => p.traceId).sort()).toEqual([...ids].sort());
    for (const p of parts) {
      const mine = spans.filter((s) => s.spanContext().traceId === p.traceId);
      expect(
        allSpans(p.request)
          .map((s) => s.spanId)
          .sort(),
      ).toEqual(mine.map((s) => s.spanContext().spanId).sort());
      expect(p.summary).toMatchObject({ spans: mine.length, requests: 1, service: 'unit-svc' });
      expect(p.summary.root).toBe(mine.find((s) => !s.parentSpanContext)!.name);
    }
  });

  it('keeps interleaved traces apart across resources and scopes', () => {
    const T1 = '11'.repeat(16);
    const T2 = '22'.repeat(16);
    const sp = (traceId: string, n: number) => ({
      traceId,
      spanId: String(n).padStart(16, '0'),
      name: `s${n}`,
    });
    const svc = (name: string) => ({ attributes: [{ key: 'service.name', value: { stringValue: name } }] });
    const request = {
      resourceSpans: [
        {
          resource: svc('a'),
          scopeSpans: [{ scope: { name: 'x' }, spans: [sp(T1, 1), sp(T2, 2), sp(T1, 3)] }],
        },
        {
          resource: svc('b'),
          scopeSpans: [{ scope: { name: 'y' }, spans: [sp(T2, 4)] }, { spans: [sp(T2, 5)] }],
        },
      ],
    };
    const [p1, p2] = splitByTrace(request);
    expect(p1.request).toEqual({
      resourceSpans: [
        { resource: svc('a'), scopeSpans: [{ scope: { name: 'x' }, spans: [sp(T1, 1), sp(T1, 3)] }] },
      ],
    });
    expect(p2.request).toEqual({
      resourceSpans: [
        { resource: svc('a'), scopeSpans: [{ scope: { name: 'x' }, spans: [sp(T2, 2)] }] },
        {
          resource: svc('b'),
          scopeSpans: [{ scope: { name: 'y' }, spans: [sp(T2, 4)] }, { spans: [sp(T2, 5)] }],
        },
      ],
    });
    expect(p2.summary).toMatchObject({ spans: 3, service: 'a', root: 's2' });
  });
});

describe('replies', () => {
  it('partial success reads back through the exporters’ own response decoders', () => {
    const pb = ProtobufTraceSerializer.deserializeResponse(exportResponse('protobuf', 3, 'three bad ids'));
    expect(pb.partialSuccess).toMatchObject({ errorMessage: 'three bad ids' });
    expect(Number(pb.partialSuccess?.rejectedSpans)).toBe(3);
    const js = JsonTraceSerializer.deserializeResponse(exportResponse('json', 3, 'three bad ids'));
    expect(Number(js.partialSuccess?.rejectedSpans)).toBe(3);
    expect(ProtobufTraceSerializer.deserializeResponse(exportResponse('protobuf', 0, ''))).toEqual({});
    expect(JsonTraceSerializer.deserializeResponse(exportResponse('json', 0, ''))).toEqual({});
  });
  it('a failure status carries its message (protobuf: field 2, length-delimited)', () => {
    const body = statusBody('protobuf', 'too large');
    expect(Array.from(body.slice(0, 2))).toEqual([0x12, 9]);
    expect(new TextDecoder().decode(body.slice(2))).toBe('too large');
    expect(JSON.parse(new TextDecoder().decode(statusBody('json', 'too large')))).toEqual({
      message: 'too large',
    });
  });
});
