/**
 * The receiver's protobuf fast path (`wireLines`: wire bytes → each trace's line) against the
 * tree path it replaces (decode → check → split by trace → `JSON.stringify`): byte-identical
 * lines and equal descriptions on requests the OpenTelemetry JS SDK makes (traces interleaved,
 * roots, events, links, error status, text needing JSON escapes, non-ASCII text) and on one
 * using every field kind; and the requests it leaves to the tree path (a span to refuse, a
 * field sent twice, nesting too deep, bytes cut short) answered exactly as the tree path does.
 */
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  decodeTraceRequest,
  otlpTypes,
  receiveTraceRequest,
  splitByTrace,
  wireLines,
} from '../../src/core/receiver/index.ts';
import { deepProtobuf } from './deep-bodies.ts';
import { ID, richSpan } from './rich-span.ts';

/** The tree path's answer: each trace's line and description, the counts and reasons. */
function treePath(body: Uint8Array) {
  const d = decodeTraceRequest(body, 'protobuf');
  if (!d.ok) return d;
  const parts = splitByTrace(d.request).map((p) => ({
    traceId: p.traceId,
    line: `${JSON.stringify(p.request)}\n`,
    summary: p.summary,
  }));
  return { ok: true, parts, accepted: d.accepted, rejected: d.rejected, reasons: d.reasons };
}

/** The fast path's lines as text, with the descriptions. */
function fastPath(body: Uint8Array) {
  const r = wireLines(body);
  if (!r) return null;
  const parts = r.parts.map((p) => ({ ...p, line: Buffer.from(p.line).toString('utf8') }));
  return { ok: true, parts, accepted: r.accepted, rejected: 0, reasons: [] };
}

const TEXTS = [
  'plain words',
  'a "quoted" word, a back\\slash, a\ttab, a\nnew line, \r\b\f and \u0001\u001f\u007f',
  JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'What did I say?' }] }]),
  'é ✓ 日本語 and an emoji 🙂',
  '',
];

/** Spans of three traces made by the SDK, interleaved, with roots, children, events, links and statuses. */
async function sdkRequest(): Promise<Uint8Array> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc "quoted"', 'host.arch': 'x64' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracers = [provider.getTracer('lib-a', '1.0'), provider.getTracer('lib-b')];
  const roots = [0, 1, 2].map((t) => tracers[0].startSpan(`turn ${t}`, {}, ROOT_CONTEXT));
  for (let i = 0; i < 30; i++) {
    const root = roots[i % 3];
    const span = tracers[i % 2].startSpan(
      TEXTS[i % TEXTS.length] || 'unnamed',
      {
        attributes: {
          text: TEXTS[i % TEXTS.length],
          n: i,
          big: 2 ** 40 + i,
          ratio: i / 7,
          ok: i % 2 === 0,
          list: ['a', TEXTS[(i + 1) % TEXTS.length]],
        },
        links: i % 4 === 0 ? [{ context: roots[(i + 1) % 3].spanContext(), attributes: { why: 'x' } }] : [],
      },
      trace.setSpan(context.active(), root),
    );
    span.addEvent('memory.read', { hit: TEXTS[i % TEXTS.length] });
    if (i % 5 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: TEXTS[i % TEXTS.length] });
    span.end();
  }
  for (const r of roots) r.end();
  const body = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
  await provider.shutdown();
  return body;
}

/** A request using every field kind (encoded by protobufjs), as the wire decoder's own test does. */
function everyKind(): Uint8Array {
  const { request } = otlpTypes();
  const any = {
    kvlistValue: {
      values: [
        { key: 'neg', value: { intValue: '-5' } },
        { key: 'nan', value: { doubleValue: Number.NaN } },
        { key: 'inf', value: { doubleValue: Number.NEGATIVE_INFINITY } },
        { key: 'pi', value: { doubleValue: 3.25 } },
        { key: 'raw', value: { bytesValue: Buffer.from([0, 255, 7]) } },
        { key: 'list', value: { arrayValue: { values: [{ boolValue: true }, { stringValue: 'é ✓' }] } } },
      ],
    },
  };
  const span = (n: number, trace: number) =>
    richSpan({ trace, span: n, parent: n > 2 ? 2 : undefined, name: `span ${n}`, value: any });
  const body = request
    .encode(
      request.fromObject({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
            scopeSpans: [
              {
                scope: { name: 'lib', version: '1' },
                spans: [span(2, 1), span(3, 9), span(6, 1)],
                schemaUrl: 'u',
              },
              { spans: [span(7, 9)] },
            ],
            schemaUrl: 'r',
          },
          { scopeSpans: [{ scope: { name: 'other' }, spans: [span(8, 1)] }] },
        ],
      }),
    )
    .finish();
  // An unknown field (number 99, varint) both paths skip.
  return Uint8Array.from([...body, 0x98, 0x06, 0x01]);
}

describe('the protobuf fast path', () => {
  it('writes the lines the tree path writes, byte for byte, for an SDK request (escapes, non-ASCII, links, events)', async () => {
    const body = await sdkRequest();
    const fast = fastPath(body);
    expect(fast).not.toBeNull();
    expect(fast!.parts).toHaveLength(3);
    expect(fast).toEqual(treePath(body));
    expect(receiveTraceRequest(body, 'protobuf')).toMatchObject({ ok: true, accepted: 33 });
  });

  it('every field kind, several resources and scopes, traces moving between them', () => {
    const body = everyKind();
    const fast = fastPath(body);
    expect(fast?.parts.map((p) => p.traceId)).toEqual(['01'.repeat(16), '09'.repeat(16)]);
    expect(fast).toEqual(treePath(body));
  });

  it('leaves to the tree path, and so answers as it does: a span to refuse, a field sent twice, too deep, cut short', () => {
    const { request } = otlpTypes();
    const one = (span: object) =>
      request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] })).finish();
    const good = { traceId: ID(1, 16), spanId: ID(2, 8), name: 'ok' };
    const zeroTrace = request
      .encode(
        request.fromObject({
          resourceSpans: [{ scopeSpans: [{ spans: [good, { traceId: ID(0, 16), spanId: ID(3, 8) }] }] }],
        }),
      )
      .finish();
    // `name` (field 5, "ok") sent a second time as "again": an object keeps the later value.
    const twice = Uint8Array.from([...one(good)]);
    const again = [0x2a, 5, ...Buffer.from('again')];
    const patched = patchSpan(twice, again);
    const cases = {
      zeroTrace,
      twice: patched,
      deep: deepProtobuf(1000),
      cut: one(good).slice(0, 20),
    };
    for (const [name, body] of Object.entries(cases)) {
      expect(wireLines(body), name).toBeNull();
      const received = receiveTraceRequest(body, 'protobuf');
      const tree = treePath(body);
      if (!tree.ok) expect(received, name).toEqual(tree);
      else
        expect(
          received.ok && {
            ...received,
            parts: received.parts.map((p) => ({ ...p, line: Buffer.from(p.line).toString() })),
          },
          name,
        ).toEqual(tree);
    }
    expect(treePath(patched)).toMatchObject({ ok: true, accepted: 1 });
  });
});

/** The request with `extra` bytes appended inside its one span (every enclosing length grown to match). */
function patchSpan(body: Uint8Array, extra: number[]): Uint8Array {
  // request: 0a L1 [resourceSpans: 12 L2 [scopeSpans: 12 L3 [span…]]] (all lengths < 128 here)
  const b = [...body];
  expect([b[0], b[2], b[4]]).toEqual([0x0a, 0x12, 0x12]);
  b[1] += extra.length;
  b[3] += extra.length;
  b[5] += extra.length;
  return Uint8Array.from([...b, ...extra]);
}
