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
