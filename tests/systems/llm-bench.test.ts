import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceText, parseValue, type TraceDocument, valueStrings } from '../../src/core/trace/index.ts';
import { Tracer } from '../../src/sdk/index.ts';
import {
  type Conversation,
  createShape,
  generateLlmBenchmark,
  type LabelContext,
  labelFailure,
  loadLocomo,
  loadRealmem,
  offlineJudge,
  rerun,
  runSystem,
  SHAPE_NAMES,
  type ShapeName,
} from '../../src/systems/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data');
const read = (p: string) => JSON.parse(readFileSync(join(DATA, p), 'utf8'));
const rawLocomo = read('locomo/locomo-dev.json') as {
  sample_id: string;
  observation: Record<string, Record<string, [string, string | string[]][]>>;
  session_summary: Record<string, string>;
}[];
const rawRealmem = read('realmem/Kenta_Tanaka_dialogues_256k.json') as {
  dialogues: {
    dialogue_turns: { content: string }[];
    extracted_memory: { content: string; source_content_snapshot: string }[];
  }[];
};

/** The first `n` sessions of a conversation and the questions whose evidence lies in them. */
function firstSessions(conv: Conversation, n: number): Conversation {
  const turns = new Set(conv.sessions.slice(0, n).flatMap((s) => s.turns.map((t) => t.id)));
  return {
    ...conv,
    sessions: conv.sessions.slice(0, n),
    questions: conv.questions.filter((q) => q.evidence.length && q.evidence.every((e) => turns.has(e))),
  };
}

const conv26 = loadLocomo(rawLocomo)[0];
const small = firstSessions(conv26, 6);

async function traced(shape: ShapeName, conv: Conversation): Promise<TraceDocument> {
  const t = new Tracer();
  await runSystem(createShape(shape), conv, { tracer: t, memories: 'recorded' });
  return t.document();
}

/** Every string held by the trace's variable values (inside lists and dicts too). */
function stringsOf(doc: TraceDocument): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const n of doc.data.nodes) walk(parseValue(typeof n.value === 'string' ? n.value : ''));
  return out;
}

describe('recorded memories replay', () => {
  it('the fact store and the vector store write the LoCoMo observations of the data file', async () => {
    const sample = rawLocomo.find((s) => s.sample_id === 'conv-26')!;
    const facts = [1, 2, 3].flatMap((n) =>
      Object.values(sample.observation[`session_${n}_observation`]).flatMap((list) => list.map((f) => f[0])),
    );
    expect(facts.length).toBeGreaterThan(10);
    for (const shape of ['fact-store', 'vector-store'] as const) {
      const strings = stringsOf(await traced(shape, firstSessions(conv26, 3)));
      for (const f of facts) expect(strings.has(f), `${shape}: ${f}`).toBe(true);
    }
  });

  it('the session-summary memory writes each LoCoMo session summary as a unit', async () => {
    const sample = rawLocomo.find((s) => s.sample_id === 'conv-26')!;
    const doc = await traced('session-summary', firstSessions(conv26, 3));
    for (const n of [1, 2, 3]) {
      const node = doc.data.nodes.find((x) => x.name === `summary-${n}`);
      expect(node && valueStrings(node.value as string)).toEqual([
        sample.session_summary[`session_${n}_summary`],
      ]);
    }
  });

  it('the fact store writes the RealMem extracted memories of the data file', async () => {
    const conv = firstSessions(loadRealmem(rawRealmem, { id: 'Kenta_Tanaka' }), 6);
    // Memories whose snapshot is word for word one of the session's turns name their turn for sure.
    const expected = rawRealmem.dialogues
      .slice(0, 6)
      .flatMap((d) =>
        d.extracted_memory.filter((m) =>
          d.dialogue_turns.some((t) => t.content === m.source_content_snapshot),
        ),
      )
      .map((m) => m.content);
    expect(expected.length).toBeGreaterThan(5);
    const strings = stringsOf(await traced('fact-store', conv));
    for (const m of expected) expect(strings.has(m), m).toBe(true);
  });
});

describe('memory shapes', () => {
  it('each shape writes a graph that loads without issues', async () => {
    for (const shape of SHAPE_NAMES) {
      const doc = await traced(shape, small);
      const r = parseTraceText(JSON.stringify(doc), { file: `${shape}.json` });
      expect(r.ok, shape).toBe(true);
      expect(r.issues, shape).toEqual([]);
    }
  });

  it('the vector store is not an input of retrieval: the search reads the query and the configuration only', async () => {
    const doc = await traced('vector-store', small);
    const search = doc.data.operations.filter((o) => o.op_name === 'vector-db.query');
    expect(search.length).toBe(small.questions.length);
    const notes = new Set(
      doc.data.nodes.filter((n) => n.name.startsWith('note-')).map((n) => n.full_node_id),
    );
    expect(notes.size).toBeGreaterThan(20);
    for (const op of search) {
      const sources = doc.data.edges.filter((e) => e.op_id === op.op_id).map((e) => e.source_full_node_id);
      expect(sources.some((s) => notes.has(s))).toBe(false);
    }
  });

  it('the summary memory consolidates older summaries into shorter digests and forgets old digests', async () => {
    const doc = await traced('session-summary', loadLocomo(rawLocomo)[2]); // conv-41: 32 sessions
    const consolidations = doc.data.operations.filter((o) => o.category === 'consolidation');
    expect(consolidations.length).toBeGreaterThan(3);
    const value = (name: string) => doc.data.nodes.find((n) => n.name === name)?.value as string;
    // A digest is shorter than the summaries it merged.
    const merged = [1, 2, 3].reduce((n, k) => n + value(`summary-${k}`).length, 0);
    expect(value('digest-1').length).toBeLessThan(merged / 2);
    expect(doc.data.operations.some((o) => o.category === 'deletion')).toBe(true);
  });
});

/** Op categories that can make each error (the shapes' own, read from their docs). */
const categories: Record<string, string[]> = {
  ExtractionError: ['extraction', 'summarization', 'update', 'fact-derivation', 'memory-write'],
  UpdateError: ['update', 'consolidation', 'memory-write'],
  DeletionError: ['deletion', 'memory-removal'],
  RetrievalError: ['retrieval', 'lookup', 'reranking'],
  ResponseError: ['generation'],
};

describe('labels by counterfactual repair', () => {
  it('repairing the labelled op saves the answer, repairing an earlier faulty op does not (re-checked)', async () => {
    let checked = 0;
    for (const shape of SHAPE_NAMES) {
      const t = new Tracer();
      const base = await runSystem(createShape(shape), small, { tracer: t, memories: 'recorded' });
      const doc = t.document();
      const ctx: LabelContext = {
        makeSystem: () => createShape(shape),
        conversation: small,
        memories: 'recorded',
        carrying: 'judge',
      };
      let perShape = 0;
      for (const a of base.answers.filter((x) => !x.correct)) {
        if (perShape >= 3) break;
        const q = small.questions.find((x) => x.id === a.questionId)!;
        const outcome = await labelFailure(ctx, q, base.events);
        if (!outcome.label) continue;
        perShape++;
        const judged = async (key?: string) => {
          const r = await rerun(ctx, q, key);
          return offlineJudge(r.answers[0].prediction, q.answers).correct;
        };
        expect(offlineJudge(a.prediction, q.answers).correct).toBe(false);
        expect(await judged()).toBe(false);
        expect(await judged(outcome.label.key)).toBe(true);
        for (const c of outcome.candidates) {
          if (c.key === outcome.label.key) break;
          expect(await judged(c.key), `${q.id}: earlier ${c.key}`).toBe(false);
        }
        // The labelled op is in the written graph, of a category that can make that error.
        const op = doc.data.operations.find((o) => o.op_id === outcome.label.opId);
        expect(categories[outcome.label.errorType]).toContain(op?.category);
        checked++;
      }
      expect(perShape, shape).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('an extraction label on the fact store: the recorded facts of the evidence miss the answer, the message has it', async () => {
    const ctx: LabelContext = {
      makeSystem: () => createShape('fact-store'),
      conversation: small,
      memories: 'recorded',
      carrying: 'judge',
    };
    const sample = rawLocomo.find((s) => s.sample_id === 'conv-26')!;
    const recorded = Object.entries(sample.observation).flatMap(([, bySpeaker]) =>
      Object.values(bySpeaker).flatMap((list) => list),
    );
    const base = await runSystem(createShape('fact-store'), small, {
      tracer: new Tracer(),
      memories: 'recorded',
    });
    let found = 0;
    for (const a of base.answers.filter((x) => !x.correct)) {
      const q = small.questions.find((x) => x.id === a.questionId)!;
      if (q.category === 'temporal' || q.evidence.length !== 1) continue; // no date reading needed
      const outcome = await labelFailure(ctx, q, base.events);
      if (outcome.label?.errorType !== 'ExtractionError') continue;
      const [e] = q.evidence;
      const facts = recorded.filter(([, id]) => (Array.isArray(id) ? id : id.split(/,\s*/)).includes(e));
      for (const [text] of facts) expect(offlineJudge(text, q.answers).correct).toBe(false);
      const turn = small.sessions.flatMap((s) => s.turns).find((t) => t.id === e)!;
      expect(offlineJudge(turn.text, q.answers).correct).toBe(true);
      found++;
    }
    expect(found).toBeGreaterThan(0);
  });

  it('generateLlmBenchmark writes annotated MemTraceBench graphs, counts drops by reason, marks the held-out part', async () => {
    const files = new Map<string, TraceDocument>();
    const conv30 = { ...firstSessions(loadLocomo(rawLocomo)[1], 4) };
    const summary = await generateLlmBenchmark({
      parts: [
        { shape: 'fact-store', dataset: 'locomo', conversations: [small, conv30] },
        { shape: 'vector-store', dataset: 'locomo', conversations: [small] },
      ],
      heldout: ['conv-30'],
      minPerType: 3,
      verify: true,
      write: (rel, doc) => {
        files.set(rel, doc);
      },
    });
    expect([...files.keys()].sort()).toEqual(summary.manifest.map((m) => m.file).sort());
    let annotations = 0;
    let injected = 0;
    for (const [file, doc] of files)
      for (const a of doc.data.annotations ?? []) {
        annotations++;
        const op = doc.data.operations.find((o) => o.op_id === a.final_op_id);
        expect(categories[a.final_error_type as string]).toContain(op?.category);
        expect(a.label_source).toBe(file.endsWith('-base.json') ? 'counterfactual' : 'fault-injection');
        if (a.label_source === 'fault-injection') injected++;
      }
    expect(annotations).toBe(summary.cases);
    // Short of 3 per type in so small a benchmark: faults were injected, each label verified.
    expect(injected).toBe(Object.values(summary.injected).reduce((n, k) => n + k, 0));
    expect(injected).toBeGreaterThan(0);
    expect(summary.verified).toBe(summary.cases);
    const types = Object.keys(summary.total);
    expect(types.reduce((n, t) => n + summary.total[t], 0)).toBe(summary.cases);
    const failed = Object.values(summary.byShape).reduce((n, b) => n + b.failed, 0);
    const dropped = Object.values(summary.drops).reduce((n, d) => n + d, 0);
    const natural = types.reduce((n, t) => n + summary.natural[t], 0);
    expect(natural + dropped).toBe(failed);
    expect(
      summary.manifest.filter((m) => m.part === 'heldout').every((m) => m.conversation === 'conv-30'),
    ).toBe(true);
    expect(summary.heldout.graphs).toBeGreaterThan(0);
  }, 240_000); // every label rechecked by rerun: minutes on a shared machine
});
