import { describe, expect, it } from 'vitest';
import { attributeEvidenceFlow, splitUnits } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

const py = (s: string) => `'${s.replace(/'/g, "\\'")}'`;
const pyDict = (d: Record<string, string>) =>
  `{${Object.entries(d)
    .map(([k, v]) => `${py(k)}: ${py(v)}`)
    .join(', ')}}`;
const pyList = (xs: string[]) => `[${xs.map(py).join(', ')}]`;

const MESSAGES = [
  'Caroline: I adopted a golden retriever puppy named Biscuit last weekend',
  'Melanie: My sister is running the Boston marathon in April',
  'Caroline: I started painting landscapes with watercolors recently',
  'Melanie: We are planning a camping trip to Yosemite in June',
];

interface Faults {
  extraction?: boolean;
  update?: boolean;
  deletion?: boolean;
  retrieval?: boolean;
  rerankDrops?: boolean;
  prediction?: string;
}

/** A Mem0-shaped run with ops named arbitrarily (names must not matter), one fault at a time. */
function mem0Run(f: Faults = {}) {
  const b = new DocBuilder();
  const prompt = b.variable('extract-prompt', py('Extract facts.'), { category: 'prompt' });
  const msgs = MESSAGES.map((t, i) => b.variable(`conv:D1:${i + 1}`, py(t), { category: 'message' }));
  let store = b.variable('store', '{}', { category: 'memory_store' });
  const entries: Record<string, string> = {};
  let version = 1;
  const ops: Record<string, string> = {};
  for (const [i, m] of msgs.entries()) {
    const fact = f.extraction && i === 0 ? 'Caroline talked about her week' : MESSAGES[i];
    const facts = b.variable(`facts-${i}`, pyList([fact]), { category: 'facts' });
    ops[`extract${i}`] = b.op(`step-a-${i}`, 'llm_call', [m, prompt], [facts]);
    entries[`mem-${i}`] = fact;
    const next = b.variable('store', pyDict(entries), { category: 'memory_store', version: ++version });
    ops[`apply${i}`] = b.op(`step-b-${i}`, 'mutation', [store, facts], [next]);
    store = next;
  }
  if (f.update || f.deletion) {
    if (f.update) entries['mem-0'] = 'Caroline adopted a cat';
    else delete entries['mem-0'];
    const next = b.variable('store', pyDict(entries), { category: 'memory_store', version: ++version });
    ops.change = b.op('step-c', f.deletion ? 'mutation' : 'mutation', [store], [next]);
    store = next;
  }
  const q = b.variable('qa-1', py('What is the name of the puppy Caroline adopted?'), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: ['conv:D1:1'] },
  });
  const hits = f.retrieval
    ? [MESSAGES[1], MESSAGES[2]]
    : [entries['mem-0'] ?? MESSAGES[1], MESSAGES[2]].filter(Boolean);
  const candidates = b.variable('candidates', pyList(hits), { category: 'retrieved' });
  ops.retrieve = b.op('step-d', 'search', [q, store], [candidates]);
  let context = candidates;
  if (f.rerankDrops !== undefined) {
    context = b.variable('reranked', pyList(f.rerankDrops ? [MESSAGES[2]] : hits), { category: 'retrieved' });
    ops.rerank = b.op('step-e', 'search', [q, candidates], [context]);
  }
  const answerPrompt = b.variable('answer-prompt', py('Answer briefly.'), { category: 'prompt' });
  const pred = b.variable('pred-1', py(f.prediction ?? 'Rex'), {
    className: 'prediction',
    category: 'answer',
  });
  ops.answer = b.op('step-f', 'llm_call', [q, context, answerPrompt], [pred]);
  const gold = b.variable('gold-1', pyList(['Biscuit']), { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  const [c] = listCases(g);
  return { b, g, c, ops };
}

async function attribute(run: ReturnType<typeof mem0Run>) {
  return attributeEvidenceFlow({ graph: run.g, case: run.c });
}

describe('evidence-flow attributes each error type to its op', () => {
  it('ExtractionError: the evidence never made it into the facts', async () => {
    const run = mem0Run({ extraction: true });
    const a = await attribute(run);
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: run.ops.extract0 });
    expect(a.path[0]).toMatchObject({ var_id: 'conv:D1:1@1', note: 'evidence' });
  });
  it('UpdateError: a later version rewrote the entry that held it', async () => {
    const run = mem0Run({ update: true });
    const a = await attribute(run);
    expect(a).toMatchObject({ error_type: 'UpdateError', op_id: run.ops.change });
    expect(a.reason).toMatch(/entry mem-0/);
  });
  it('DeletionError: a later version no longer has the entry', async () => {
    const run = mem0Run({ deletion: true });
    const a = await attribute(run);
    expect(a).toMatchObject({ error_type: 'DeletionError', op_id: run.ops.change });
  });
  it('RetrievalError: the store held it, the retrieved context did not', async () => {
    const run = mem0Run({ retrieval: true });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.retrieve });
  });
  it('RetrievalError at the later stage when a reranker drops what the first stage found', async () => {
    const run = mem0Run({ rerankDrops: true });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.rerank });
    const fine = mem0Run({ rerankDrops: false });
    expect(await attribute(fine)).toMatchObject({ error_type: 'ResponseError', op_id: fine.ops.answer });
  });
  it('ResponseError: the answer op had the evidence and still answered wrongly', async () => {
    const run = mem0Run();
    const a = await attribute(run);
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: run.ops.answer });
    expect(a.candidates.at(-1)).toMatchObject({ op_id: run.ops.answer, error_type: 'ResponseError' });
  });
  it('a rejected prediction that holds the golden answer is a candidate judge error, still attributed', async () => {
    const run = mem0Run({ prediction: 'The puppy is called Biscuit.', extraction: true });
    const a = await attribute(run);
    expect(a.judge_disagrees).toBe(true);
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: run.ops.extract0 });
    const other = await attribute(mem0Run({ prediction: 'Rex', extraction: true }));
    expect(other.judge_disagrees).toBe(false);
  });
  it('no decisive memory error when no evidence can be located', async () => {
    const run = mem0Run();
    const a = await attributeEvidenceFlow({ graph: run.g, case: { ...run.c, evidenceIds: [] } });
    expect(a.error_type).toBeNull();
    expect(a.reason).toMatch(/No evidence/);
  });
  it('evidence located by a supplied locator is used when the case names none', async () => {
    const run = mem0Run({ retrieval: true });
    const locate = async () => [run.g.varIndex.get('conv:D1:1@1')!];
    const a = await attributeEvidenceFlow(
      { graph: run.g, case: { ...run.c, evidenceIds: [] } },
      { locateEvidence: locate },
    );
    expect(a).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.retrieve });
  });
  it('honours an aborted signal', async () => {
    const run = mem0Run();
    const ac = new AbortController();
    ac.abort();
    await expect(
      attributeEvidenceFlow({ graph: run.g, case: run.c }, {}, { signal: ac.signal }),
    ).rejects.toThrow();
  });
});

/** A naive-RAG shape: messages → buffer chain → flush (chunk) → clear; chunks → index chain. */
function ragRun(dropFromChunk: boolean) {
  const b = new DocBuilder();
  let buffer = b.variable('buffer', "''", { category: 'buffer' });
  let index = b.variable('index', '[]', { category: 'memory_store' });
  const chunks: string[] = [];
  const ops: Record<string, string> = {};
  let lines: string[] = [];
  let bv = 1;
  let iv = 1;
  const msgs = MESSAGES.map((t, i) => b.variable(`m${i}`, py(t), { category: 'message' }));
  for (const [i, m] of msgs.entries()) {
    lines.push(MESSAGES[i]);
    const next = b.variable('buffer', py(lines.join('\n')), { category: 'buffer', version: ++bv });
    b.op('append', 'update', [buffer, m], [next]);
    buffer = next;
    if (i % 2 === 1) {
      const text = dropFromChunk && i === 1 ? lines.slice(1).join('\n') : lines.join('\n');
      const chunk = b.variable(`chunk-${i}`, py(text), { category: 'memory_entry' });
      ops[`flush${i}`] = b.op('flush', 'extraction', [buffer], [chunk]);
      // The clear op has no real input: its empty side is the sentinel, as the toolkit writes it.
      if (!b.doc.data.nodes.some((n) => n.category === 'sentinel'))
        b.variable('COMMENT', "'NONE'", { category: 'sentinel', className: null });
      const cleared = b.variable('buffer', "''", { category: 'buffer', version: ++bv });
      ops[`clear${i}`] = b.op('clear', 'update', [buffer], [cleared]);
      buffer = cleared;
      lines = [];
      chunks.push(text);
      const nextIndex = b.variable('index', pyList(chunks), { category: 'memory_store', version: ++iv });
      b.op('index-add', 'update', [index, chunk], [nextIndex]);
      index = nextIndex;
    }
  }
  const q = b.variable('q', py('What is the name of the puppy?'), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: ['m0'] },
  });
  const ctx = b.variable(
    'ctx',
    pyList(chunks.filter((c) => c.includes('Biscuit') || c.includes('painting'))),
    { category: 'retrieved' },
  );
  ops.search = b.op('search', 'retrieval', [q, index], [ctx]);
  const pred = b.variable('pred', py('Rex'), { className: 'prediction', category: 'answer' });
  ops.answer = b.op('answer', 'generation', [q, ctx], [pred]);
  const gold = b.variable('gold', pyList(['Biscuit']), { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  // A manual link outside any op, as the toolkit records it with the __none_op__ sentinel.
  b.doc.data.operations.push({
    ...b.doc.data.operations[0],
    op_id: '__none_op__',
    op_name: null,
    category: 'sentinel',
  });
  b.doc.data.edges.push({
    ...b.doc.data.edges[0],
    edge_id: 'link-1',
    op_id: '__none_op__',
    category: 'link',
    source_full_node_id: 'm0@1',
    target_full_node_id: 'q@1',
  });
  const g = buildGraph(b.doc);
  return { g, c: listCases(g)[0], ops };
}

describe('evidence-flow on a staged (buffer → chunk → index) pipeline with sentinels and links', () => {
  it('blames the flush that left the message out of its chunk, not the buffer clear that followed', async () => {
    const run = ragRun(true);
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: run.ops.flush1 });
  });
  it('a correct flush passes the evidence on: the answer op is at fault, never a sentinel op', async () => {
    const run = ragRun(false);
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: run.ops.answer });
    expect(a.candidates.map((x) => x.op_id)).not.toContain('__none_op__');
  });
});

describe('evidence-flow on a long-context window', () => {
  it('a trim that pushes the evidence out of the window is an UpdateError of that update', async () => {
    const b = new DocBuilder();
    let window = b.variable('window', "''", { category: 'memory_store' });
    const kept: string[] = [];
    const updates: string[] = [];
    for (const [i, t] of MESSAGES.entries()) {
      const m = b.variable(`m${i}`, py(t), { category: 'message' });
      kept.push(t);
      if (kept.length > 2) kept.shift();
      const next = b.variable('window', py(kept.join('\n')), { category: 'memory_store', version: i + 2 });
      updates.push(b.op('window-update', 'update', [window, m], [next]));
      window = next;
    }
    const q = b.variable('q', py('Puppy name?'), {
      className: 'query',
      category: 'message & query',
      metadata: { evidence: ['m0'] },
    });
    const pred = b.variable('p', py('Rex'), { className: 'prediction', category: 'answer' });
    b.op('answer', 'generation', [q, window], [pred]);
    const gold = b.variable('g', pyList(['Biscuit']), { className: 'golden_answers', category: 'golden' });
    const score = b.variable('s', '0.0', { className: 'judge_score', category: 'judge' });
    b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
    const g = buildGraph(b.doc);
    const a = await attributeEvidenceFlow({ graph: g, case: listCases(g)[0] });
    expect(a).toMatchObject({ error_type: 'UpdateError', op_id: updates[2] });
  });
});

describe('value units', () => {
  it('splits dicts into keyed entries, lists into items, text into lines', () => {
    expect(splitUnits("{'a': 'x', 'b': {'c': 'y'}}")).toEqual({
      kind: 'dict',
      keyed: true,
      keys: ['a', 'b'],
      texts: ['x', 'y'],
    });
    expect(splitUnits("['x', 'y']").texts).toEqual(['x', 'y']);
    expect(splitUnits("'line one\\nline two'").texts).toEqual(['line one', 'line two']);
  });

  it('splits a list item made of dated records into its records (item numbers kept), other items stay whole', () => {
    const digest = JSON.stringify([
      '8 May, 2023 | Caroline: painting\n25 May, 2023 | Melanie: a race\nthat she ran',
      'a note\nin two lines',
    ]);
    expect(splitUnits(digest)).toEqual({
      kind: 'list',
      keyed: false,
      keys: ['0', '0', '1'],
      texts: [
        '8 May, 2023 | Caroline: painting',
        '25 May, 2023 | Melanie: a race\nthat she ran',
        'a note\nin two lines',
      ],
    });
  });
});
