/**
 * Hand-built graphs and scripted policies for the agent tests. A policy is a
 * scripted stand-in for the model (no LLM): a function of the request that returns
 * the next action, so a resumed run gets the same replies as an uninterrupted one.
 */
import { listCases, type TraceCase } from '../../src/core/cases/index.ts';
import { buildGraph, type TraceGraph } from '../../src/core/graph/index.ts';
import type { ChatRequest } from '../../src/core/llm/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

interface Mem0Fixture {
  g: TraceGraph;
  c: TraceCase;
  ops: {
    extract1: string;
    extract2: string;
    update1: string;
    update2: string;
    retrieve: string;
    answer: string;
  };
  vars: {
    m1: string;
    m2: string;
    facts1: string;
    store1: string;
    store2: string;
    store3: string;
    retrieved: string;
  };
}

/**
 * A Mem0-shaped run: two messages → fact extraction → store updates; the question
 * retrieves from the store and the answer op answers. The fact about the support
 * group was extracted and stored, but retrieval returned the wrong memory
 * (a RetrievalError at the retrieval op).
 */
export function mem0Fixture(padding = 0): Mem0Fixture {
  const b = new DocBuilder('graph-agents');
  const pad = padding ? ` ${'lorem ipsum '.repeat(padding)}` : '';
  const m1 = b.variable('conv:D1:3', `'Caroline: I went to the LGBTQ support group on 7 May 2023.${pad}'`, {
    category: 'message',
  });
  const m2 = b.variable('conv:D1:4', `'Melanie: Caroline, I painted a sunrise last week.${pad}'`, {
    category: 'message',
  });
  const prompt = b.variable('fact-extraction-prompt', "'Extract facts.'", { category: 'prompt' });
  const store1 = b.variable('memory-store', '{}', { category: 'memory_store' });
  const facts1 = b.variable('facts-1', "['Caroline went to the LGBTQ support group on 7 May 2023']", {
    category: 'facts',
  });
  const extract1 = b.op('fact-extraction', 'extraction', [m1, prompt], [facts1]);
  const store2 = b.variable(
    'memory-store',
    "{'mem-1': 'Caroline went to the LGBTQ support group on 7 May 2023'}",
    { version: 2, category: 'memory_store' },
  );
  const update1 = b.op('memory-update', 'update', [facts1, store1], [store2]);
  const facts2 = b.variable('facts-2', "['Melanie painted a sunrise']", { category: 'facts' });
  const extract2 = b.op('fact-extraction', 'extraction', [m2, prompt], [facts2]);
  const store3 = b.variable(
    'memory-store',
    "{'mem-1': 'Caroline went to the LGBTQ support group on 7 May 2023', 'mem-2': 'Melanie painted a sunrise'}",
    { version: 3, category: 'memory_store' },
  );
  const update2 = b.op('memory-update', 'update', [facts2, store2], [store3]);
  const query = b.variable('q-0', "'When did Caroline go to the LGBTQ support group?'", {
    className: 'query',
    category: 'message & query',
  });
  const retrieved = b.variable('retrieved-0', "['Melanie painted a sunrise']", {
    category: 'retrieved_memories',
  });
  const retrieve = b.op('memory-retrieval', 'retrieval', [query, store3], [retrieved]);
  const qaPrompt = b.variable('qa-prompt', "'Answer from the memories.'", { category: 'prompt' });
  const pred = b.variable('pred-0', "'Not mentioned in the memories.'", {
    className: 'prediction',
    category: 'answer',
  });
  const answer = b.op('question-answering', 'generation', [retrieved, qaPrompt, query], [pred]);
  const gold = b.variable('gold-0', "['7 May 2023']", { className: 'golden_answers', category: 'golden' });
  const resp = b.variable('judge-0', "'WRONG'", { className: 'judge_response', category: 'judge' });
  const score = b.variable('score-0', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [query, pred, gold], [resp, score]);
  b.doc.data.annotations = [
    { query_id: query, final_error_type: 'RetrievalError', final_op_id: retrieve, label_source: 'test' },
  ];
  const g = buildGraph(b.doc);
  const c = listCases(g)[0];
  return {
    g,
    c,
    ops: { extract1, extract2, update1, update2, retrieve, answer },
    vars: { m1, m2, facts1, store1, store2, store3, retrieved },
  };
}

export function lastText(req: ChatRequest): string {
  return req.messages[req.messages.length - 1].content;
}

export function action(name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ action: name, args });
}

/** The step number the agent shows in its status line (0 before the first action). */
export function stepOf(req: ChatRequest): number {
  const all = req.messages.map((m) => m.content).join('\n');
  const m = [...all.matchAll(/\[step (\d+)\//g)].at(-1);
  return m ? Number(m[1]) : 0;
}
