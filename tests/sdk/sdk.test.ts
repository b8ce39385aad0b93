import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { parseValue, type TraceDocument } from '../../src/core/trace/index.ts';
import { AsyncLocalContext } from '../../src/sdk/context.node.ts';
import { fileSink } from '../../src/sdk/file-sink.node.ts';
import {
  contentName,
  formatTimestamp,
  PyFloat,
  pyRepr,
  seededIds,
  sha1Hex,
  steppingClock,
  TraceConsistencyError,
  Tracer,
  type TracerOptions,
} from '../../src/sdk/index.ts';

const REAL_DIR = join(import.meta.dirname, '../../../shared/data/smartcomment');
const REAL = ['conv-26-fault-1.json', 'conv-26-rag-0.json'].map(
  (f) => JSON.parse(readFileSync(join(REAL_DIR, f), 'utf8')) as TraceDocument,
);

function deterministic(extra: TracerOptions = {}): TracerOptions {
  return { clock: steppingClock(Date.UTC(2026, 0, 2, 3, 4, 5), 1), ids: seededIds(7), ...extra };
}

/** A small Mem0-shaped run touching every SDK feature. */
function sampleRun(t: Tracer) {
  t.session('session_1', { id: 's1', category: 'memory_construction', metadata: { date: 'today' } }, () => {
    const msg = t.variable('{"content": "I moved from Sweden"}', {
      name: 'demo:D1:1',
      category: 'message',
      comment: 'A raw conversation message.',
      metadata: { dia_id: 'D1:1' },
    });
    let store = t.variable({}, { name: 'memory-store', category: 'memory_store' });
    const facts = t.op(
      'fact-extraction',
      { category: 'extraction', metadata: { llm_model: 'offline' } },
      (op) => {
        op.input(msg);
        op.input('Extract facts.', { name: 'fact-extraction-system-prompt', category: 'prompt' });
        const out = op.output(['I moved from Sweden'], { category: 'facts' });
        t.link(msg, out, { comment: 'manual link inside an op' });
        return out;
      },
    );
    store = t.mutate(
      store,
      { 'mem-1': 'I moved from Sweden' },
      {
        name: 'memory-update',
        category: 'update',
        comment: 'ADD mem-1',
        inputs: [facts],
        metadata: { event: 'ADD' },
      },
    );
  });
  t.session('search', { id: 'search', category: 'memory_search' }, () => {
    const q = t.variable('Where did I move from?', {
      name: 'demo-qa-0',
      className: 'query',
      category: 'message & query',
      metadata: { evidence: ['demo:D1:1'] },
    });
    const pred = t.op('question-answering', { category: 'generation' }, (op) => {
      op.input(q);
      return op.output('Sweden', { name: 'pred-0', className: 'prediction', category: 'answer' });
    });
    t.op('llm-judge', { category: 'evaluation' }, (op) => {
      op.input(q);
      op.input(pred);
      op.input(['Sweden'], { name: 'gold-0', className: 'golden_answers', category: 'golden' });
      op.output('CORRECT', { name: 'judge-0', className: 'judge_response', category: 'judge' });
      op.output(new PyFloat(1), { name: 'score-0', className: 'judge_score', category: 'judge' });
    });
  });
}

const keys = (o: object) => Object.keys(o).join(',');

describe('sha1Hex', () => {
  it('equals Node crypto on block boundaries and non-ASCII text', () => {
    for (const s of [
      '',
      'abc',
      'x'.repeat(55),
      'y'.repeat(56),
      'z'.repeat(64),
      'é–😀 mixed',
      'q'.repeat(10_000),
    ])
      expect(sha1Hex(s)).toBe(createHash('sha1').update(s, 'utf8').digest('hex'));
  });
});

describe('value encoding matches the toolkit', () => {
  it('content names of real files are <type>:<sha1 of json.dumps(value)>', () => {
    let checked = 0;
    for (const doc of REAL)
      for (const n of doc.data.nodes) {
        if (!/^[a-z]+:[0-9a-f]{40}$/.test(n.name)) continue;
        expect(contentName(parseValue(n.value), sha1Hex)).toBe(n.name);
        checked++;
      }
    expect(checked).toBeGreaterThan(50);
  });
  it('pyRepr reproduces the stored value strings of real files', () => {
    let checked = 0;
    for (const doc of REAL)
      for (const n of doc.data.nodes) {
        const v = parseValue(n.value);
        // Floats lose their ".0" in JS and tuples read back as lists: both need PyFloat/PyTuple.
        if (v === undefined || typeof v === 'number' || n.value.startsWith("[('")) continue;
        expect(pyRepr(v)).toBe(n.value);
        checked++;
      }
    expect(checked).toBeGreaterThan(300);
    expect(pyRepr(new PyFloat(0))).toBe('0.0');
    expect(pyRepr({ a: true, b: null, c: [1, 'it\'s "x"'] })).toBe(
      `{'a': True, 'b': None, 'c': [1, 'it\\'s "x"']}`,
    );
  });
  it('timestamps are local YYYY-MM-DD HH:MM:SS.mmm', () => {
    expect(formatTimestamp(new Date(2026, 10, 30, 9, 5, 7, 42).getTime())).toBe('2026-11-30 09:05:07.042');
  });
});

describe('Tracer output format', () => {
  const t = new Tracer(deterministic({ filename: 'sample.ts' }));
  sampleRun(t);
  const doc = t.document();

  it('uses the exact field set and key order of the toolkit files', () => {
    for (const real of REAL) {
      expect(keys(doc)).toBe(keys(real));
      expect(keys({ ...doc.data, annotations: [] })).toBe(keys(real.data));
      for (const list of ['nodes', 'edges', 'operations', 'sessions'] as const) {
        const realKeys = new Set(real.data[list].map(keys));
        expect(realKeys.size).toBe(1);
        for (const r of doc.data[list]) expect(keys(r)).toBe([...realKeys][0]);
      }
    }
  });
  it('loads through the trace core without warnings', () => {
    const r = openTrace(JSON.stringify(doc, null, 2), { file: 'sample.json' });
    expect(r.ok).toBe(true);
    expect(r.issues).toEqual([]);
  });
  it('writes edges inputs × outputs with the op’s category, comment and metadata', () => {
    const judge = doc.data.operations.find((o) => o.op_name === 'llm-judge')!;
    const edges = doc.data.edges.filter((e) => e.op_id === judge.op_id);
    expect(edges).toHaveLength(6);
    const extraction = doc.data.operations.find((o) => o.op_name === 'fact-extraction')!;
    const facts = doc.data.nodes.find((n) => n.category === 'facts')!;
    expect(facts.metadata).toEqual({ llm_model: 'offline' }); // propagated from the op
    const opEdges = doc.data.edges.filter((e) => e.op_id === extraction.op_id && e.category !== 'link');
    expect(opEdges).toHaveLength(2);
    for (const e of opEdges)
      expect([e.category, e.metadata, e.target_full_node_id]).toEqual([
        'extraction',
        { llm_model: 'offline' },
        facts.full_node_id,
      ]);
  });
  it('makes version chains for mutations', () => {
    const versions = doc.data.nodes.filter((n) => n.name === 'memory-store');
    expect(versions.map((n) => [n.version, n.value])).toEqual([
      [1, '{}'],
      [2, "{'mem-1': 'I moved from Sweden'}"],
    ]);
    const op = doc.data.operations.find((o) => o.op_name === 'memory-update')!;
    const edges = doc.data.edges.filter((e) => e.op_id === op.op_id);
    expect(edges.map((e) => [e.source_full_node_id, e.target_full_node_id])).toEqual([
      ['memory-store@1', 'memory-store@2'],
      [doc.data.nodes.find((n) => n.category === 'facts')!.full_node_id, 'memory-store@2'],
    ]);
    expect(edges[0].comment).toBe('ADD mem-1');
    const t2 = new Tracer(deterministic());
    const a = t2.variable([1], { name: 'buf' });
    t2.mutate(a, [1, 2]);
    const d2 = t2.document();
    expect(d2.data.operations.find((o) => o.category === 'mutation')?.op_name).toBe('mutation:buf');
    expect(d2.data.edges.find((e) => e.op_id !== '__none_op__')?.comment).toBe('Version lineage.');
  });
  it('adds no sentinel when none is needed', () => {
    expect(doc.data.sessions.map((s) => s.session_id)).toEqual(['s1', 'search']);
    expect(doc.data.nodes.some((n) => n.category === 'sentinel')).toBe(false);
  });
});

describe('sentinels exactly as the toolkit makes them', () => {
  it('adds __none__, COMMENT:NONE@1 and __none_op__ only when used', () => {
    const t = new Tracer(deterministic());
    const out = t.op('source', {}, (op) => op.output('made from nothing'));
    const other = t.variable('x', { name: 'x' });
    t.link(out, other);
    const doc = t.document();
    expect(doc.data.sessions).toHaveLength(1);
    expect(doc.data.sessions[0]).toMatchObject({
      session_id: '__none__',
      session_name: 'NONE sentinel',
      category: 'sentinel',
      filename: '<sentinel>',
      lineno: 0,
    });
    const none = doc.data.nodes.find((n) => n.category === 'sentinel')!;
    expect(none).toMatchObject({ name: 'COMMENT:NONE', class_name: null, version: 1, value: 'NONE' });
    expect(none.full_node_id).toBe('COMMENT:NONE@1');
    expect(doc.data.operations.find((o) => o.op_id === '__none_op__')).toMatchObject({
      op_name: 'NONE sentinel',
      category: 'sentinel',
    });
    const link = doc.data.edges.find((e) => e.category === 'link')!;
    expect(link.op_id).toBe('__none_op__');
    expect(doc.data.edges.find((e) => e.category !== 'link')?.source_full_node_id).toBe('COMMENT:NONE@1');
    expect(openTrace(JSON.stringify(doc), { file: 'x.json' }).issues).toEqual([]);
  });
});

describe('identity strategies', () => {
  it('content, object and custom names; versions; strict mode', () => {
    const t = new Tracer(deterministic());
    const a = t.variable(['a', 'b']);
    expect(a.name).toBe(`list:${createHash('sha1').update('["a", "b"]').digest('hex')}`);
    expect(t.variable(['a', 'b'])).toBe(a); // same content → same node
    const obj = { k: 1 };
    const o1 = t.variable(obj, { identity: 'object' });
    obj.k = 2;
    const o2 = t.variable(obj, { identity: 'object' });
    expect([o1.name === o2.name, o1.version, o2.version]).toEqual([true, 1, 2]);
    expect(t.variable('q', { name: 'my-id', className: 'query' }).fullNodeId).toBe('query:my-id@1');
    expect(t.document().data.edges).toEqual([]); // untraced change: new version, no edge
    const strict = new Tracer(deterministic({ strict: true }));
    strict.variable(1, { name: 'n' });
    expect(() => strict.variable(2, { name: 'n' })).toThrow(TraceConsistencyError);
  });
});

describe('scopes', () => {
  it('AsyncLocalContext keeps concurrent async sessions apart', async () => {
    const t = new Tracer(deterministic({ context: new AsyncLocalContext() }));
    const tick = () => new Promise((r) => setTimeout(r, 1));
    await Promise.all(
      ['A', 'B'].map((n) =>
        t.session(n, { id: n }, async () => {
          for (let i = 0; i < 3; i++) {
            await tick();
            t.variable(`${n}${i}`, { name: `${n}-${i}` });
          }
        }),
      ),
    );
    for (const n of t.document().data.nodes) expect(n.session_id).toBe(n.name[0]);
  });
  it('wrap traces sync and async calls; withMetadata propagates', async () => {
    const t = new Tracer(deterministic());
    const add = t.wrap((a: number, b: number) => a + b, { name: 'add', category: 'math' });
    const later = t.wrap(async (s: string) => s.toUpperCase(), { name: 'upper' });
    expect(add(1, 2)).toBe(3);
    await t.withMetadata({ run: 'r1' }, async () => expect(await later('x')).toBe('X'));
    const doc = t.document();
    expect(doc.data.edges.filter((e) => e.category === 'math')).toHaveLength(2);
    const up = doc.data.operations.find((o) => o.op_name === 'upper')!;
    expect(up.metadata).toEqual({ run: 'r1' });
    expect(doc.data.nodes.find((n) => n.value === "'X'")?.metadata).toEqual({ run: 'r1' });
  });
});

describe('streaming writer', () => {
  it('writes the same bytes as the in-memory document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
    try {
      const mem = new Tracer(deterministic());
      sampleRun(mem);
      mem.annotate({ query_id: 'query:demo-qa-0@1', final_error_type: 'ResponseError', final_op_id: 'op-x' });
      const file = join(dir, 'out.json');
      const streamed = new Tracer(deterministic({ sink: fileSink(file) }));
      sampleRun(streamed);
      streamed.annotate({
        query_id: 'query:demo-qa-0@1',
        final_error_type: 'ResponseError',
        final_op_id: 'op-x',
      });
      await streamed.finish();
      expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(mem.document(), null, 2));
      const empty = new Tracer(deterministic({ sink: fileSink(join(dir, 'e.json')) }));
      await empty.finish();
      expect(JSON.parse(readFileSync(join(dir, 'e.json'), 'utf8')).data.nodes).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
