/**
 * What the importer did not understand is said: text in attributes it does not read, spans
 * it did not make ops, ids of the wrong type, a Langfuse trace without observations, a file of
 * no format (every format tried is named) — and OTLP JSON Lines as the Collector's file
 * exporter (and the live receiver) write them, including a last line still being written.
 */
import { describe, expect, it } from 'vitest';
import { parseTraceText } from '../../src/core/trace/index.ts';

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const TRACE = '0af7651916cd43dd8448eb211c80319c';

function request(spans: object[]) {
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'x' }, spans }] }] };
}

function span(id: string, name: string, attributes: Attr[], extra: Record<string, unknown> = {}) {
  return { traceId: TRACE, spanId: id, name, startTimeUnixNano: '1700000000000000000', attributes, ...extra };
}

const parse = (v: unknown) =>
  parseTraceText(typeof v === 'string' ? v : JSON.stringify(v), { file: 'f.json' });
const warningsOf = (r: ReturnType<typeof parse>, code: string) =>
  r.issues.filter((i) => i.severity === 'warning' && i.code === code);

describe('text the importer does not read', () => {
  it('is a warning naming the attributes, and says no text was kept at all', () => {
    const r = parse(
      request([
        span('b7ad6b7169203331', 'chat', [
          s('gen_ai.operation.name', 'chat'),
          s('myapp.prompt', 'What did Caroline say about the adoption agency?'),
          s('myapp.answer', 'She said they were very supportive.'),
          s('gen_ai.request.model', 'gpt-4o-mini'),
        ]),
        span('b7ad6b7169203332', 'chat', [
          s('gen_ai.operation.name', 'chat'),
          s('myapp.prompt', 'And when did she apply?'),
        ]),
      ]),
    );
    expect(r.ok).toBe(true);
    const [w] = warningsOf(r, 'unread-text');
    expect(w.message).toMatch(
      /^no text was kept from this file; text in attributes the importer does not read/,
    );
    expect(w.message).toContain('"myapp.prompt" (2 spans)');
    expect(w.message).toContain('"myapp.answer" (1 span)');
    expect(w.message).not.toContain('gen_ai.request.model');
  });

  it('names text in span events it does not read', () => {
    const r = parse(
      request([
        span('b7ad6b7169203331', 'step', [], {
          events: [{ name: 'myapp.turn', attributes: [s('utterance', 'I moved to Sweden last spring.')] }],
        }),
      ]),
    );
    expect(warningsOf(r, 'unread-text')[0]?.message).toContain('"event myapp.turn: utterance" (1 span)');
  });

  it('a file whose text is read gives no such warning', () => {
    const r = parse(
      request([
        span('b7ad6b7169203331', 'chat', [
          s('gen_ai.operation.name', 'chat'),
          s(
            'gen_ai.input.messages',
            JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi there, how are you?' }] }]),
          ),
        ]),
      ]),
    );
    expect(r.ok && r.doc.data.nodes.map((n) => n.value)).toContain('Hi there, how are you?');
    expect(warningsOf(r, 'unread-text')).toEqual([]);
  });

  it('spans that hold others and have no content are no ops: said, by kind', () => {
    const r = parse(
      request([
        span('b7ad6b7169203331', 'invoke_agent planner', [s('gen_ai.operation.name', 'invoke_agent')]),
        span(
          'b7ad6b7169203332',
          'chat',
          [s('gen_ai.operation.name', 'chat'), s('gen_ai.prompt.0.content', 'Plan the trip to Lisbon.')],
          {
            parentSpanId: 'b7ad6b7169203331',
          },
        ),
      ]),
    );
    expect(r.ok && r.doc.data.operations.map((o) => o.op_name)).toEqual(['chat']);
    expect(warningsOf(r, 'spans-not-ops')[0]?.message).toBe(
      '1 of 2 spans became no op (no content; they only hold other spans): "invoke_agent" (1 span)',
    );
  });
});

describe('ids of the wrong type, Langfuse without observations', () => {
  it('an OTLP traceId missing or a number, a parentSpanId that is an object: warnings at their place', () => {
    const r = parse(
      request([
        { spanId: 'b7ad6b7169203331', name: 'a', attributes: [] },
        { traceId: 12345, spanId: 'b7ad6b7169203332', name: 'b', attributes: [] },
        { traceId: TRACE, spanId: 'b7ad6b7169203333', parentSpanId: { id: 1 }, name: 'c', attributes: [] },
      ]),
    );
    expect(r.ok).toBe(true);
    const at = (code: string) => warningsOf(r, code).map((i) => [i.path, i.message]);
    expect(at('otlp-trace-id')).toEqual([
      [
        'resourceSpans[0].scopeSpans[0].spans[0].traceId',
        'traceId is missing; the span is put in a trace without id',
      ],
      [
        'resourceSpans[0].scopeSpans[0].spans[1].traceId',
        'traceId is a number, not an id; the span is put in a trace without id',
      ],
    ]);
    expect(at('otlp-parent-id')).toEqual([
      [
        'resourceSpans[0].scopeSpans[0].spans[2].parentSpanId',
        'parentSpanId is an object, not an id; the span is read as a root',
      ],
    ]);
  });

  it('a Langfuse download with no observations is a warning, its trace input and output still read', () => {
    const r = parse({
      trace: { id: 't1', name: 'qa', input: 'Where does Melanie live?', output: 'In Boston.' },
      observations: [],
    });
    expect(r.ok).toBe(true);
    expect(warningsOf(r, 'langfuse-no-observations')[0]?.message).toBe(
      'the trace has no observations: only its own input, output and scores are read',
    );
    expect(r.ok && r.doc.data.nodes.map((n) => n.value)).toEqual(
      expect.arrayContaining(['Where does Melanie live?', 'In Boston.']),
    );
  });

  it('a server download without input and output (a trace with many observations) says so', () => {
    const r = parse({
      observations: [
        { id: 'o1', traceId: 't1', type: 'GENERATION', name: 'chat', startTime: '2025-01-01T00:00:00Z' },
      ],
      scores: [],
    });
    expect(warningsOf(r, 'langfuse-no-io')[0]?.message).toMatch(/^no observation has an input or output/);
  });

  it('the traces list endpoint (observations as ids) says to download the trace itself', () => {
    const r = parse({
      data: [{ id: 't1', name: 'qa', input: 'Where?', output: 'Here.', observations: ['o1', 'o2'] }],
    });
    expect(warningsOf(r, 'langfuse-observation-ids')[0]?.message).toMatch(
      /^2 observation\(s\) are ids only .*GET \/api\/public\/traces\/\{id\}/,
    );
  });
});

describe('a file of no known format', () => {
  it('names every format tried and what the file has, never the smartcomment-only message', () => {
    const r = parse({ spans: [{ span_id: 'a', trace_id: 'b', name: 'chat' }] });
    expect(r.ok).toBe(false);
    const [e] = r.issues;
    expect(e.code).toBe('not-a-graph');
    expect(e.message).toContain('keys "spans"');
    for (const format of ['smartcomment', 'OTLP/JSON', 'ResourceSpans', 'Langfuse', 'Phoenix', 'SDK spans'])
      expect(e.message).toContain(format);
    expect(e.message).not.toContain('data is missing');
  });

  it("a list of unknown items names the first item's keys", () => {
    const r = parse([{ id: 1, text: 'x' }]);
    expect(r.issues[0].message).toMatch(/^the top level is a list whose first item has keys "id", "text"/);
  });
});

describe('OTLP JSON Lines (the Collector file exporter, the live receiver)', () => {
  const line = (id: string, text: string) =>
    JSON.stringify(
      request([
        span(id, 'chat', [
          s('gen_ai.operation.name', 'chat'),
          s(
            'gen_ai.input.messages',
            JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: text }] }]),
          ),
        ]),
      ]),
    );

  it('reads one request per line, blank lines and CRLF included', () => {
    const text = `\n${line('b7ad6b7169203331', 'first question')}\r\n\r\n${line('b7ad6b7169203332', 'second question')}\n`;
    const r = parse(text);
    expect(r.ok).toBe(true);
    expect(r.summary?.otel.format).toBe('otlp-jsonl');
    expect(r.ok && r.doc.data.nodes.map((n) => n.value).filter((v) => v !== 'NONE')).toEqual([
      'first question',
      'second question',
    ]);
  });

  it('a last line cut short (still being written) is a warning; the lines before it load', () => {
    const whole = line('b7ad6b7169203332', 'second question');
    const text = `${line('b7ad6b7169203331', 'first question')}\n${whole.slice(0, 40)}`;
    const r = parse(text);
    expect(r.ok).toBe(true);
    expect(r.issues).toMatchObject([{ severity: 'warning', code: 'jsonl-incomplete-line', line: 2 }]);
    expect(r.ok && r.doc.data.nodes.map((n) => n.value).filter((v) => v !== 'NONE')).toEqual([
      'first question',
    ]);
  });

  it('a broken line in the middle is still an error naming the line', () => {
    const text = `${line('b7ad6b7169203331', 'a')}\n{"resourceSpans": [\n${line('b7ad6b7169203332', 'b')}\n`;
    const r = parse(text);
    expect(r.ok).toBe(false);
    expect(r.issues[0]).toMatchObject({ severity: 'error', code: 'json-syntax', line: 2 });
  });
});
