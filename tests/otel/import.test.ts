/**
 * Span formats through `parseTraceText`: the shared OTLP example, each encoding quirk,
 * the GenAI memory / OpenInference / Langfuse mappings, inferred edges and bad input.
 * Expectations are written from the inputs by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { formatIssue, parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });

function request(spans: object[]) {
  return {
    resourceSpans: [
      { resource: { attributes: [s('service.name', 'svc')] }, scopeSpans: [{ scope: { name: 'x' }, spans }] },
    ],
  };
}

const TRACE = '0af7651916cd43dd8448eb211c80319c';
let n = 0;
function span(name: string, attributes: Attr[], extra: Record<string, unknown> = {}) {
  n++;
  return {
    traceId: TRACE,
    spanId: `b7ad6b71690${String(n).padStart(5, '0')}`,
    name,
    kind: 3,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n + 500n),
    attributes,
    ...extra,
  };
}

function load(text: string, file = 'spans.json') {
  const r = parseTraceText(text, { file });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r;
}
const ops = (doc: TraceDocument) => doc.data.operations;
const nodeValues = (doc: TraceDocument) => doc.data.nodes.map((x) => x.value);

describe('the shared OTLP example (opentelemetry-proto examples/trace.json)', () => {
  it('imports as one op, no cases, with a summary that says why', () => {
    const r = load(readFileSync(join(SHARED_DATA, 'otel/trace.json'), 'utf8'), 'trace.json');
    expect(ops(r.doc)).toHaveLength(1);
    expect(ops(r.doc)[0]).toMatchObject({
      op_id: 'op-eee19b7ec3c1b174',
      op_name: "I'm a server span",
      created_at: '2018-12-13 14:51:00.000',
    });
    expect(listCases(buildGraph(r.doc))).toHaveLength(0);
    expect(r.summary?.text).toMatch(/^OTLP\/JSON: 1 span → 1 op/);
    expect(r.summary?.text).toContain('no cases');
    expect(r.summary?.text).toContain('1 span without recorded content');
    expect(r.summary?.text).toContain('1 span of no GenAI / OpenInference / Langfuse kind');
    expect(r.issues.filter((i) => i.severity === 'error')).toEqual([]);
  });
});

describe('encoding quirks', () => {
  it('reads base64 ids as the same hex ids', () => {
    // 0x5b8efff798038103d269b633813fc60c / 0xeee19b7ec3c1b174 in base64
    const r = load(
      JSON.stringify(
        request([
          { traceId: 'W47/95gDgQPSabYzgT/GDA==', spanId: '7uGbfsPBsXQ=', name: 'a', startTimeUnixNano: 1 },
        ]),
      ),
    );
    expect(ops(r.doc)[0].op_id).toBe('op-eee19b7ec3c1b174');
    expect(r.doc.graph_id).toBe('graph-5b8efff798038103d269b633813fc60c');
  });
  it('orders spans by string times, number times and {low, high} times alike', () => {
    const t = 1_700_000_000_123_000_000n; // 2023-11-14 22:13:20.123 UTC
    const low = Number(t & 0xffffffffn);
    const high = Number(t >> 32n);
    const r = load(
      JSON.stringify(
        request([
          {
            traceId: TRACE,
            spanId: '0000000000000003',
            name: 'third',
            startTimeUnixNano: String(t + 2_000_000n),
          },
          { traceId: TRACE, spanId: '0000000000000001', name: 'first', startTimeUnixNano: { low, high } },
          {
            traceId: TRACE,
            spanId: '0000000000000002',
            name: 'second',
            startTimeUnixNano: Number(t + 1_000_000n),
          },
        ]),
      ),
    );
    expect(ops(r.doc).map((o) => o.op_name)).toEqual(['first', 'second', 'third']);
    expect(ops(r.doc)[0].created_at).toBe('2023-11-14 22:13:20.123');
  });
  it('reads JSON Lines of requests, one per line', () => {
    const a = request([span('chat a', [s('gen_ai.operation.name', 'chat')])]);
    const b = request([span('chat b', [s('gen_ai.operation.name', 'chat')])]);
    const r = load(`${JSON.stringify(a)}\n${JSON.stringify(b)}\n`, 'spans.jsonl');
    expect(ops(r.doc).map((o) => o.op_name)).toEqual(['chat a', 'chat b']);
    expect(r.summary?.otel.format).toBe('otlp-jsonl');
  });
  it('reads GenAI documents written as a JSON string and structured (kvlist) alike', () => {
    const docs = [{ id: 'd1', content: 'Caroline adopted a dog named Biscuit', score: 0.9 }];
    const asString = span('retrieval kb', [
      s('gen_ai.operation.name', 'retrieval'),
      s('gen_ai.retrieval.query.text', 'What is the dog called?'),
      s('gen_ai.retrieval.documents', JSON.stringify(docs)),
    ]);
    const structured = span('retrieval kb', [
      s('gen_ai.operation.name', 'retrieval'),
      s('gen_ai.retrieval.query.text', 'Who adopted a dog?'),
      {
        key: 'gen_ai.retrieval.documents',
        value: {
          arrayValue: {
            values: [
              {
                kvlistValue: {
                  values: [
                    { key: 'id', value: { stringValue: 'd1' } },
                    { key: 'content', value: { stringValue: docs[0].content } },
                    { key: 'score', value: { doubleValue: 0.9 } },
                  ],
                },
              },
            ],
          },
        },
      },
    ]);
    const r = load(JSON.stringify(request([asString, structured])));
    // One document variable, read by both searches.
    const doc = r.doc.data.nodes.filter((x) => x.value === docs[0].content);
    expect(doc).toHaveLength(1);
    const readers = r.doc.data.edges
      .filter((e) => e.source_full_node_id === doc[0].full_node_id)
      .map((e) => e.op_id);
    expect(new Set(readers).size).toBe(2);
  });
  it('reads flattened OpenInference indexes (llm.input_messages.N.message.*, retrieval.documents.N.document.*)', () => {
    const r = load(
      JSON.stringify(
        request([
          span('retrieve', [
            s('openinference.span.kind', 'RETRIEVER'),
            s('input.value', 'When is the camping trip?'),
            s('retrieval.documents.0.document.id', 'm1'),
            s('retrieval.documents.0.document.content', 'Melanie plans a camping trip to Yosemite in June'),
            s('retrieval.documents.1.document.id', 'm2'),
            s('retrieval.documents.1.document.content', 'Caroline paints landscapes with watercolors'),
          ]),
          span('answer', [
            s('openinference.span.kind', 'LLM'),
            s('llm.input_messages.0.message.role', 'system'),
            s('llm.input_messages.0.message.content', 'Answer from the memories.'),
            s('llm.input_messages.1.message.role', 'user'),
            s('llm.input_messages.1.message.content', 'When is the camping trip?'),
            s('llm.output_messages.0.message.role', 'assistant'),
            s('llm.output_messages.0.message.content', 'In June'),
          ]),
        ]),
      ),
    );
    expect(r.doc.data.nodes.find((x) => x.value === 'Answer from the memories.')?.category).toBe('prompt');
    expect(nodeValues(r.doc)).toEqual(
      expect.arrayContaining(['Melanie plans a camping trip to Yosemite in June', 'In June']),
    );
    // The question the retriever read is the one the LLM read: same variable, edge marked inferred.
    const q = r.doc.data.nodes.filter((x) => x.value === 'When is the camping trip?');
    expect(q).toHaveLength(1);
    const answerOp = ops(r.doc)[1].op_id;
    const e = r.doc.data.edges.find(
      (x) => x.op_id === answerOp && x.source_full_node_id === q[0].full_node_id,
    );
    expect(e).toBeDefined();
  });
  it('keeps spans without content as ops and says so in the summary', () => {
    const r = load(
      JSON.stringify(
        request([
          span('chat gpt-4o', [s('gen_ai.operation.name', 'chat'), s('gen_ai.request.model', 'gpt-4o')]),
        ]),
      ),
    );
    expect(ops(r.doc)).toHaveLength(1);
    expect(ops(r.doc)[0].metadata).toMatchObject({
      otel_note: expect.stringContaining('no content'),
      otel_attributes: { 'gen_ai.request.model': 'gpt-4o' },
    });
    expect(r.summary?.text).toContain('1 span without recorded content');
    expect(r.summary?.otel.unknownKind).toBe(0);
  });
});

describe('GenAI memory spans', () => {
  it('make version chains by store id + record id (create → update → delete) and searches read the versions they returned', () => {
    const rec = (id: string, content: string) =>
      s('gen_ai.memory.records', JSON.stringify([{ id, content }]));
    const r = load(
      JSON.stringify(
        request([
          span('create_memory', [
            s('gen_ai.operation.name', 'create_memory'),
            s('gen_ai.memory.store.id', 'user-1'),
            rec('mem_1', 'Likes tea'),
          ]),
          span('update_memory', [
            s('gen_ai.operation.name', 'update_memory'),
            s('gen_ai.memory.store.id', 'user-1'),
            s('gen_ai.memory.record.id', 'mem_1'),
            rec('mem_1', 'Likes green tea'),
          ]),
          span('search_memory', [
            s('gen_ai.operation.name', 'search_memory'),
            s('gen_ai.memory.store.id', 'user-1'),
            s('gen_ai.memory.query.text', 'what tea?'),
            s(
              'gen_ai.memory.records',
              JSON.stringify([{ id: 'mem_1', content: 'Likes green tea', score: 0.8 }]),
            ),
          ]),
          // Older mem0 instrumentation: no gen_ai.operation.name, legacy attribute names.
          span('delete_memory mem0', [
            s('gen_ai.memory.id', 'mem_1'),
            s('gen_ai.memory.namespace', 'user-1'),
          ]),
        ]),
      ),
    );
    const chain = r.doc.data.nodes.filter((x) => x.name === 'mem_1' && x.class_name === 'user-1');
    expect(chain.map((x) => [x.version, x.value])).toEqual([
      [1, 'Likes tea'],
      [2, 'Likes green tea'],
      [3, 'None'],
    ]);
    const [create, update, search, del] = ops(r.doc);
    expect(del.category).toBe('deletion');
    const edge = (op: string, src: string) =>
      r.doc.data.edges.find((e) => e.op_id === op.toString() && e.source_full_node_id === src);
    expect(edge(update.op_id, 'user-1:mem_1@1')?.metadata).toEqual({ inferred: 'memory-record' });
    expect(edge(search.op_id, 'user-1:mem_1@2')?.metadata).toEqual({ inferred: 'memory-record' });
    expect(edge(del.op_id, 'user-1:mem_1@2')?.target_full_node_id).toBe('user-1:mem_1@3');
    expect(create.category).toBe('update');
    expect(r.summary?.otel.inferredEdges).toBeGreaterThanOrEqual(3);
  });
  it('infers an edge when a later input contains an earlier output line', () => {
    const fact = 'Caroline went to the LGBTQ support group on 7 May';
    const r = load(
      JSON.stringify(
        request([
          span('chat extract', [
            s('gen_ai.operation.name', 'chat'),
            s(
              'gen_ai.output.messages',
              JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: fact }] }]),
            ),
          ]),
          span('chat answer', [
            s('gen_ai.operation.name', 'chat'),
            s(
              'gen_ai.input.messages',
              JSON.stringify([
                { role: 'user', parts: [{ type: 'text', content: `Memories:\n${fact}\nQuestion: when?` }] },
              ]),
            ),
          ]),
        ]),
      ),
    );
    const factVar = r.doc.data.nodes.find((x) => x.value === fact)!;
    const answerOp = ops(r.doc)[1].op_id;
    expect(
      r.doc.data.edges.find((e) => e.op_id === answerOp && e.source_full_node_id === factVar.full_node_id)
        ?.metadata,
    ).toEqual({ inferred: 'contained' });
  });
});

describe('judges become cases', () => {
  it('an OpenInference EVALUATOR with a verdict and a golden answer is an llm-judge case', () => {
    const r = load(
      JSON.stringify(
        request([
          span('answer', [
            s('openinference.span.kind', 'LLM'),
            s('llm.input_messages.0.message.role', 'user'),
            s('llm.input_messages.0.message.content', 'Where did Melanie camp?'),
            s('llm.output_messages.0.message.content', 'At the beach'),
          ]),
          span('judge', [
            s('openinference.span.kind', 'EVALUATOR'),
            s(
              'input.value',
              JSON.stringify({
                query: 'Where did Melanie camp?',
                reference: 'Yosemite',
                output: 'At the beach',
              }),
            ),
            s('input.mime_type', 'application/json'),
            s('output.value', JSON.stringify({ label: 'incorrect', explanation: 'Golden says Yosemite' })),
          ]),
        ]),
      ),
    );
    const cases = listCases(buildGraph(r.doc));
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({
      question: 'Where did Melanie camp?',
      prediction: 'At the beach',
      failed: true,
    });
    expect(cases[0].goldenAnswers).toEqual(['Yosemite']);
  });
  it('a Langfuse trace with a score and an expected output in its metadata is a case', () => {
    const trace = {
      id: 'trace-1',
      name: 'qa',
      timestamp: '2024-05-01T10:00:00.000Z',
      input: 'What does Caroline paint?',
      output: 'Portraits',
      sessionId: 'conv-26',
      metadata: { expected_output: 'Landscapes' },
      observations: [
        {
          id: 'obs-1',
          type: 'RETRIEVER',
          name: 'search',
          startTime: '2024-05-01T10:00:00.100Z',
          input: 'What does Caroline paint?',
          output: ['Caroline paints landscapes'],
        },
        {
          id: 'obs-2',
          type: 'GENERATION',
          name: 'answer',
          startTime: '2024-05-01T10:00:00.200Z',
          parentObservationId: null,
          input: [{ role: 'user', content: 'What does Caroline paint?' }],
          output: 'Portraits',
        },
      ],
      scores: [{ name: 'correctness', value: 0, comment: 'wrong', dataType: 'NUMERIC' }],
    };
    const r = load(JSON.stringify(trace), 'langfuse.json');
    expect(r.summary?.otel.format).toBe('langfuse');
    expect(r.doc.data.sessions.map((x) => x.session_id)).toContain('conv-26');
    const cases = listCases(buildGraph(r.doc));
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({
      question: 'What does Caroline paint?',
      prediction: 'Portraits',
      judgeScore: 0,
    });
  });
  it('reads Phoenix span rows with nested attributes', () => {
    const rows = [
      {
        name: 'llm',
        span_kind: 'LLM',
        context: { trace_id: 'abc', span_id: 's1' },
        parent_id: null,
        start_time: '2024-05-01T10:00:00Z',
        attributes: { input: { value: 'hello there friend' }, output: { value: 'hi' } },
      },
    ];
    const r = load(JSON.stringify(rows), 'phoenix.json');
    expect(r.summary?.otel.format).toBe('phoenix');
    expect(nodeValues(r.doc)).toEqual(expect.arrayContaining(['hello there friend', 'hi']));
  });
});

describe('bad input names the file and the place', () => {
  it('a broken JSON Lines line', () => {
    const good = JSON.stringify(request([span('a', [])]));
    const r = parseTraceText(`${good}\n{"resourceSpans": [\n`, { file: 'x.jsonl' });
    expect(r.ok).toBe(false);
    expect(formatIssue(r.issues[0])).toMatch(/^x\.jsonl:2:1: error: invalid JSON on this line/);
  });
  it('resourceSpans that is not a list', () => {
    const r = parseTraceText('{"resourceSpans": {"spans": []}}', { file: 'y.json' });
    expect(r.ok).toBe(false);
    expect(r.issues.map(formatIssue)).toContain('y.json: resourceSpans: error: resourceSpans is not a list');
  });
  it('a span without an id gets one derived from its place, said at its path; no spans at all is an error', () => {
    const r = parseTraceText(JSON.stringify(request([{ name: 'no id' }])), { file: 'z.json' });
    expect(r.ok).toBe(true);
    const lines = r.issues.map(formatIssue);
    expect(lines[0]).toMatch(
      /^z\.json: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.spanId: warning: spanId is missing or not an id; the span was given the id [0-9a-f]{16}, derived from its place in the file/,
    );
    const id = /the id ([0-9a-f]{16})/.exec(lines[0])?.[1];
    expect(r.ok && r.doc.data.operations.map((o) => o.op_id)).toEqual([`op-${id}`]);
    const none = parseTraceText(JSON.stringify(request([])), { file: 'z.json' });
    expect(none.ok).toBe(false);
    expect(none.issues.map(formatIssue)).toEqual(['z.json: error: no spans found in the file']);
  });
  it('broken memtrace records name the span and the attribute', () => {
    const r = parseTraceText(JSON.stringify(request([span('root', [s('memtrace.graph', '{"header": ')])])), {
      file: 'm.json',
    });
    expect(r.ok).toBe(false);
    expect(formatIssue(r.issues[0])).toMatch(
      /^m\.json: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\["memtrace\.graph"\]: error: memtrace\.graph is not valid JSON/,
    );
  });
  it('hostile keys and markup stay plain data', () => {
    const r = load(
      JSON.stringify(
        request([
          span('<script>alert(1)</script>', [
            s('__proto__', 'polluted'),
            s('gen_ai.operation.name', 'chat'),
            s(
              'gen_ai.input.messages',
              '[{"role":"user","parts":[{"type":"text","content":"<img src=x onerror=alert(1)>"}],"__proto__":{"x":1}}]',
            ),
          ]),
        ]),
      ),
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(ops(r.doc)[0].op_name).toBe('<script>alert(1)</script>');
    expect(nodeValues(r.doc)).toContain('<img src=x onerror=alert(1)>');
    // The attribute named "__proto__" is kept as the op's data, not dropped (nor made a prototype).
    const attrs = (ops(r.doc)[0].metadata as { otel_attributes: Record<string, unknown> }).otel_attributes;
    expect(Object.hasOwn(attrs, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(attrs, '__proto__')?.value).toBe('polluted');
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
  });
});

describe('inferred edges in the drawings', () => {
  it('the neighbourhood marks an inferred input edge EDGE_INFERRED and a recorded one EDGE_DATA', async () => {
    const { neighbourhood, EDGE_DATA, EDGE_INFERRED } = await import('../../src/core/layout/index.ts');
    const fact = 'Melanie ran a charity race for mental health last Saturday';
    const r = load(
      JSON.stringify(
        request([
          span('chat extract', [
            s('gen_ai.operation.name', 'chat'),
            s(
              'gen_ai.input.messages',
              JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'raw turn text here' }] }]),
            ),
            s(
              'gen_ai.output.messages',
              JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: fact }] }]),
            ),
          ]),
          span('chat answer', [
            s('gen_ai.operation.name', 'chat'),
            s(
              'gen_ai.input.messages',
              JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `Context:\n${fact}` }] }]),
            ),
            s(
              'gen_ai.output.messages',
              JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'last Saturday' }] }]),
            ),
          ]),
        ]),
      ),
    );
    const g = buildGraph(r.doc);
    const nb = neighbourhood(g, { ops: [g.opIndex.get(ops(r.doc)[1].op_id)!] }, { depth: 1 });
    expect([...nb.edgeKind].sort()).toEqual([EDGE_DATA, EDGE_DATA, EDGE_INFERRED].sort());
  });
});
