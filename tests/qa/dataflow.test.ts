/**
 * Dataflow from text on a span trace, as an OpenInference app writes one: the extraction call's
 * facts (JSON, one nested as an escaped string), a write span per fact (its input JSON inside a
 * JSON string), searches (one returns stored facts by ids the trace never wrote, one finds
 * nothing) and answer prompts that hold what came back as a bulleted list. Each expected edge is
 * written here by hand from the spans.
 */
import { describe, expect, it } from 'vitest';
import { normalizeUnit, parseTraceText, type TraceDocument, textUnits } from '../../src/core/trace/index.ts';

type Attr = { key: string; value: { stringValue: string } };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
let n = 0;
function span(name: string, attributes: Attr[]) {
  n++;
  const t = 1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n;
  return {
    traceId: TRACE,
    spanId: `00f067aa0ba9${String(n).padStart(4, '0')}`,
    name,
    kind: 1,
    startTimeUnixNano: String(t),
    endTimeUnixNano: String(t + 500n),
    attributes,
  };
}
const llm = (system: string, user: string, out: string) =>
  span('llm', [
    s('openinference.span.kind', 'LLM'),
    s('llm.input_messages.0.message.role', 'system'),
    s('llm.input_messages.0.message.content', system),
    s('llm.input_messages.1.message.role', 'user'),
    s('llm.input_messages.1.message.content', user),
    s('llm.output_messages.0.message.content', out),
  ]);

const FACT_A = 'Ana moved to Lisbon in May 2023.';
const FACT_B = 'Tom drives a "blue" Corolla.';

function load(): TraceDocument {
  const spans = [
    llm(
      'Extract facts.',
      'User: My sister Ana moved to Lisbon in May 2023.\nUser: Tom drives a blue Corolla.',
      JSON.stringify({ facts: [FACT_A, JSON.stringify({ text: FACT_B })] }),
    ),
    span('store.add', [
      s('openinference.span.kind', 'CHAIN'),
      s('input.value', JSON.stringify({ payload: JSON.stringify({ text: FACT_A }) })),
      s('output.value', 'ok'),
    ]),
    span('store.add', [
      s('openinference.span.kind', 'CHAIN'),
      s('input.value', JSON.stringify({ text: FACT_B })),
      s('output.value', 'ok'),
    ]),
    span('search', [
      s('openinference.span.kind', 'RETRIEVER'),
      s('input.value', 'Where did Ana move?'),
      s('retrieval.documents.0.document.id', 'doc-9'),
      s('retrieval.documents.0.document.content', FACT_A),
    ]),
    llm('Answer.', `Memories:\n-   ${FACT_A.toUpperCase()}\n\nQuestion: Where did Ana move?`, 'Lisbon.'),
    span('search', [
      s('openinference.span.kind', 'RETRIEVER'),
      s('input.value', 'What does Tom cook on Sundays?'),
    ]),
    llm('Answer.', 'Memories:\n\nQuestion: What does Tom cook on Sundays?', "I don't know."),
  ];
  const r = parseTraceText(
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'app' }, spans }] }],
    }),
    { file: 'app.json' },
  );
  if (!r.ok) throw new Error(r.issues[0].message);
  return r.doc;
}

const op = (i: number) => `op-00f067aa0ba9${String(i).padStart(4, '0')}`;

describe('dataflow from text', () => {
  it('units: lines, sentences, JSON strings however nested, escapes and labels, folded', () => {
    expect(normalizeUnit('  - “Ana  Moved to LISBON.”  ')).toBe('ana moved to lisbon');
    expect(
      textUnits(
        JSON.stringify({ a: [JSON.stringify({ b: 'Tom drives a blue car.\\nHe likes it a lot.' })] }),
      ),
    ).toEqual(['tom drives a blue car', 'he likes it a lot']);
    expect(textUnits('Question: Where did Ana move? She moved in May.')).toEqual([
      'question: where did ana move? she moved in may',
      'where did ana move? she moved in may',
      'question: where did ana move',
      'she moved in may',
    ]);
  });

  it('extraction → each write reads its own fact → the search reads the write → the answer reads the search', () => {
    load(); // warm: span numbering below starts after this
    n = 0;
    const doc = load();
    const edges = doc.data.edges.map((e) => ({
      op: e.op_id,
      src: e.source_full_node_id,
      dst: e.target_full_node_id,
      why: e.metadata.inferred,
    }));
    const value = (id: string) => doc.data.nodes.find((v) => v.full_node_id === id)?.value;
    // Each fact (the first one still wrapped in its JSON) is a piece the extraction call wrote,
    // and each write reads that piece alone, not the whole list.
    const pieceWrites = edges.filter((e) => e.why === 'piece' && e.op === op(1));
    const pieceVars = [...new Set(pieceWrites.map((e) => e.dst))];
    expect(pieceVars).toHaveLength(2);
    for (const w of [op(2), op(3)]) {
      const read = [...new Set(edges.filter((e) => e.op === w).map((e) => e.src))];
      expect(read, w).toHaveLength(1);
      expect(pieceVars, w).toContain(read[0]);
    }
    expect(pieceVars.map((v) => textUnits(value(v) ?? ''))).toEqual([
      [normalizeUnit(FACT_A)],
      [normalizeUnit(FACT_B)],
    ]);
    // The search's record doc-9 (an id nothing wrote) is the stored text: the first write wrote it.
    const stored = edges.filter((e) => e.why === 'stored-text');
    expect(stored.map((e) => [e.op, e.dst])).toEqual([[op(2), 'doc-9@1']]);
    expect(edges.some((e) => e.op === op(4) && e.src === 'doc-9@1')).toBe(true);
    // The answer prompt holds the search's result (bulleted, upper-cased): it reads it.
    const result = edges.find((e) => e.op === op(4) && e.src === 'doc-9@1')!.dst;
    expect(edges.some((e) => e.op === op(5) && e.src === result && e.why === 'contained')).toBe(true);
    // The empty search wrote its empty result; the prompt holding its query read it.
    const empty = edges.find((e) => e.op === op(6))!.dst;
    expect(value(empty)).toBe('[]');
    expect(edges.some((e) => e.op === op(7) && e.src === empty && e.why === 'contained')).toBe(true);
  });
});
