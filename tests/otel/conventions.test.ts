/**
 * Conventions the shared third-party files do not all show, each on a span written by hand
 * after the convention's documentation: GenAI messages as event attributes (the newer
 * `gen_ai.client.inference.operation.details`), the older per-message events with structured
 * bodies, Traceloop workflow values, Vercel AI SDK tool calls, a whole `gen_ai.prompt` text.
 */
import { describe, expect, it } from 'vitest';
import { parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const TRACE = '0af7651916cd43dd8448eb211c80319c';

function load(spans: object[]): TraceDocument {
  const text = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  const r = parseTraceText(text, { file: 'c.json' });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.doc;
}

function io(doc: TraceDocument, opId: string) {
  const value = new Map(doc.data.nodes.map((n) => [n.full_node_id, String(n.value)]));
  const edges = doc.data.edges.filter((e) => e.op_id === opId);
  const vals = (ids: string[]) => [...new Set(ids)].map((id) => value.get(id)).filter((v) => v !== 'NONE');
  return {
    reads: vals(edges.map((e) => e.source_full_node_id)),
    writes: vals(edges.map((e) => e.target_full_node_id)),
  };
}

const base = { traceId: TRACE, startTimeUnixNano: '1700000000000000000' };

describe('GenAI events', () => {
  it('gen_ai.client.inference.operation.details carries the messages as event attributes', () => {
    const doc = load([
      {
        ...base,
        spanId: 'b7ad6b7169203331',
        name: 'chat gpt-4o',
        attributes: [s('gen_ai.operation.name', 'chat')],
        events: [
          {
            name: 'gen_ai.client.inference.operation.details',
            attributes: [
              s('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: 'Answer briefly.' }])),
              s(
                'gen_ai.input.messages',
                JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Capital of Peru?' }] }]),
              ),
              s(
                'gen_ai.output.messages',
                JSON.stringify([
                  { role: 'assistant', parts: [{ type: 'text', content: 'Lima.' }], finish_reason: 'stop' },
                ]),
              ),
            ],
          },
        ],
      },
    ]);
    expect(io(doc, 'op-b7ad6b7169203331')).toEqual({
      reads: ['Answer briefly.', 'Capital of Peru?'],
      writes: ['Lima.'],
    });
  });

  it('the older per-message events: system / user / tool messages in, a choice with a message body out', () => {
    const doc = load([
      {
        ...base,
        spanId: 'b7ad6b7169203332',
        name: 'chat',
        attributes: [s('gen_ai.operation.name', 'chat')],
        events: [
          { name: 'gen_ai.system.message', attributes: [s('content', 'You plan trips.')] },
          { name: 'gen_ai.user.message', attributes: [s('content', 'Two days in Porto?')] },
          { name: 'gen_ai.tool.message', attributes: [s('content', 'Rain on Saturday.'), s('id', 'call_1')] },
          {
            name: 'gen_ai.choice',
            attributes: [
              { key: 'index', value: { intValue: '0' } },
              s(
                'message',
                JSON.stringify({ role: 'assistant', content: 'Museums Saturday, the river Sunday.' }),
              ),
            ],
          },
        ],
      },
    ]);
    expect(io(doc, 'op-b7ad6b7169203332')).toEqual({
      reads: ['You plan trips.', 'Two days in Porto?', 'Rain on Saturday.'],
      writes: ['Museums Saturday, the river Sunday.'],
    });
    const category = (v: string) => doc.data.nodes.find((n) => n.value === v)?.category;
    expect([category('You plan trips.'), category('Rain on Saturday.')]).toEqual(['prompt', 'tool_result']);
  });

  it('a whole gen_ai.prompt / gen_ai.completion text (no index) is read', () => {
    const doc = load([
      {
        ...base,
        spanId: 'b7ad6b7169203333',
        name: 'completion',
        attributes: [
          s('gen_ai.operation.name', 'text_completion'),
          s('gen_ai.prompt', 'system: Be terse.\nuser: Name a prime.'),
          s('gen_ai.completion', 'Seven.'),
        ],
      },
    ]);
    expect(io(doc, 'op-b7ad6b7169203333')).toEqual({
      reads: ['Be terse.', 'Name a prime.'],
      writes: ['Seven.'],
    });
  });
});

describe('framework SDKs', () => {
  it('Traceloop workflow values and a Vercel tool call that reads the arguments the model wrote', () => {
    const args = '{"city":"Oslo"}';
    const doc = load([
      {
        ...base,
        spanId: 'b7ad6b7169203334',
        name: 'plan.workflow',
        attributes: [
          s('traceloop.span.kind', 'workflow'),
          s('traceloop.entity.input', JSON.stringify({ args: ['Weather in Oslo?'], kwargs: {} })),
          s('traceloop.entity.output', JSON.stringify('Cold and clear.')),
        ],
      },
      {
        ...base,
        startTimeUnixNano: '1700000000000000001',
        spanId: 'b7ad6b7169203335',
        name: 'ai.generateText.doGenerate',
        attributes: [
          s('ai.operationId', 'ai.generateText.doGenerate'),
          s(
            'ai.prompt.messages',
            JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }]),
          ),
          s(
            'ai.response.toolCalls',
            JSON.stringify([{ toolCallType: 'function', toolCallId: 'c1', toolName: 'weather', args }]),
          ),
        ],
      },
      {
        ...base,
        startTimeUnixNano: '1700000000000000002',
        spanId: 'b7ad6b7169203336',
        name: 'ai.toolCall',
        attributes: [
          s('ai.operationId', 'ai.toolCall'),
          s('ai.toolCall.name', 'weather'),
          s('ai.toolCall.args', args),
          s('ai.toolCall.result', '{"temperature":-3}'),
        ],
      },
    ]);
    const ops = doc.data.operations.map((o) => [o.op_name, o.category]);
    expect(ops).toEqual([
      ['plan.workflow', 'workflow'],
      ['ai.generateText.doGenerate', 'llm_call'],
      ['ai.toolCall', 'tool'],
    ]);
    expect(io(doc, 'op-b7ad6b7169203334')).toEqual({
      reads: ['Weather in Oslo?'],
      writes: ['Cold and clear.'],
    });
    // The model's call: the arguments as written, and the name of the tool it calls.
    expect(io(doc, 'op-b7ad6b7169203335').writes).toEqual([args, 'weather']);
    expect(io(doc, 'op-b7ad6b7169203336')).toEqual({ reads: [args], writes: ['{"temperature":-3}'] });
    const edge = doc.data.edges.find((e) => e.op_id === 'op-b7ad6b7169203336');
    expect(edge?.metadata).toEqual({ inferred: 'same-content' });
  });
});
