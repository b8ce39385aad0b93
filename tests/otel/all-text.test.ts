/**
 * Issue 32, "all the text": every file in ../shared/data/otel-thirdparty keeps its system
 * instructions, the names of the tools it calls or defines, and its evaluators' comments as
 * variables (not only op metadata). The expected texts are found by walking the raw file here —
 * its JSON, JSON inside strings, OTLP key/value lists and flattened `a.N.b` attribute names —
 * by the conventions' attribute names, never by the importer. Also: oteltest's wrapped export
 * `{trace_requests: [{pbreq}]}` opens, and a span without an id gets one derived from its place,
 * with a warning naming that place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

const DIR = join(SHARED_DATA, 'otel-thirdparty');

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the raw file holds, by kind. */
interface Texts {
  instructions: Set<string>;
  toolNames: Set<string>;
  comments: Set<string>;
}

/** A JSON text (a string starting with `{`, `[` or `"`) parsed, else the value as it is. */
function decoded(v: Json): Json {
  if (typeof v !== 'string' || !/^\s*[[{"]/.test(v)) return v;
  try {
    return decoded(JSON.parse(v) as Json);
  } catch {
    return v;
  }
}

/** An OTLP AnyValue's plain value. */
function anyValue(v: Json): Json {
  if (!isObj(v)) return v;
  for (const k of ['stringValue', 'intValue', 'doubleValue', 'boolValue']) if (k in v) return v[k];
  if (isObj(v.arrayValue)) return ((v.arrayValue.values as Json[]) ?? []).map(anyValue);
  if (isObj(v.kvlistValue)) return kvObject((v.kvlistValue.values as Json[]) ?? []);
  return v;
}

/** `[{key, value}]` → an object; flattened `a.0.b` keys also nested as `a: [{b}]`. */
function kvObject(list: Json[]): Obj {
  const out: Obj = {};
  for (const kv of list) if (isObj(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  return out;
}

const isKvList = (v: Json): v is Obj[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => isObj(x) && typeof x.key === 'string' && 'value' in x);

/** Flattened keys grouped: `llm.input_messages.0.message.role` → row 0 of `llm.input_messages`. */
function rows(o: Obj, prefix: string): Obj[] {
  const out: Obj[] = [];
  for (const k of Object.keys(o)) {
    const m = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.(.+)$`).exec(k);
    if (!m) continue;
    out[Number(m[1])] ??= {};
    out[Number(m[1])][m[2]] = o[k];
  }
  return out.filter(Boolean);
}

const prose = (v: Json): v is string => typeof v === 'string' && /\s/.test(v.trim()) && /\p{L}/u.test(v);
const name = (v: Json): v is string => typeof v === 'string' && v.length > 0;

function collectFlattened(o: Obj, t: Texts): void {
  for (const prefix of ['llm.input_messages', 'gen_ai.prompt'])
    for (const r of rows(o, prefix)) {
      const role = r['message.role'] ?? r.role;
      const content = r['message.content'] ?? r.content;
      if ((role === 'system' || role === 'developer') && prose(content)) t.instructions.add(content);
    }
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (/(^|\.)tool_call\.function\.name$/.test(k) && name(v)) t.toolNames.add(v);
    if (/^gen_ai\.(prompt|completion)\.\d+\.tool_calls\.\d+\.name$/.test(k) && name(v)) t.toolNames.add(v);
  }
}

/** One object's texts by the conventions' names (its children are walked by `walk`). */
function collect(o: Obj, t: Texts): void {
  for (const k of ['gen_ai.system_instructions', 'system_prompt', 'instructions', 'system']) {
    const v = decoded(o[k] ?? null);
    if (prose(v)) t.instructions.add(v);
  }
  if ((o.role === 'system' || o.role === 'developer') && prose(o.content)) t.instructions.add(o.content);
  if (isObj(o.toolUse) && name(o.toolUse.name)) t.toolNames.add(o.toolUse.name);
  if (typeof o.type === 'string' && /^(function_call|tool_call|tool-call|tool_use)$/.test(o.type)) {
    const n = o.name ?? o.toolName;
    if (name(n)) t.toolNames.add(n);
  }
  if (name(o.toolName)) t.toolNames.add(o.toolName);
  const calls = o.tool_calls ?? o.toolCalls;
  if (Array.isArray(calls))
    for (const c of calls)
      if (isObj(c) && isObj(c.function) && name(c.function.name)) t.toolNames.add(c.function.name);
  const agentTools = decoded(o['gen_ai.agent.tools'] ?? null);
  if (Array.isArray(agentTools)) for (const n of agentTools) if (name(n)) t.toolNames.add(n);
  if (Array.isArray(o.tools))
    for (const d of o.tools) {
      const fn = isObj(d) && isObj(d.function) ? d.function : d;
      if (isObj(fn) && name(fn.name)) t.toolNames.add(fn.name);
    }
  for (const k of ['comment', 'gen_ai.evaluation.explanation', 'explanation'])
    if (prose(o[k] ?? null)) t.comments.add(o[k] as string);
  collectFlattened(o, t);
}

function walk(v: Json, t: Texts): void {
  const d = decoded(v);
  if (isKvList(d)) walk(kvObject(d), t);
  else if (Array.isArray(d)) for (const x of d) walk(x, t);
  else if (isObj(d)) {
    // OTLP attribute lists become plain objects before reading them.
    const o: Obj = {};
    for (const k of Object.keys(d)) o[k] = isKvList(d[k]) ? kvObject(d[k] as Obj[]) : d[k];
    collect(o, t);
    for (const k of Object.keys(o)) if (k !== 'metadata') walk(o[k], t);
  }
}

function rawTexts(text: string): Texts {
  const t: Texts = { instructions: new Set(), toolNames: new Set(), comments: new Set() };
  walk(JSON.parse(text) as Json, t);
  return t;
}

/** The values of the variables, by category. */
function kept(doc: TraceDocument): { category: string; value: string }[] {
  return doc.data.nodes.map((n) => ({ category: n.category, value: String(n.value) }));
}

function open(file: string, text = readFileSync(join(DIR, file), 'utf8')) {
  const r = parseTraceText(text, { file });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r;
}

/** Which kinds each file has, read by a person from the file (so an empty walk cannot pass unnoticed). */
const HAS: Record<string, (keyof Texts)[]> = {
  'langfuse-download-langgraph.json': ['toolNames', 'comments'],
  'langfuse-download-llamaindex.json': [],
  'langfuse-download-openai-agents.json': ['instructions', 'toolNames', 'comments'],
  'openlit-resourcespans-decoded.json': [],
  'openllmetry-openai-otlp.json': ['instructions'],
  'phoenix-span-retriever-single.json': [],
  'phoenix-span-rows-agent-turn.json': ['instructions', 'toolNames'],
  'strands-agents-otlp.json': ['instructions', 'toolNames'],
  'vercel-ai-sdk-spans.json': ['instructions'],
};

describe('every shared third-party file keeps its instructions, tool names and evaluator text', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

  it('the table above names every file in the folder', () => {
    expect(files.sort()).toEqual(Object.keys(HAS).sort());
  });

  for (const file of files)
    it(file, () => {
      const text = readFileSync(join(DIR, file), 'utf8');
      const raw = rawTexts(text);
      const kinds = (Object.keys(raw) as (keyof Texts)[]).filter((k) => raw[k].size > 0);
      expect(kinds.sort(), 'kinds found in the raw file').toEqual([...HAS[file]].sort());
      const vars = kept(open(file).doc);
      for (const s of raw.instructions)
        expect(
          vars.some((v) => v.value === s && v.category === 'prompt'),
          `instructions ${JSON.stringify(s)}`,
        ).toBe(true);
      // A called tool's name is a variable of its own; a defined one is in a definition.
      for (const s of raw.toolNames)
        expect(
          vars.some(
            (v) =>
              (v.category === 'tool_call' && v.value === s) ||
              (v.category === 'tool_definition' && v.value.includes(s)),
          ),
          `tool name ${s}`,
        ).toBe(true);
      for (const s of raw.comments)
        expect(
          vars.some((v) => v.value === s),
          `comment ${JSON.stringify(s)}`,
        ).toBe(true);
    });
});

/** Object keys of a protobuf JSON value in protobuf's own spelling (`resourceSpans` → `resource_spans`). */
function snakeKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = snakeKeys(v[k]);
  return out;
}

const summaryOf = (doc: TraceDocument) => ({
  ops: doc.data.operations.map((o) => [o.op_id, o.op_name]),
  values: doc.data.nodes.map((n) => String(n.value)).sort(),
});

describe("oteltest's wrapped export {trace_requests: [{pbreq}]}", () => {
  // oteltest (Python) writes Telemetry.to_dict(): each received request as MessageToDict(pbreq).
  const strands = JSON.parse(readFileSync(join(DIR, 'strands-agents-otlp.json'), 'utf8')) as Obj;
  const openllmetry = JSON.parse(readFileSync(join(DIR, 'openllmetry-openai-otlp.json'), 'utf8')) as Obj;
  const wrap = (...pbreqs: Json[]) =>
    JSON.stringify({
      metric_requests: [],
      trace_requests: pbreqs.map((pbreq, i) => ({
        pbreq,
        headers: { 'content-type': 'application/x-protobuf' },
        test_elapsed_ms: 100 + i,
      })),
      log_requests: [],
    });

  it('opens with the spans of every request, as the requests alone do', () => {
    const r = open('wrapped.json', wrap(strands, {}, openllmetry));
    expect(r.summary?.otel.format).toBe('oteltest');
    const alone = [open('strands-agents-otlp.json'), open('openllmetry-openai-otlp.json')];
    const ops = alone.flatMap((x) => summaryOf(x.doc).ops);
    expect(summaryOf(r.doc).ops.sort()).toEqual(ops.sort());
    for (const x of alone)
      for (const v of summaryOf(x.doc).values) expect(summaryOf(r.doc).values).toContain(v);
    expect(r.issues.filter((i) => i.severity === 'warning')).toEqual([]);
  });

  it('protobuf field names (resource_spans, span_id, string_value) read the same', () => {
    const r = open('wrapped-snake.json', wrap(snakeKeys(strands)));
    expect(summaryOf(r.doc)).toEqual(summaryOf(open('strands-agents-otlp.json').doc));
  });

  it('requests that are not requests are said at their place, never a crash', () => {
    const bad = parseTraceText(JSON.stringify({ trace_requests: [1, { pbreq: 'x' }, { headers: {} }] }), {
      file: 'bad.json',
    });
    expect(bad.issues.map(formatIssue)).toEqual([
      'bad.json: trace_requests[0].pbreq: warning: no pbreq object; skipped',
      'bad.json: trace_requests[1].pbreq: warning: no pbreq object; skipped',
      'bad.json: trace_requests[2].pbreq: warning: no pbreq object; skipped',
      'bad.json: error: no spans found in the file',
    ]);
    const notList = parseTraceText(JSON.stringify({ trace_requests: [{ pbreq: { resourceSpans: 5 } }] }), {
      file: 'n.json',
    });
    expect(notList.ok).toBe(false);
    expect(notList.issues.map(formatIssue)).toEqual([
      'n.json: trace_requests[0].pbreq.resourceSpans: error: resourceSpans is not a list',
    ]);
  });

  it('a capture with no trace request is said, naming the file', () => {
    const r = parseTraceText(JSON.stringify({ metric_requests: [], trace_requests: [], log_requests: [] }), {
      file: 'empty.json',
    });
    expect(r.ok).toBe(false);
    expect(r.issues.map(formatIssue)).toEqual(['empty.json: error: no spans found in the file']);
  });
});

describe('spans without ids get ids derived from their place, each said at its path', () => {
  const derived = (r: ReturnType<typeof parseTraceText>) =>
    r.issues
      .filter((i) => i.code === 'span-id-derived')
      .map((i) => [i.path, /the id ([0-9a-f]{16})/.exec(i.message)?.[1]]);

  it('OTLP: the span keeps its text; the same file gives the same id', () => {
    const file = JSON.parse(readFileSync(join(DIR, 'openllmetry-openai-otlp.json'), 'utf8'));
    delete file.resourceSpans[0].scopeSpans[0].spans[0].spanId;
    const text = JSON.stringify(file);
    const [a, b] = [open('no-id.json', text), open('no-id.json', text)];
    const said = derived(a);
    expect(said).toHaveLength(1);
    expect(said[0][0]).toBe('resourceSpans[0].scopeSpans[0].spans[0].spanId');
    expect(a.doc.data.operations.map((o) => o.op_id)).toEqual([`op-${said[0][1]}`]);
    expect(b.doc.data.operations.map((o) => o.op_id)).toEqual(a.doc.data.operations.map((o) => o.op_id));
    const values = a.doc.data.nodes.map((n) => String(n.value));
    expect(values).toContain("Hey there! 😊 What's on your mind? 💬✨");
  });

  it('Phoenix rows, SDK spans and Langfuse observations alike', () => {
    const phoenix = JSON.parse(readFileSync(join(DIR, 'phoenix-span-rows-agent-turn.json'), 'utf8'));
    delete phoenix[3].context.span_id;
    const p = open('p.json', JSON.stringify(phoenix));
    expect(derived(p).map((x) => x[0])).toEqual(['[3].context.span_id']);
    expect(p.doc.data.operations).toHaveLength(18);

    const vercel = JSON.parse(readFileSync(join(DIR, 'vercel-ai-sdk-spans.json'), 'utf8'));
    delete vercel[2].spanContext.spanId;
    const v = open('v.json', JSON.stringify(vercel));
    expect(derived(v).map((x) => x[0])).toEqual(['[2].spanContext.spanId']);
    expect(v.doc.data.operations).toHaveLength(10);

    const langfuse = JSON.parse(readFileSync(join(DIR, 'langfuse-download-llamaindex.json'), 'utf8'));
    const at = langfuse.observations.findIndex((o: Obj) => o.type === 'GENERATION');
    delete langfuse.observations[at].id;
    const l = open('l.json', JSON.stringify(langfuse));
    expect(derived(l).map((x) => x[0])).toEqual([`observations[${at}].id`]);
    expect(l.doc.data.operations.map((o) => o.op_id)).toContain(`op-${derived(l)[0][1]}`);
    expect(l.doc.data.nodes.map((n) => String(n.value))).toContain('What is Langfuse?');
  });
});

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const n = (key: string, v: number): Attr => ({ key, value: { doubleValue: v } });

function otlp(spans: { id: string; name: string; attributes: Attr[]; events?: object[] }[]) {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: 'x' },
            spans: spans.map((x, i) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: x.id,
              name: x.name,
              startTimeUnixNano: String(1700000000000000000n + BigInt(i) * 1000000n),
              attributes: x.attributes,
              events: x.events ?? [],
            })),
          },
        ],
      },
    ],
  });
}

/** The texts an op read and wrote, with their variables' categories. */
function opTexts(doc: TraceDocument, opId: string) {
  const byId = new Map(doc.data.nodes.map((v) => [v.full_node_id, v]));
  const pick = (ids: string[]) =>
    [...new Set(ids)]
      .map((id) => byId.get(id))
      .filter((v) => v && v.value !== 'NONE')
      .map((v) => [String(v?.category), String(v?.value)]);
  const edges = doc.data.edges.filter((e) => e.op_id === opId);
  return {
    reads: pick(edges.map((e) => e.source_full_node_id)),
    writes: pick(edges.map((e) => e.target_full_node_id)),
  };
}

const warningsOf = (r: ReturnType<typeof open>, code: string) =>
  r.issues.filter((i) => i.severity === 'warning' && i.code === code).map((i) => i.message);

describe('each convention: instructions, tool definitions, tool calls, comments and documents are variables', () => {
  const INSTRUCTIONS = 'You are a careful travel assistant. Answer in one sentence.';
  const TOOLS = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object' },
    },
  ];

  it('GenAI: gen_ai.system_instructions and gen_ai.tool.definitions beside OpenInference messages; a tool_call part', () => {
    const r = open(
      'g.json',
      otlp([
        {
          id: 'b7ad6b7169203331',
          name: 'chat',
          attributes: [
            s('gen_ai.operation.name', 'chat'),
            s('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: INSTRUCTIONS }])),
            s('gen_ai.tool.definitions', JSON.stringify(TOOLS)),
            s(
              'gen_ai.input.messages',
              JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Oslo?' }] }]),
            ),
            s(
              'gen_ai.output.messages',
              JSON.stringify([
                {
                  role: 'assistant',
                  parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }],
                },
              ]),
            ),
          ],
        },
      ]),
    );
    expect(opTexts(r.doc, 'op-b7ad6b7169203331')).toEqual({
      reads: [
        ['prompt', INSTRUCTIONS],
        ['tool_definition', JSON.stringify(TOOLS[0])],
        ['message', 'Oslo?'],
      ],
      writes: [
        ['llm_output', '{"city":"Oslo"}'],
        ['tool_call', 'get_weather'],
      ],
    });
    expect(warningsOf(r, 'unread-text')).toEqual([]);
  });

  it('GenAI: a system prompt alone does not hide the OpenInference messages of the same span', () => {
    const r = open(
      'g2.json',
      otlp([
        {
          id: 'b7ad6b7169203332',
          name: 'llm',
          attributes: [
            s('gen_ai.system_instructions', INSTRUCTIONS),
            s('openinference.span.kind', 'LLM'),
            s('llm.input_messages.0.message.role', 'user'),
            s('llm.input_messages.0.message.content', 'Is it cold in Oslo today?'),
            s('llm.output_messages.0.message.role', 'assistant'),
            s('llm.output_messages.0.message.content', 'Yes, it is freezing.'),
          ],
        },
      ]),
    );
    const io = opTexts(r.doc, 'op-b7ad6b7169203332');
    expect(io.reads.map((x) => x[1])).toEqual([INSTRUCTIONS, 'Is it cold in Oslo today?']);
    expect(io.writes.map((x) => x[1])).toEqual(['Yes, it is freezing.']);
  });

  it('OpenInference: llm.tools, tool_call.function.name, a TOOL span description, a CHAIN with retrieved documents, an evaluation', () => {
    const schema = JSON.stringify({
      type: 'function',
      function: { name: 'search_docs', description: 'Search the handbook' },
    });
    const r = open(
      'oi.json',
      otlp([
        {
          id: 'b7ad6b7169203341',
          name: 'llm',
          attributes: [
            s('openinference.span.kind', 'LLM'),
            s('llm.tools.0.tool.json_schema', schema),
            s('llm.input_messages.0.message.role', 'user'),
            s('llm.input_messages.0.message.content', 'How many vacation days?'),
            s('llm.output_messages.0.message.role', 'assistant'),
            s('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', 'search_docs'),
            s(
              'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments',
              '{"q": "vacation days"}',
            ),
            s('evaluations.0.evaluation.name', 'relevance'),
            n('evaluations.0.evaluation.score', 0),
            s('evaluations.0.evaluation.explanation', 'The call searched for the wrong policy.'),
          ],
        },
        {
          id: 'b7ad6b7169203342',
          name: 'search_docs',
          attributes: [
            s('openinference.span.kind', 'TOOL'),
            s('tool.name', 'search_docs'),
            s('tool.description', 'Search the handbook for a policy'),
            s('input.value', '{"q": "vacation days"}'),
          ],
        },
        {
          id: 'b7ad6b7169203343',
          name: 'rag',
          attributes: [
            s('openinference.span.kind', 'CHAIN'),
            s('input.value', 'vacation days'),
            s('retrieval.documents.0.document.id', 'doc-7'),
            s('retrieval.documents.0.document.content', 'Employees get 25 vacation days a year.'),
          ],
        },
      ]),
    );
    const llm = opTexts(r.doc, 'op-b7ad6b7169203341');
    expect(llm.reads).toEqual([
      ['tool_definition', schema],
      ['message', 'How many vacation days?'],
    ]);
    expect(llm.writes).toEqual([
      ['llm_output', '{"q": "vacation days"}'],
      ['tool_call', 'search_docs'],
    ]);
    expect(opTexts(r.doc, 'op-b7ad6b7169203342').reads).toEqual([
      ['tool_definition', 'Search the handbook for a policy'],
      ['llm_output', '{"q": "vacation days"}'],
    ]);
    const chain = opTexts(r.doc, 'op-b7ad6b7169203343');
    expect(chain.reads.map((x) => x[1])).toContain('Employees get 25 vacation days a year.');
    const score = opTexts(r.doc, 'op-b7ad6b7169203341-eval-0');
    // The answer scored is the call's output text (its arguments), not the tool's name.
    expect(score.reads).toEqual([['llm_output', '{"q": "vacation days"}']]);
    expect(score.writes).toEqual([
      ['evaluator_comment', 'The call searched for the wrong policy.'],
      ['evaluation_score', '0'],
    ]);
    expect(r.doc.data.operations.find((o) => o.op_id === 'op-b7ad6b7169203341-eval-0')?.op_name).toBe(
      'relevance',
    );
  });

  it('Vercel AI SDK ai.prompt.tools and OpenLLMetry llm.request.functions / tool_calls.N.name', () => {
    const vercelTool = JSON.stringify({
      type: 'function',
      name: 'lookup',
      description: 'Look a word up',
      parameters: {},
    });
    const r = open(
      'v.json',
      otlp([
        {
          id: 'b7ad6b7169203351',
          name: 'ai.generateText.doGenerate',
          attributes: [
            s('ai.operationId', 'ai.generateText.doGenerate'),
            { key: 'ai.prompt.tools', value: { arrayValue: { values: [{ stringValue: vercelTool }] } } },
            s(
              'ai.prompt.messages',
              JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Define ephemeral.' }] }]),
            ),
            s(
              'ai.response.toolCalls',
              JSON.stringify([{ toolCallId: 'c', toolName: 'lookup', input: '{"word":"ephemeral"}' }]),
            ),
          ],
        },
        {
          id: 'b7ad6b7169203352',
          name: 'openai.chat',
          attributes: [
            s('llm.request.type', 'chat'),
            s('llm.request.functions.0.name', 'get_time'),
            s('llm.request.functions.0.description', 'The time in a time zone'),
            s('gen_ai.prompt.0.role', 'user'),
            s('gen_ai.prompt.0.content', 'What time is it in Lima?'),
            s('gen_ai.completion.0.role', 'assistant'),
            s('gen_ai.completion.0.tool_calls.0.name', 'get_time'),
            s('gen_ai.completion.0.tool_calls.0.arguments', '{"tz": "America/Lima"}'),
          ],
        },
      ]),
    );
    expect(opTexts(r.doc, 'op-b7ad6b7169203351')).toEqual({
      reads: [
        ['tool_definition', vercelTool],
        ['message', 'Define ephemeral.'],
      ],
      writes: [
        ['llm_output', '{"word":"ephemeral"}'],
        ['tool_call', 'lookup'],
      ],
    });
    const tl = opTexts(r.doc, 'op-b7ad6b7169203352');
    expect(tl.reads[0][0]).toBe('tool_definition');
    expect(JSON.parse(tl.reads[0][1])).toEqual({ name: 'get_time', description: 'The time in a time zone' });
    expect(tl.writes).toEqual([
      ['llm_output', '{"tz": "America/Lima"}'],
      ['tool_call', 'get_time'],
    ]);
  });

  it('a GenAI evaluation event without a golden answer: its explanation is a variable, and no case', () => {
    const r = open(
      'e.json',
      otlp([
        {
          id: 'b7ad6b7169203361',
          name: 'chat',
          attributes: [
            s('gen_ai.operation.name', 'chat'),
            s('gen_ai.input.messages', JSON.stringify([{ role: 'user', content: 'Capital of Peru?' }])),
            s('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', content: 'Lima.' }])),
          ],
          events: [
            {
              name: 'gen_ai.evaluation.result',
              attributes: [
                s('gen_ai.evaluation.name', 'faithfulness'),
                // A graded score, no pass/fail verdict (a "pass" label would make a case).
                n('gen_ai.evaluation.score.value', 0.9),
                s('gen_ai.evaluation.explanation', 'The answer names the capital correctly.'),
              ],
            },
          ],
        },
      ]),
    );
    expect(r.summary?.otel.cases).toBe(0);
    expect(opTexts(r.doc, 'op-b7ad6b7169203361-eval-0')).toEqual({
      reads: [['llm_output', 'Lima.']],
      writes: [
        ['evaluator_comment', 'The answer names the capital correctly.'],
        ['evaluation_score', '0.9'],
      ],
    });
  });

  it('text beside what a reader took (a request field no reader knows) is an unread-text warning', () => {
    const r = open(
      'u.json',
      otlp([
        {
          id: 'b7ad6b7169203371',
          name: 'llm',
          attributes: [
            s('openinference.span.kind', 'LLM'),
            s('llm.input_messages.0.message.role', 'user'),
            s('llm.input_messages.0.message.content', 'Summarise my notes.'),
            s(
              'input.value',
              JSON.stringify({
                messages: [{ role: 'user', content: 'Summarise my notes.' }],
                persona: 'A terse senior editor',
              }),
            ),
            s('myapp.rubric', 'Grade on brevity and accuracy'),
          ],
        },
      ]),
    );
    expect(warningsOf(r, 'unread-text')).toEqual([
      'text in attributes the importer does not read (kept in no variable): "input.value" (1 span), "myapp.rubric" (1 span)',
    ]);
  });
});

describe('Phoenix span annotations beside a row', () => {
  it('an LLM annotation of the retriever span: its explanation is a variable of an op of its own', () => {
    const row = JSON.parse(readFileSync(join(DIR, 'phoenix-span-retriever-single.json'), 'utf8'));
    row.annotations = [
      {
        name: 'relevance',
        annotator_kind: 'LLM',
        result: { label: 'relevant', score: 1, explanation: 'Both documents explain ranking models.' },
      },
    ];
    const r = open('annotated.json', JSON.stringify(row));
    const op = r.doc.data.operations.find((o) => o.op_name === 'relevance');
    expect(op?.category).toBe('evaluation');
    expect(op && opTexts(r.doc, op.op_id).writes).toEqual([
      ['evaluator_comment', 'Both documents explain ranking models.'],
      ['evaluation_score', '1'],
    ]);
  });
});

describe("Langfuse's SDK and LangSmith over OpenTelemetry", () => {
  it('langfuse.observation.type / .input / .output: a generation with its messages and answer', () => {
    const r = open(
      'lf.json',
      otlp([
        {
          id: 'b7ad6b7169203381',
          name: 'answer',
          attributes: [
            s('langfuse.observation.type', 'generation'),
            s(
              'langfuse.observation.input',
              JSON.stringify([
                { role: 'system', content: 'Answer from the notes only.' },
                { role: 'user', content: 'When did Ana move to Lisbon?' },
              ]),
            ),
            s('langfuse.observation.output', JSON.stringify({ role: 'assistant', content: 'In May 2021.' })),
          ],
        },
      ]),
    );
    expect(r.doc.data.operations.map((o) => o.category)).toEqual(['llm_call']);
    expect(opTexts(r.doc, 'op-b7ad6b7169203381')).toEqual({
      reads: [
        ['prompt', 'Answer from the notes only.'],
        ['message', 'When did Ana move to Lisbon?'],
      ],
      writes: [['llm_output', 'In May 2021.']],
    });
    expect(warningsOf(r, 'unread-text')).toEqual([]);
  });

  it('langsmith.span.kind with gen_ai.prompt / gen_ai.completion as the run inputs and outputs (JSON)', () => {
    const r = open(
      'ls.json',
      otlp([
        {
          id: 'b7ad6b7169203391',
          name: 'qa_chain',
          attributes: [
            s('langsmith.span.kind', 'chain'),
            s('gen_ai.prompt', JSON.stringify({ question: 'Which city did Ana move to?' })),
            s('gen_ai.completion', JSON.stringify({ output: 'Lisbon' })),
          ],
        },
      ]),
    );
    expect(r.doc.data.operations.map((o) => o.category)).toEqual(['chain']);
    const io = opTexts(r.doc, 'op-b7ad6b7169203391');
    expect(io.reads.map((x) => x[1])).toEqual([JSON.stringify({ question: 'Which city did Ana move to?' })]);
    expect(io.writes.map((x) => x[1])).toEqual(['Lisbon']);
    expect(warningsOf(r, 'unread-text')).toEqual([]);
  });
});

describe('a long system prompt is kept wherever the span puts it', () => {
  const prompt = `You are the memory assistant of a travel agency. ${'Keep every booking detail exact. '.repeat(160)}`;
  const details = 'gen_ai.client.inference.operation.details';
  const question = JSON.stringify([
    { role: 'user', parts: [{ type: 'text', content: 'Where is my hotel?' }] },
  ]);

  it('as an attribute beside messages carried by an event', () => {
    expect(prompt.length).toBeGreaterThan(5000);
    const r = open(
      'p1.json',
      otlp([
        {
          id: 'b7ad6b71692033a1',
          name: 'chat',
          attributes: [s('gen_ai.operation.name', 'chat'), s('gen_ai.system_instructions', prompt)],
          events: [{ name: details, attributes: [s('gen_ai.input.messages', question)] }],
        },
      ]),
    );
    expect(opTexts(r.doc, 'op-b7ad6b71692033a1').reads).toEqual([
      ['prompt', prompt],
      ['message', 'Where is my hotel?'],
    ]);
  });

  it('in an event beside messages carried as attributes', () => {
    const r = open(
      'p2.json',
      otlp([
        {
          id: 'b7ad6b71692033a2',
          name: 'chat',
          attributes: [s('gen_ai.operation.name', 'chat'), s('gen_ai.input.messages', question)],
          events: [
            {
              name: details,
              attributes: [
                s('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: prompt }])),
              ],
            },
          ],
        },
      ]),
    );
    expect(opTexts(r.doc, 'op-b7ad6b71692033a2').reads).toEqual([
      ['prompt', prompt],
      ['message', 'Where is my hotel?'],
    ]);
    expect(warningsOf(r, 'unread-text')).toEqual([]);
  });
});
