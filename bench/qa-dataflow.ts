/**
 * A memory app's span trace at 100k spans with a QA file of one question per turn, as
 * `memtrace cases --qa` reads it: import (span reading, dataflow from text), the QA join,
 * the graph, and every case's path. Per turn: an extraction LLM call (OpenInference), three
 * write spans, a RETRIEVER span, an answer LLM call — 6 spans; 16,700 turns. The figures say
 * the dataflow and the join are linear: every stage is timed at 1/8, 1/2 and the full size.
 * `npx tsx bench/qa-dataflow.ts` writes the "QA files and dataflow from text" section.
 */
import { casePath, listCases } from '../src/core/cases/index.ts';
import { buildGraph } from '../src/core/graph/index.ts';
import { joinQa, parseQaFile } from '../src/core/qa/index.ts';
import { parseTraceText } from '../src/core/trace/index.ts';
import { machineFacts, writeResultsSection } from './stats-util.ts';

const machine = machineFacts();
const TRACE = '1'.repeat(32);
const s = (key: string, v: string) => ({ key, value: { stringValue: v } });

/** The trace (OTLP/JSON) and the QA file (JSONL) of `turns` turns. */
function memoryApp(turns: number): { trace: string; qa: string } {
  const spans: object[] = [];
  let n = 0;
  const span = (name: string, attributes: object[]) => {
    n++;
    const t = 1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n;
    spans.push({
      traceId: TRACE,
      spanId: n.toString(16).padStart(16, '0'),
      name,
      kind: 1,
      startTimeUnixNano: String(t),
      endTimeUnixNano: String(t + 500n),
      attributes,
    });
  };
  const llm = (system: string, user: string, out: string) =>
    span('OpenAI Chat Completions', [
      s('openinference.span.kind', 'LLM'),
      s('llm.input_messages.0.message.role', 'system'),
      s('llm.input_messages.0.message.content', system),
      s('llm.input_messages.1.message.role', 'user'),
      s('llm.input_messages.1.message.content', user),
      s('llm.output_messages.0.message.content', out),
    ]);
  const qa: string[] = [];
  for (let t = 0; t < turns; t++) {
    const facts = [0, 1, 2].map((k) => `User fact number ${t}-${k} says the colour is shade ${t * 7 + k}.`);
    llm(
      'Extract facts.',
      facts.map((f) => `User: ${f}\nAssistant: Noted!`).join('\n'),
      JSON.stringify({ facts }),
    );
    for (const f of facts)
      span('memory.add', [
        s('openinference.span.kind', 'CHAIN'),
        s('input.value', JSON.stringify({ text: f })),
        s('output.value', '{"ok":true}'),
      ]);
    const q = `What does fact ${t} say about the colour?`;
    const got = facts.slice(0, 2);
    span('memory.search', [
      s('openinference.span.kind', 'RETRIEVER'),
      s('input.value', q),
      ...got.flatMap((g, i) => [
        s(`retrieval.documents.${i}.document.id`, `m-${t}-${i}`),
        s(`retrieval.documents.${i}.document.content`, g),
      ]),
    ]);
    llm('Answer.', `Memories:\n${got.map((g) => `- ${g}`).join('\n')}\n\nQuestion: ${q}`, `Shade ${t * 7}.`);
    qa.push(JSON.stringify({ question: q, answer: `shade ${t * 7}` }));
  }
  const trace = JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
  });
  return { trace, qa: `${qa.join('\n')}\n` };
}

const judge = {
  rule: 'contains',
  accepts: (p: string, a: readonly string[]) => a.some((x) => p.toLowerCase().includes(x)),
};

function measure(turns: number) {
  const { trace, qa } = memoryApp(turns);
  const time = <T>(fn: () => T): [T, number] => {
    const t0 = performance.now();
    const out = fn();
    return [out, performance.now() - t0];
  };
  const [r, importMs] = time(() => parseTraceText(trace, { file: 'bench.json' }));
  if (!r.ok) throw new Error(r.issues[0]?.message);
  const rows = parseQaFile(qa, 'qa.jsonl');
  if (!rows.ok) throw new Error(rows.message);
  const [j, joinMs] = time(() => joinQa(r.doc, rows.rows, judge));
  const [g, graphMs] = time(() => buildGraph(j.doc));
  const [cases, pathMs] = time(() => {
    const list = listCases(g, { includePassed: true });
    for (const c of list) casePath(g, c);
    return list;
  });
  const whole = cases.filter((c) => casePath(g, c).ops.length === 6).length;
  return {
    spans: turns * 6,
    edges: r.summary?.otel.inferredEdges ?? 0,
    importMs,
    joinMs,
    graphMs,
    pathMs,
    cases: cases.length,
    whole,
  };
}

const FULL = 16_700;
const rows: string[] = [];
for (const turns of [FULL >> 3, FULL >> 1, FULL]) {
  const m = measure(turns);
  const perK = (ms: number) => ((ms / m.spans) * 1000).toFixed(0);
  rows.push(
    `| ${m.spans.toLocaleString('en')} | ${m.edges.toLocaleString('en')} | ${m.importMs.toFixed(0)} ms (${perK(m.importMs)} ms / 1k spans) | ${m.joinMs.toFixed(0)} ms | ${m.graphMs.toFixed(0)} ms | ${m.pathMs.toFixed(0)} ms | ${m.cases.toLocaleString('en')} (${m.whole.toLocaleString('en')} with the whole path) |`,
  );
  console.log(rows.at(-1));
}
writeResultsSection(
  'QA files and dataflow from text',
  [
    "`npx tsx bench/qa-dataflow.ts`: a memory app's OpenInference spans (per turn: extraction call, three writes,",
    'a search, an answer call) and a QA file of one question per turn, as `memtrace cases --qa` reads them: import',
    '(`parseTraceText`: span reading and dataflow from text), `joinQa`, `buildGraph`, then `listCases` and every',
    "case's `casePath`. One run per size, same process. The whole path is extraction call → memory.add → memory.add",
    '→ memory.search → answer call → judge (6 ops).',
    '',
    '| spans | inferred edges | import | QA join | graph | cases + paths | cases |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Machine: ${machine}.`,
  ].join('\n'),
);
