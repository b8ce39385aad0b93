/**
 * `memtrace compare` on two `memtrace run` outputs that differ by one setting (Mem0, offline,
 * retrieval depth 10 vs 1), with the flipped questions and the first divergence computed
 * independently here from the raw records; and on the paper-format graphs, where the first
 * divergence of the question a fault broke must be the op the file labels as the fault.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { parseValue } from '../../src/core/trace/index.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA, SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

/** `memtrace ARGS…` in-process. */
const run = (...argv: string[]) => runCli(argv);

interface Raw {
  data: {
    nodes: {
      full_node_id: string;
      name: string;
      class_name: string | null;
      value: string;
      created_at: string;
      version: number;
    }[];
    operations: { op_id: string; op_name: string; session_id: string; created_at: string }[];
    edges: { op_id: string; source_full_node_id: string; target_full_node_id: string }[];
  };
}

/** The raw file, read without the workbench's code: ops with their input and output values. */
function readRaw(file: string) {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Raw;
  const node = new Map(doc.data.nodes.map((n) => [n.full_node_id, n]));
  const edgesOf = new Map<string, Raw['data']['edges']>();
  for (const e of doc.data.edges) edgesOf.set(e.op_id, [...(edgesOf.get(e.op_id) ?? []), e]);
  const ops = doc.data.operations.map((o) => {
    const es = edgesOf.get(o.op_id) ?? [];
    const src = new Set(es.map((e) => e.source_full_node_id));
    const dst = new Set(es.map((e) => e.target_full_node_id));
    const inputs = [...src].filter((x) => !dst.has(x));
    const outputs = [...dst].filter((x) => !src.has(x));
    return { ...o, inputs, outputs, outValues: outputs.map((x) => node.get(x)?.value ?? '').sort() };
  });
  // Outcome of each question: the judge op's judge_score > 0.
  const outcome = new Map<string, 'correct' | 'wrong'>();
  for (const o of ops.filter((x) => x.op_name === 'llm-judge')) {
    const q = o.inputs.find((x) => node.get(x)?.class_name === 'query')!;
    const score = o.outputs.find((x) => node.get(x)?.class_name === 'judge_score')!;
    outcome.set(q, Number(node.get(score)!.value) > 0 ? 'correct' : 'wrong');
  }
  return { doc, node, ops, outcome };
}

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-compare-'));
const A = join(tmp, 'mem0-top10.json');
const B = join(tmp, 'mem0-top1.json');
const LOCOMO = join(SHARED_DATA, 'locomo/locomo-dev.json');
let out: {
  questions: {
    query: string;
    query_id_a: string | null;
    query_id_b: string | null;
    outcome_a: string;
    outcome_b: string;
    change: string;
    first_divergence: { op_a: string; op_b: string; match: string; setting_changed: boolean } | null;
  }[];
  memory: {
    only_a: unknown[];
    only_b: unknown[];
    changed: { unit: string; removed: string[]; added: string[] }[];
  };
};

beforeAll(async () => {
  const common = [
    '--system',
    'mem0',
    '--dataset',
    'locomo',
    '--data',
    LOCOMO,
    '--conversation',
    'conv-26',
    '--sessions',
    '4',
    '--offline',
  ];
  expect((await run('run', ...common, '-o', A)).code).toBe(0);
  expect((await run('run', ...common, '--top-k', '1', '-o', B)).code).toBe(0);
  const r = await run('compare', A, B, '--json');
  expect(r.code).toBe(0);
  out = JSON.parse(r.stdout);
}, 180_000);

describe('memtrace compare on two runs that differ by one setting (Mem0 top-k 10 vs 1)', () => {
  it('has the contract shape', () => {
    expect(Object.keys(out)).toEqual(expect.arrayContaining(['questions', 'memory']));
    expect(Object.keys(out.memory)).toEqual(expect.arrayContaining(['only_a', 'only_b', 'changed']));
    for (const q of out.questions) {
      expect(['correct', 'wrong', 'missing']).toContain(q.outcome_a);
      expect(['fixed', 'broken', 'same']).toContain(q.change);
      expect(q).toHaveProperty('first_divergence');
    }
  });

  it('pairs every question and lists exactly the flips the judges recorded', () => {
    const ra = readRaw(A);
    const rb = readRaw(B);
    expect(out.questions).toHaveLength(ra.outcome.size);
    const expected = [...ra.outcome].map(([q, oa]) => {
      const ob = rb.outcome.get(q) ?? 'missing';
      return {
        q,
        oa,
        ob,
        change:
          oa !== 'correct' && ob === 'correct'
            ? 'fixed'
            : oa === 'correct' && ob !== 'correct'
              ? 'broken'
              : 'same',
      };
    });
    const shown = new Map(out.questions.map((q) => [q.query_id_a, q]));
    for (const e of expected)
      expect(shown.get(e.q)).toMatchObject({
        query_id_b: e.q,
        outcome_a: e.oa,
        outcome_b: e.ob,
        change: e.change,
      });
    // the setting changes something: there are flips to list
    expect(expected.filter((e) => e.change !== 'same').length).toBeGreaterThan(0);
  });

  it("puts each question's first divergence at its own memory search when the retrieved memories differ, nowhere otherwise", () => {
    const ra = readRaw(A);
    const rb = readRaw(B);
    // Construction does not read top-k: every construction op writes the same values in both runs, in order.
    const build = (r: ReturnType<typeof readRaw>) =>
      r.ops
        .filter((o) => o.session_id.includes('construction'))
        .map((o) => [o.op_name, o.outValues.join('\u0000')]);
    expect(build(ra)).toEqual(build(rb));
    const search = (r: ReturnType<typeof readRaw>, q: string) =>
      r.ops.find((o) => o.op_name === 'memory-search' && o.inputs.includes(q))!;
    let diverged = 0;
    for (const q of out.questions) {
      const sa = search(ra, q.query_id_a!);
      const sb = search(rb, q.query_id_b!);
      if (sa.outValues.join() !== sb.outValues.join()) {
        diverged++;
        expect(q.first_divergence).toMatchObject({
          op_a: sa.op_id,
          op_b: sb.op_id,
          match: 'selection',
          setting_changed: false,
        });
      } else expect(q.first_divergence).toBeNull();
    }
    expect(diverged).toBeGreaterThan(0);
    // the memory the questions read is the same in both runs (construction is)
    expect([out.memory.only_a.length, out.memory.only_b.length, out.memory.changed.length]).toEqual([
      0, 0, 0,
    ]);
  });
});

describe('memtrace compare on the paper-format graphs (one injected fault each)', () => {
  const F0 = join(SMARTCOMMENT_DIR, 'conv-26-fault-0.json');
  const F1 = join(SMARTCOMMENT_DIR, 'conv-26-fault-1.json');

  it("finds the extraction fault of run A as the first divergence of the question it broke, opposite B's same op", async () => {
    const r = await run('compare', F0, F1, '--json');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout);
    const ra = readRaw(F0);
    const rb = readRaw(F1);
    const fault = (
      JSON.parse(readFileSync(F0, 'utf8')).data.annotations as {
        query_id: string;
        final_op_id: string;
        label_source: string;
      }[]
    ).find((a) => a.label_source === 'fault-injection')!;
    const q = o.questions.find((x: { query_id_a: string }) => x.query_id_a === fault.query_id);
    expect(q.first_divergence.op_a).toBe(fault.final_op_id);
    // B's op: the same op name reading the same values
    const opA = ra.ops.find((x) => x.op_id === fault.final_op_id)!;
    const values = (r0: ReturnType<typeof readRaw>, ids: string[]) =>
      ids
        .map((id) => r0.node.get(id)!.value)
        .sort()
        .join('\u0000');
    const twin = rb.ops.filter(
      (x) => x.op_name === opA.op_name && values(rb, x.inputs) === values(ra, opA.inputs),
    );
    expect(twin.map((x) => x.op_id)).toContain(q.first_divergence.op_b);
    // the other questions' evidence never went through that op: no divergence
    expect(o.questions.filter((x: { first_divergence: unknown }) => x.first_divergence)).toHaveLength(1);
  });

  it('shows the memory unit that differs at question time with the entries removed and added', async () => {
    const o = JSON.parse((await run('compare', F0, F1, '--json')).stdout);
    // Independently: the memory-store version each question read, as dicts.
    const storeAt = (file: string) => {
      const r = readRaw(file);
      const answer = r.ops.filter((x) => x.op_name === 'question-answering').at(-1)!;
      const versions = r.doc.data.nodes.filter(
        (n) => n.name === 'memory-store' && n.created_at <= answer.created_at,
      );
      return parseValue(versions.sort((x, y) => x.version - y.version).at(-1)!.value) as Record<
        string,
        string
      >;
    };
    const sa = storeAt(F0);
    const sb = storeAt(F1);
    const entries = (d: Record<string, string>) => Object.entries(d).map(([k, v]) => `${k}: ${v}`);
    const removed = entries(sa).filter((e) => !entries(sb).includes(e));
    const added = entries(sb).filter((e) => !entries(sa).includes(e));
    expect(removed.length + added.length).toBeGreaterThan(0);
    expect(o.memory.changed).toEqual([expect.objectContaining({ unit: 'memory-store', removed, added })]);
  });

  it('bad input: one line, exit 1; usage: exit 2', async () => {
    expect((await run('compare', F0)).code).toBe(2);
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{"graph_id": ');
    const r = await run('compare', F0, bad, '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:1:`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await run('compare', F0, F1, '--question', 'query:nope@1')).code).toBe(1);
  });
});

describe('memtrace compare explains each first divergence (names, what differs, a diff)', () => {
  /** Steps from the raw file: ops sorted by created_at, file order on ties. */
  const stepOf = (file: string) => {
    const ops = (JSON.parse(readFileSync(file, 'utf8')) as Raw).data.operations
      .map((o, i) => ({ o, i }))
      .sort((x, y) =>
        x.o.created_at < y.o.created_at ? -1 : x.o.created_at > y.o.created_at ? 1 : x.i - y.i,
      );
    return new Map(ops.map((x, k) => [x.o.op_id, k + 1]));
  };
  type Explained = {
    ops: Record<
      'a' | 'b',
      { op_id: string; name: string; step: number; session_id: string; comment: string | null }
    >;
    differences: {
      part: string;
      name: string;
      a: string | null;
      b: string | null;
      diff: { kind: string; text: string }[];
    }[];
  };

  it('names both ops, the parameter top_k (10 vs 1) and the retrieved memories that differ', async () => {
    const r = await run('compare', A, B, '--json');
    const qs = JSON.parse(r.stdout).questions as {
      first_divergence: (Explained & { op_a: string }) | null;
    }[];
    const ra = readRaw(A);
    const stepsA = stepOf(A);
    const diverged = qs.filter((q) => q.first_divergence);
    expect(diverged.length).toBeGreaterThan(0);
    for (const { first_divergence: d } of diverged) {
      const op = ra.ops.find((o) => o.op_id === d!.op_a)!;
      expect(d!.ops.a).toMatchObject({
        op_id: op.op_id,
        name: op.op_name,
        step: stepsA.get(op.op_id),
        session_id: op.session_id,
      });
      const top = d!.differences.find((x) => x.part === 'parameter' && x.name === 'top_k')!;
      expect([top.a, top.b]).toEqual(['10', '1']);
      const output = d!.differences.find((x) => x.part === 'output')!;
      // the diff's lines are the two outputs' lines: removed ones from A's text, added from B's
      for (const l of output.diff) {
        if (l.kind === 'del') expect(output.a).toContain(l.text);
        if (l.kind === 'add') expect(output.b).toContain(l.text);
      }
      expect(output.diff.some((l) => l.kind !== 'same')).toBe(true);
    }
  });

  it('names the prompt that differs when a prompt was rewritten and one extraction changed', async () => {
    // B2: A with its fact-extraction prompt rewritten and the first non-empty extraction's output changed.
    const doc = JSON.parse(readFileSync(A, 'utf8'));
    const nodes = doc.data.nodes as { full_node_id: string; name: string; value: string; category: string }[];
    nodes.find((n) => n.name === 'fact-extraction-system-prompt')!.value = "'Extract every fact.'";
    const raw = readRaw(A);
    // The extraction of a question's evidence message (so that question's path runs through it).
    const opened = openTrace(readFileSync(A, 'utf8'), { file: A });
    if (!opened.ok) throw new Error(A);
    const evidence = new Set(listCases(opened.graph, { includePassed: true }).flatMap((c) => c.evidenceIds));
    const first = raw.ops.find(
      (o) =>
        o.op_name === 'fact-extraction' &&
        o.inputs.some((v) => evidence.has(v)) &&
        o.outValues.some((v) => v.length > 4),
    )!;
    const out = nodes.find((n) => n.full_node_id === first.outputs[0])!;
    out.value = out.value.replace(/'\]$/, " and more']");
    doc.graph_id = `${doc.graph_id}-b2`;
    const B2 = join(tmp, 'mem0-reprompted.json');
    writeFileSync(B2, JSON.stringify(doc));
    const r = await run('compare', A, B2, '--json');
    expect(r.code).toBe(0);
    const d = (
      JSON.parse(r.stdout).questions as {
        first_divergence: (Explained & { setting_changed: boolean }) | null;
      }[]
    )
      .map((q) => q.first_divergence)
      .find((x) => x?.ops.a.op_id === first.op_id);
    expect(d).toBeTruthy();
    expect(d!.setting_changed).toBe(true);
    expect(d!.ops.a).toMatchObject({ name: 'fact-extraction', step: stepOf(A).get(first.op_id) });
    const prompt = d!.differences.find((x) => x.part === 'prompt')!;
    expect(prompt).toMatchObject({ name: 'fact-extraction-system-prompt', b: 'Extract every fact.' });
    const output = d!.differences.find((x) => x.part === 'output')!;
    expect(
      output.diff
        .filter((l) => l.kind === 'add')
        .map((l) => l.text)
        .join('\n'),
    ).toContain('and more');
  });
});
