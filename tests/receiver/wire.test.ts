/**
 * The receiver's protobuf decoder against protobufjs (the reference: its recursive decoder
 * and `toObject` as OTLP/JSON, ids turned to hex here) on a request using every field kind,
 * and the nesting limit at receipt against the importer's own check of the stored line.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeTraceRequest,
  type OtlpTraceRequest,
  otlpTypes,
  splitByTrace,
} from '../../src/core/receiver/index.ts';
import { parseTraceText } from '../../src/core/trace/index.ts';
import { DEEP_SPAN, deepJson, deepProtobuf } from './deep-bodies.ts';
import { richSpan } from './rich-span.ts';

const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

/** protobufjs's reading of a body, as OTLP/JSON with hex ids (what a Collector's file exporter writes). */
function reference(body: Uint8Array): unknown {
  const { request } = otlpTypes();
  const o = request.toObject(request.decode(body), { longs: String, bytes: String, json: true });
  for (const rs of o.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        s.traceId = hex(s.traceId);
        s.spanId = hex(s.spanId);
        if (s.parentSpanId !== undefined) s.parentSpanId = hex(s.parentSpanId);
        for (const l of s.links ?? []) {
          l.traceId = hex(l.traceId);
          l.spanId = hex(l.spanId);
        }
      }
  return o;
}

describe('the protobuf decoder', () => {
  it('reads every field kind as protobufjs does: ids, int64 (negative too), fixed64 times, doubles, bytes, nesting, events, links, status', () => {
    const { request } = otlpTypes();
    const any = {
      kvlistValue: {
        values: [
          { key: 'neg', value: { intValue: '-5' } },
          { key: 'big', value: { intValue: '9007199254740993' } },
          { key: 'nan', value: { doubleValue: Number.NaN } },
          { key: 'pi', value: { doubleValue: 3.25 } },
          { key: 'raw', value: { bytesValue: Buffer.from([0, 255, 7]) } },
          { key: 'list', value: { arrayValue: { values: [{ boolValue: true }, { stringValue: 'é ✓' }] } } },
        ],
      },
    };
    const span = richSpan({ trace: 1, span: 2, parent: 3, name: 'chat', value: any });
    const body = request
      .encode(
        request.fromObject({
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
              scopeSpans: [{ scope: { name: 'lib', version: '1' }, spans: [span], schemaUrl: 'u' }],
            },
          ],
        }),
      )
      .finish();
    // An unknown field (number 99, varint) the decoder must skip, as protobuf decoders do.
    const withUnknown = Uint8Array.from([...body, 0x98, 0x06, 0x01]);
    const r = decodeTraceRequest(withUnknown, 'protobuf');
    if (!r.ok) throw new Error(r.message);
    expect(r.request).toEqual(reference(body));
    expect(r.request.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano).toBe('1764950000123456789');
  });

  it('refuses a body cut short, naming the byte', () => {
    const r = decodeTraceRequest(Uint8Array.from([0x0a, 0x05, 0x12, 0x03, 0x0a]), 'protobuf');
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.message).toMatch(/^not a protobuf ExportTraceServiceRequest: .* at byte \d+$/);
  });
});

/** Whether the importer refuses a stored line as nested too deep (its own check, on the JSON text). */
function importerSaysTooDeep(request: OtlpTraceRequest): boolean {
  const [part] = splitByTrace(request);
  const r = parseTraceText(`${JSON.stringify(part.request)}\n`, { file: 'line.jsonl' });
  return r.issues.some((i) => i.code === 'too-deep');
}

describe('nesting checked on receipt', () => {
  it('accepts exactly what the importer accepts, at the limit and one level past it (protobuf and JSON)', () => {
    // The smallest depth refused: the limit's own level count is the importer's business.
    let refusedAt = 0;
    for (let levels = 40; levels < 90 && !refusedAt; levels++) {
      const pb = decodeTraceRequest(deepProtobuf(levels), 'protobuf');
      const js = decodeTraceRequest(new TextEncoder().encode(deepJson(levels)), 'json');
      expect(pb.ok, `levels ${levels}`).toBe(js.ok);
      if (!pb.ok) refusedAt = levels;
      else if (js.ok) {
        expect(pb.request).toEqual(js.request);
        expect(importerSaysTooDeep(pb.request), `levels ${levels}`).toBe(false);
      }
    }
    expect(refusedAt).toBeGreaterThan(0);
    // One level less was accepted above; the refused one, had it been stored, the importer refuses too.
    const stored = JSON.parse(deepJson(refusedAt)) as OtlpTraceRequest;
    expect(importerSaysTooDeep(stored)).toBe(true);
  });

  it('1,000 and 100,000 levels: refused with the place (span, attribute, path), no stack overflow', () => {
    for (const levels of [1_000, 100_000])
      for (const [encoding, body] of [
        ['protobuf', deepProtobuf(levels)],
        ['json', new TextEncoder().encode(deepJson(levels))],
      ] as const) {
        const r = decodeTraceRequest(body, encoding);
        expect(r.ok, `${encoding} ${levels}`).toBe(false);
        if (r.ok) continue;
        expect(r.message).toContain(`span ${JSON.stringify(DEEP_SPAN)} "root"`);
        expect(r.message).toContain('attribute "deep"');
        expect(r.message).toMatch(/^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value/);
        expect(r.message).toMatch(/nests more than \d+ levels deep/);
      }
  });
});
