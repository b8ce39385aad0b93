import { describe, expect, it } from 'vitest';
import { SYSTEM_PRIORS, systemPrior } from '../../src/core/attribution/index.ts';
import {
  benchSplitOf,
  canonicalSystem,
  listCases,
  parseJudgeScore,
  splitFromPath,
  systemOf,
} from '../../src/core/cases/index.ts';
import {
  blockAt,
  buildGraph,
  closure,
  latestVersion,
  lineageOf,
  opStructure,
  opsTouching,
  renderObsLog,
  renderVariableView,
  searchValues,
  type TraceGraph,
  versionsOf,
} from '../../src/core/graph/index.ts';
import { splitFullNodeId } from '../../src/core/trace/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

/** message → extract → facts; store@1 + facts → update → store@2 (with an intermediate); store@3 without an edge. */
function memoryGraph() {
  const b = new DocBuilder();
  const msg = b.variable('conv:D1:1', "'I adopted a dog named Rex'", { category: 'message' });
  const facts = b.variable('facts-1', "['adopted a dog named Rex']", { category: 'facts' });
  const extract = b.op('fact-extraction', 'extraction', [msg], [facts]);
  const s1 = b.variable('memory-store', '{}', { category: 'memory_store' });
  const decision = b.variable('decision', "'ADD'", { category: 'llm_output' });
  const s2 = b.variable('memory-store', "{'0': 'adopted a dog named Rex'}", {
    category: 'memory_store',
    version: 2,
  });
  const update = b.op('memory-update', 'update', [s1, facts], [decision], {
    extraEdges: [
      [decision, s2],
      [s1, s2],
    ],
  });
  b.variable('memory-store', "{'0': 'adopted a cat'}", { category: 'memory_store', version: 3 });
  const q = b.judged('q1', 'What pet?', 'a cat', ['a dog named Rex'], 0, ['conv:D1:1']);
  const ok = b.judged('q2', 'Name?', 'Rex', ['Rex'], 1);
  return { b, g: buildGraph(b.doc), ids: { msg, facts, extract, s1, s2, decision, update, q, ok } };
}

const idx = (g: TraceGraph, id: string) => g.varIndex.get(id)!;
const names = (g: TraceGraph, vs: Iterable<number>) => [...vs].map((v) => g.varId[v]);

describe('op structure is derived from edges', () => {
  it('inputs are sources only, outputs targets only, the rest intermediate', () => {
    const { g, ids } = memoryGraph();
    const s = opStructure(g, g.opIndex.get(ids.update)!);
    expect(names(g, s.inputs)).toEqual(['memory-store@1', 'facts-1@1']);
    expect(names(g, s.intermediates)).toEqual(['decision@1']);
    expect(names(g, s.outputs)).toEqual(['memory-store@2']);
  });
});

describe('lineage', () => {
  it('versions of one full name form one chain, even without a mutation edge', () => {
    const { g, ids } = memoryGraph();
    expect(names(g, lineageOf(g, idx(g, ids.s2)))).toEqual([
      'memory-store@1',
      'memory-store@2',
      'memory-store@3',
    ]);
    expect(g.varId[latestVersion(g, 'memory-store')!]).toBe('memory-store@3');
    expect(versionsOf(g, 'nope')).toHaveLength(0);
  });
  it('a chain listed out of order in the file is sorted by version', () => {
    const b = new DocBuilder();
    b.variable('x', '2', { version: 2 });
    b.variable('x', '1', { version: 1 });
    const g = buildGraph(b.doc);
    expect(names(g, lineageOf(g, 0))).toEqual(['x@1', 'x@2']);
  });
  it('ids split on the last @ only', () => {
    expect(splitFullNodeId('class:name@with@at@3')).toEqual({ fullName: 'class:name@with@at', version: 3 });
    expect(splitFullNodeId('no-version')).toBeNull();
  });
});

describe('closure', () => {
  it('downstream of a message reaches the store through edges, then later versions through the lineage', () => {
    const { g, ids } = memoryGraph();
    const c = closure(g, [idx(g, ids.msg)], { direction: 'downstream' });
    expect(names(g, c.vars)).toContain('memory-store@3');
    expect(c.depth.get(idx(g, ids.facts))).toBe(1);
    const noLineage = closure(g, [idx(g, ids.msg)], { direction: 'downstream', followLineage: false });
    expect(names(g, noLineage.vars)).not.toContain('memory-store@3');
  });
  it('the depth limit stops the walk', () => {
    const { g, ids } = memoryGraph();
    const c = closure(g, [idx(g, ids.msg)], { direction: 'downstream', maxDepth: 1 });
    expect(names(g, c.vars)).toEqual(['conv:D1:1@1', 'facts-1@1']);
    expect(c.ops.map((o) => g.opName[o])).toEqual(['fact-extraction']);
  });
  it('upstream of the new store reaches the message', () => {
    const { g, ids } = memoryGraph();
    const c = closure(g, [idx(g, ids.s2)], { direction: 'upstream' });
    expect(names(g, c.vars)).toContain('conv:D1:1@1');
  });
});

describe('execution order', () => {
  it('sorts ops by created_at, file order breaking ties', () => {
    const b = new DocBuilder();
    const a = b.variable('a', '1');
    const c = b.variable('c', '2');
    b.op('late', 'x', [a], [c], { id: 'op-late' });
    b.doc.data.operations[0].created_at = '2026-01-02 00:00:00.000';
    b.op('tie-1', 'x', [a], [c], { id: 'op-t1' });
    b.op('tie-2', 'x', [a], [c], { id: 'op-t2', sameTime: true });
    const g = buildGraph(b.doc);
    expect(Array.from(g.opOrder, (o) => g.opId[o])).toEqual(['op-t1', 'op-t2', 'op-late']);
    expect(opsTouching(g, 0).map((o) => g.opId[o])).toEqual(['op-t1', 'op-t2', 'op-late']);
  });
});

describe('search', () => {
  it('finds text case-insensitively with snippets around each match', () => {
    const { g } = memoryGraph();
    const hits = searchValues(g, 'REX', { context: 5 });
    expect(hits.map((h) => h.fullNodeId)).toEqual([
      'conv:D1:1@1',
      'facts-1@1',
      'memory-store@2',
      'golden_answers:gold-q1@1',
      'prediction:pred-q2@1',
      'golden_answers:gold-q2@1',
    ]);
    expect(hits[0].snippet.slice(hits[0].snippetOffset, hits[0].snippetOffset + 3)).toBe('Rex');
  });
  it('takes regular expressions, and regex metacharacters as plain text otherwise', () => {
    const { g } = memoryGraph();
    expect(searchValues(g, 'a (dog|cat)', { regex: true }).map((h) => h.fullNodeId)).toContain(
      'memory-store@3',
    );
    expect(searchValues(g, 'a (dog|cat)')).toEqual([]);
    expect(() => searchValues(g, '(', { regex: true })).toThrow(SyntaxError);
  });
  it('stops at the limit and survives empty matches', () => {
    const { g } = memoryGraph();
    expect(searchValues(g, 'a', { limit: 2 })).toHaveLength(2);
    expect(searchValues(g, 'q{0}', { regex: true })).toEqual([]);
  });
});

describe('text renderings for the agents', () => {
  it('the explore view lists every op touching a variable with its role, successors and subgraph', () => {
    const { g, ids } = memoryGraph();
    const page = renderVariableView(g, idx(g, ids.facts), { mode: 'full' });
    expect(page.pages).toBe(1);
    expect(page.text).toMatch(/2 operation\(s\) touch it/);
    expect(page.text.indexOf('name: fact-extraction')).toBeLessThan(page.text.indexOf('name: memory-update'));
    expect(page.text).toMatch(/role of facts-1@1: output/);
    expect(page.text).toMatch(/role of facts-1@1: input/);
    expect(page.text).toMatch(/direct successors: decision@1/);
    expect(page.text).toMatch(/value: \{'0': 'adopted a dog named Rex'\}/);
    expect(page.text).toMatch(/memory-store@1 -> memory-store@2/);
  });
  it('preview mode leaves values out; full mode pages by characters', () => {
    const { g, ids } = memoryGraph();
    const preview = renderVariableView(g, idx(g, ids.facts), { mode: 'preview' });
    expect(preview.text).not.toMatch(/adopted a dog/);
    expect(preview.text).toMatch(/value: \d+ chars/);
    const full = renderVariableView(g, idx(g, ids.facts), { mode: 'full', pageChars: 100 });
    expect(full.pages).toBe(Math.ceil(full.totalChars / 100));
    const last = renderVariableView(g, idx(g, ids.facts), {
      mode: 'full',
      pageChars: 100,
      page: full.pages - 1,
    });
    expect(last.text.length).toBe(full.totalChars - 100 * (full.pages - 1));
  });
  it('the OBS log has one block per op in time order, values in, ids and edges out', () => {
    const { g } = memoryGraph();
    const log = renderObsLog(g);
    expect(log.blocks).toHaveLength(g.opId.length);
    expect(log.text).not.toMatch(/op-\d|edge-|->|@1/);
    expect(log.text).toMatch(/=== Operation block 1: fact-extraction \[extraction\]/);
    expect(log.text).toMatch(/- memory-store \(memory_store, version 1\): \{\}/);
    const at = log.text.indexOf('decision (llm_output');
    expect(g.opName[blockAt(log, at)!.op]).toBe('memory-update');
  });
});

describe('cases', () => {
  it('a question failed when its llm-judge score is 0; passed ones are left out', () => {
    const { g, ids } = memoryGraph();
    const cases = listCases(g);
    expect(cases.map((c) => c.queryId)).toEqual([ids.q.query]);
    expect(cases[0]).toMatchObject({
      question: 'What pet?',
      goldenAnswers: ['a dog named Rex'],
      prediction: 'a cat',
      judgeScore: 0,
      judgeResponse: 'WRONG',
      failed: true,
      evidenceIds: ['conv:D1:1@1'],
      label: null,
    });
    expect(listCases(g, { includePassed: true })).toHaveLength(2);
  });
  it('judge scores parse from Python reprs and verdict words', () => {
    expect(['0.0', "'0'", 'False', "'WRONG'", '0'].map(parseJudgeScore)).toEqual([0, 0, 0, 0, 0]);
    expect(['1.0', "'CORRECT'", 'True'].map(parseJudgeScore)).toEqual([1, 1, 1]);
    expect(parseJudgeScore('maybe')).toBeNull();
  });
  it('an annotation for a question with no judge op is still a case', () => {
    const b = new DocBuilder();
    const q = b.variable('q', "'Where?'", { className: 'query', category: 'message & query' });
    b.doc.data.annotations = [
      {
        query_id: q,
        query: 'Where?',
        golden_answers: 'Paris',
        final_error_type: 'ExtractionError',
        final_op_id: 'op-1',
      },
    ];
    const [c] = listCases(buildGraph(b.doc));
    expect(c).toMatchObject({
      queryId: q,
      goldenAnswers: ['Paris'],
      label: { errorType: 'ExtractionError', opId: 'op-1' },
    });
  });
  it('the system comes from the MemTraceBench split folder, else metadata, else project_id', () => {
    expect(splitFromPath('bench/mem0/graph-1.json')).toBe('mem0');
    expect(splitFromPath('x/long-context/g.json')).toBe('long_context');
    expect(splitFromPath('mem0.json')).toBeNull();
    const { b } = memoryGraph();
    expect(systemOf(b.doc, 'a/rag/x.json')).toBe('rag');
    b.doc.metadata.layer_type = 'evermemos';
    expect(systemOf(b.doc, 'x.json')).toBe('evermemos');
    delete b.doc.metadata.layer_type;
    // memoryGraph's ops are fact-extraction and memory-update: the Mem0 design.
    expect(systemOf(b.doc, 'x.json')).toBe('mem0');
  });
  it("one spelling rule for system names: the case metadata, the folder and the agents' system prior agree", () => {
    for (const [spelt, split] of [
      ['RAG', 'rag'],
      [' Mem0 ', 'mem0'],
      ['EverMemOS', 'evermemos'],
      ['long-context', 'long_context'],
      ['Long Context', 'long_context'],
      ['longcontext', 'long_context'],
      ['long_ctx', 'long_context'],
    ] as const) {
      expect(benchSplitOf(spelt), spelt).toBe(split);
      expect(canonicalSystem(spelt), spelt).toBe(split);
      expect(systemPrior(spelt), spelt).toBe(SYSTEM_PRIORS[split]);
    }
    for (const other of ['memgpt', 'MyRAG', '__proto__', '']) {
      expect(benchSplitOf(other), other).toBeNull();
      expect(canonicalSystem(other)).toBe(other);
      expect(systemPrior(other)).toBeNull();
    }
  });
});
