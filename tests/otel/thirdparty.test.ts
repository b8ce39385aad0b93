/**
 * Every trace file written by another tool in ../shared/data/otel-thirdparty (README there):
 * it opens, its spans become the ops named below, and the text a person would look for — the
 * user's prompt and the model's answer — is a variable the right op reads or writes. The
 * expected names and texts were copied by hand from the files, never from the importer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

const DIR = join(SHARED_DATA, 'otel-thirdparty');

function open(name: string) {
  const r = parseTraceText(readFileSync(join(DIR, name), 'utf8'), { file: name });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r;
}

const opNames = (doc: TraceDocument) => doc.data.operations.map((o) => o.op_name).sort();

/** The values an op read and wrote (the NONE sentinel left out). */
function io(doc: TraceDocument, opId: string): { reads: string[]; writes: string[] } {
  const value = new Map(doc.data.nodes.map((n) => [n.full_node_id, String(n.value)]));
  const reads = new Set<string>();
  const writes = new Set<string>();
  for (const e of doc.data.edges) {
    if (e.op_id !== opId) continue;
    reads.add(e.source_full_node_id);
    writes.add(e.target_full_node_id);
  }
  const values = (ids: Set<string>) => [...ids].map((id) => value.get(id) ?? '').filter((v) => v !== 'NONE');
  return { reads: values(reads), writes: values(writes) };
}

/** Values of the variables, the sentinel left out. */
const variables = (doc: TraceDocument) =>
  doc.data.nodes.map((n) => String(n.value)).filter((v) => v !== 'NONE');

/** The inference reason of the edge from the variable holding `text` into `opId`, if there is one. */
function edgeInto(doc: TraceDocument, opId: string, text: string): string | null | undefined {
  const ids = new Set(doc.data.nodes.filter((n) => n.value === text).map((n) => n.full_node_id));
  const e = doc.data.edges.find((x) => x.op_id === opId && ids.has(x.source_full_node_id));
  return e ? ((e.metadata as { inferred?: string }).inferred ?? null) : undefined;
}

const warnings = (r: { issues: { severity: string; code: string; message: string }[] }) =>
  r.issues.filter((i) => i.severity === 'warning');

describe('Langfuse downloads', () => {
  it('"Download trace as JSON" of a LangGraph agent: nine observations and two scores, the question and the summary', () => {
    const r = open('langfuse-download-langgraph.json');
    expect(r.summary?.otel.format).toBe('langfuse');
    expect(opNames(r.doc)).toEqual([
      'ChatOpenAI',
      'ChatOpenAI',
      'LangGraph',
      'Web-Search',
      'agent',
      'agent',
      'hallucination',
      'should_continue',
      'should_continue',
      'tools',
      'toxicity',
    ]);
    const question = "Search the web for 'example' and summarize.";
    const answer =
      'The search for "example" primarily leads to the website [example.com](https://example.com), which is often used as a placeholder or demonstration site in various contexts. It serves as a generic example for illustrating how a website might look or function.';
    const last = io(r.doc, 'op-5ba09605e0929d78'); // the second ChatOpenAI generation
    expect(last.reads).toContain(question);
    expect(last.writes).toEqual([answer]);
    // The first generation calls the search tool: its arguments are what the tools node reads.
    expect(io(r.doc, 'op-4f6535aaebcda355').writes).toEqual(['{"query":"example"}', 'Web-Search']);
    expect(edgeInto(r.doc, 'op-c8a18a38a3a115cb', '{"query":"example"}')).toBe('same-content');
    // Two scores (hallucination, toxicity) without a golden answer are no cases, but ops of their
    // own that read the answer they scored and write their comment.
    expect(r.summary?.otel.evaluationsWithoutGolden).toBe(2);
    expect(r.summary?.otel.cases).toBe(0);
    const score = r.doc.data.operations.find((o) => o.op_name === 'hallucination');
    const scored = score && io(r.doc, score.op_id);
    expect(scored?.reads).toEqual([answer]);
    expect(scored?.writes[0]).toMatch(/^The generation accurately describes 'example\.com'/);
    expect(scored?.writes[1]).toBe('0.1');
  });

  it('a LlamaIndex trace: the trace question and the completion, in the Langfuse session', () => {
    const r = open('langfuse-download-llamaindex.json');
    expect(opNames(r.doc)).toEqual(['OpenAI.complete', 'llama-index-trace']);
    const answer =
      'Langfuse is a tool designed to help developers monitor and debug applications that utilize large language models (LLMs). It provides features for tracking and analyzing the performance of LLMs, enabling developers to gain insights into how these models are functioning within their applications. Langfuse can be particularly useful for identifying issues, optimizing performance, and ensuring that the integration of language models into applications is smooth and effective.';
    expect(io(r.doc, 'op-7ca8b22f6628d0c7')).toEqual({ reads: ['What is Langfuse?'], writes: [answer] });
    expect(variables(r.doc).sort()).toEqual([answer, 'What is Langfuse?'].sort());
    expect(new Set(r.doc.data.operations.map((o) => o.session_id))).toEqual(new Set(['session_abc']));
  });

  it('an OpenAI Agents run: the question, the tool call and its result, the answer; the empty agent span is said', () => {
    const r = open('langfuse-download-openai-agents.json');
    expect(opNames(r.doc)).toEqual([
      'Agent workflow',
      'get_weather',
      'hallucination',
      'response',
      'response',
      'toxicity',
    ]);
    const question = "What's the weather in Tokyo?";
    // The response echoes the agent's instructions and tools: what the call was given.
    const first = io(r.doc, 'op-98870087af69bf06');
    expect(first.reads).toHaveLength(3);
    expect([first.reads[0], first.reads[2]]).toEqual(['You are a helpful agent.', question]);
    expect(JSON.parse(first.reads[1]).name).toBe('get_weather');
    expect(first.writes).toEqual(['{"city":"Tokyo"}', 'get_weather']);
    expect(io(r.doc, 'op-5b99c3e3411ed17b')).toEqual({
      reads: ['{"city":"Tokyo"}'],
      writes: ['The weather in Tokyo is sunny.'],
    });
    expect(edgeInto(r.doc, 'op-5b99c3e3411ed17b', '{"city":"Tokyo"}')).toBe('same-content');
    expect(io(r.doc, 'op-90d94774e8e3724d').writes).toEqual([
      'The weather in Tokyo is currently sunny. If you need more details like temperature or forecast for the upcoming days, just let me know!',
    ]);
    // "Hello world" (an AGENT observation without input or output, holding the others) is no op: said.
    const w = warnings(r).find((x) => x.code === 'spans-not-ops');
    expect(w?.message).toContain('"AGENT" (1 span)');
  });

  it('the newer server-side download {observations, scores} and the public API trace open alike', () => {
    const ui = JSON.parse(readFileSync(join(DIR, 'langfuse-download-llamaindex.json'), 'utf8'));
    const server = JSON.stringify({ observations: ui.observations, scores: [] });
    const api = JSON.stringify({ ...ui.trace, observations: ui.observations });
    for (const text of [server, api]) {
      const r = parseTraceText(text, { file: 'x.json' });
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(opNames(r.doc)).toContain('OpenAI.complete');
      expect(io(r.doc, 'op-7ca8b22f6628d0c7').reads).toEqual(['What is Langfuse?']);
    }
  });
});

describe('OpenTelemetry instrumentations', () => {
  it('OpenLIT: a bare ResourceSpans with Buffer ids and Long times, text in gen_ai.content.* events', () => {
    const r = open('openlit-resourcespans-decoded.json');
    // Bytes of traceId / spanId in the file, written as hex by hand; startTime high·2³² + low.
    expect(r.doc.graph_id).toBe('graph-ea673708441c2984a54a3e3962d3595f');
    expect(r.doc.data.operations.map((o) => [o.op_id, o.op_name, o.category])).toEqual([
      ['op-b904bffb20be6d7e', 'openai.chat.completions', 'llm_call'],
    ]);
    expect(r.doc.data.operations[0].created_at).toBe('2025-01-28 14:34:05.669');
    const completion =
      'LLM Observability stands for logs, metrics, and traces observability. It refers to the practice of monitoring and analyzing logs, metrics, and traces from a software application to gain insight into its performance, behavior, and issues. By collecting and analyzing these data points, developers and operators can better understand how the application is functioning and troubleshoot any problems that may arise. This approach is increasingly important in modern software development, where applications are often complex and distributed across multiple environments.';
    expect(io(r.doc, 'op-b904bffb20be6d7e')).toEqual({
      reads: ['What is LLM Observability?'],
      writes: [completion],
    });
    expect(r.doc.data.nodes.find((n) => n.value === 'What is LLM Observability?')?.category).toBe('message');
  });

  it('OpenLLMetry: gen_ai.prompt.N / gen_ai.completion.N, base64 ids', () => {
    const r = open('openllmetry-openai-otlp.json');
    const traceHex = Buffer.from('hhUJjCxy5yMw6ADvOrHYuA==', 'base64').toString('hex');
    const spanHex = Buffer.from('D2n+rs/O1Jg=', 'base64').toString('hex');
    expect(r.doc.graph_id).toBe(`graph-${traceHex}`);
    const system =
      'You are a helpful assistant that only reply in short tweet-like responses, using lots of emojis.';
    expect(r.doc.data.operations.map((o) => [o.op_name, o.category])).toEqual([['openai.chat', 'llm_call']]);
    expect(io(r.doc, `op-${spanHex}`)).toEqual({
      reads: [system, 'yous'],
      writes: ["Hey there! 😊 What's on your mind? 💬✨"],
    });
    const category = (v: string) => r.doc.data.nodes.find((n) => n.value === v)?.category;
    expect([category(system), category('yous')]).toEqual(['prompt', 'message']);
  });

  it('Strands Agents: all 8 spans are ops; the message events give the question, the tool call and the answer', () => {
    const r = open('strands-agents-otlp.json');
    expect(opNames(r.doc)).toEqual([
      'chat',
      'chat',
      'execute_event_loop_cycle',
      'execute_event_loop_cycle',
      'execute_tool get_user_location',
      'get_user_location',
      'invoke_agent Strands Agents',
      'main',
    ]);
    const chats = r.doc.data.operations.filter((o) => o.op_name === 'chat').map((o) => io(r.doc, o.op_id));
    expect(chats[0].reads).toEqual(['testing']);
    expect(chats[0].writes).toEqual(['{}', 'get_user_location']); // the tool call: get_user_location with input {}
    expect(chats[1].reads).toEqual(['testing', '{}', 'get_user_location', 'London, UK']);
    expect(chats[1].writes).toEqual([
      'Test received — I called the location tool and show your location as London, UK. How can I help or what would you like to test next?',
    ]);
    const tool = r.doc.data.operations.find((o) => o.op_name === 'get_user_location');
    expect(tool && io(r.doc, tool.op_id).writes).toEqual(['London, UK']);
    const agent = r.doc.data.operations.find((o) => o.op_name === 'invoke_agent Strands Agents');
    expect(agent?.category).toBe('agent');
  });

  it('Vercel AI SDK: a JSON list of SDK span objects, ai.prompt / ai.prompt.messages / ai.response.* / ai.value', () => {
    const r = open('vercel-ai-sdk-spans.json');
    expect(r.summary?.otel.format).toBe('sdk-spans');
    expect(opNames(r.doc)).toEqual([
      'ai.embed',
      'ai.embed.doEmbed',
      'ai.generateObject',
      'ai.generateObject.doGenerate',
      'ai.generateText',
      'ai.generateText',
      'ai.generateText.doGenerate',
      'ai.generateText.doGenerate',
      'ai.streamText',
      'ai.streamText.doStream',
    ]);
    const haiku = 'Lines of code align,  \nLogic dances through the night—  \nDreams in data flow.';
    expect(io(r.doc, 'op-648be1dfd8e521b6')).toEqual({
      reads: ['Write a haiku about programming.'],
      writes: [haiku],
    });
    expect(io(r.doc, 'op-39d6e9b3ddec9996')).toEqual({
      reads: ['Write a haiku about programming.'],
      writes: [haiku],
    });
    const chat = io(r.doc, 'op-6c0201026326855d');
    expect(chat.reads).toEqual([
      'You are a helpful assistant.',
      'What is 2 + 2?',
      '2 + 2 equals 4.',
      'And what is 3 + 3?',
    ]);
    expect(chat.writes).toEqual(['3 + 3 equals 6.']);
    const object = io(r.doc, 'op-25ec6d8e42789717');
    expect(object.reads).toEqual(['Generate a simple recipe for scrambled eggs.']);
    expect(JSON.parse(object.writes[0]).name).toBe('Scrambled Eggs');
    expect(io(r.doc, 'op-c8be0dc143acbe03').writes[0]).toMatch(/^In code’s embrace, where types align,/);
    expect(io(r.doc, 'op-06a62ec64ae5b0a2').reads).toEqual(['The quick brown fox jumps over the lazy dog.']);
    // hr-time [seconds, nanoseconds]: ai.generateText.doGenerate starts at [1770131992, 242000000].
    const doGenerate = r.doc.data.operations.find((o) => o.op_id === 'op-39d6e9b3ddec9996');
    expect(doGenerate?.created_at).toBe('2026-02-03 15:19:52.242');
  });
});

describe('Arize Phoenix', () => {
  it('one legacy span object (a RETRIEVER): the query and both documents', () => {
    const r = open('phoenix-span-retriever-single.json');
    expect(r.doc.data.operations.map((o) => [o.op_name, o.category])).toEqual([['retrieve', 'retrieval']]);
    const op = io(r.doc, r.doc.data.operations[0].op_id);
    expect(op.reads).toContain('How do I use the SDK to upload a ranking model?');
    const doc1 = r.doc.data.nodes.find((n) => n.name === '883e74ee-691a-46e0-acd7-f58bd565dad4');
    const doc2 = r.doc.data.nodes.find((n) => n.name === 'd169f0ce-b5ea-4e88-9653-f8bb2fb1d105');
    expect(String(doc1?.value)).toMatch(/^\nRanking models are used by\n/);
    expect(String(doc2?.value)).toMatch(/^\n\*\*Use the\n/);
    expect(op.reads).toEqual(expect.arrayContaining([doc1?.value, doc2?.value]));
  });

  it('span rows of an agent turn: 18 ops, the question in the messages, the last answer, tool calls linked', () => {
    const r = open('phoenix-span-rows-agent-turn.json');
    const names = r.doc.data.operations.map((o) => o.op_name);
    expect(names).toHaveLength(18);
    expect(names.filter((n) => n === 'claude-fable-5')).toHaveLength(9);
    expect(io(r.doc, 'op-s02').reads).toEqual(
      expect.arrayContaining(['what happened in this trace?', 'can you save this trace to a dataset?']),
    );
    expect(io(r.doc, 'op-s18').writes).toEqual([
      "Done! I created the dataset [`golden_examples`](/datasets/fixture-dataset-4/examples) and added this trace's root span as its first example.",
    ]);
    // The model's tool call (llm.output_messages.0.message.tool_calls.0.…arguments) is what the tool span reads.
    expect(io(r.doc, 'op-s04').writes).toEqual(['{"after": "fixture-cursor"}']);
    expect(edgeInto(r.doc, 'op-s05', '{"after": "fixture-cursor"}')).toBe('same-content');
  });
});

describe('every file in the folder', () => {
  it('opens, keeps text, and no op claims "no content recorded" for a span that had text', () => {
    for (const name of [
      'langfuse-download-langgraph.json',
      'langfuse-download-llamaindex.json',
      'langfuse-download-openai-agents.json',
      'openlit-resourcespans-decoded.json',
      'openllmetry-openai-otlp.json',
      'phoenix-span-retriever-single.json',
      'phoenix-span-rows-agent-turn.json',
      'strands-agents-otlp.json',
      'vercel-ai-sdk-spans.json',
    ]) {
      const r = open(name);
      expect(variables(r.doc).length, name).toBeGreaterThan(0);
      const unread = warnings(r).filter((w) => w.code === 'unread-text');
      if (name !== 'phoenix-span-rows-agent-turn.json') expect(unread, name).toEqual([]);
      else {
        // Its LLM rows' input.value / output.value are placeholders ("[sanitized conversation
        // history]") beside the real messages: text no variable keeps, said.
        const rows = JSON.parse(readFileSync(join(DIR, name), 'utf8')) as {
          attributes: Record<string, string>;
        }[];
        const placeholders = rows.filter((x) =>
          /^\{"(messages|parts)": "\[sanitized/.test(x.attributes['input.value'] ?? ''),
        );
        expect(placeholders).toHaveLength(9);
        expect(unread.map((w) => w.message)).toEqual([
          'text in attributes the importer does not read (kept in no variable): "input.value" (9 spans), "output.value" (9 spans)',
        ]);
      }
    }
  });
});
