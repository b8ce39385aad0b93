import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import type { TraceDocument } from '../../src/core/trace/index.ts';
import { Tracer } from '../../src/sdk/index.ts';
import {
  type Conversation,
  counterfactualLabel,
  createSystem,
  ERROR_TYPE_OF,
  evidenceOf,
  FAULT_KINDS,
  faultyCandidates,
  generateBenchmark,
  injectFault,
  loadLocomo,
  quietTracer,
  runSystem,
} from '../../src/systems/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data');
const conv26 = loadLocomo(JSON.parse(readFileSync(join(DATA, 'locomo/locomo-dev.json'), 'utf8')))[0];
const small: Conversation = (() => {
  const sessions = conv26.sessions.slice(0, 4);
  const turns = new Set(sessions.flatMap((s) => s.turns.map((t) => t.id)));
  return {
    ...conv26,
    sessions,
    questions: conv26.questions.filter((q) => q.evidence.every((e) => turns.has(e))),
  };
})();

describe('fault injection', () => {
  it('mem0: each of the five faults breaks a correct answer and labels the op that was injected', async () => {
    const ctx = { makeSystem: () => createSystem('mem0'), conversation: small };
    const base = await runSystem(createSystem('mem0'), small, { tracer: new Tracer() });
    const correct = base.answers
      .filter((a) => a.correct)
      .map((a) => small.questions.find((q) => q.id === a.questionId)!);
    expect(correct.length).toBeGreaterThan(0);
    const found = new Set<string>();
    for (const kind of FAULT_KINDS)
      for (const q of correct) {
        const t = new Tracer();
        const r = await injectFault(ctx, q, kind, t);
        if (!r) continue;
        t.annotate(r.annotation);
        const doc = t.document();
        const opened = openTrace(JSON.stringify(doc), { file: `${kind}.json` });
        expect(opened.issues).toEqual([]);
        if (!opened.ok) continue;
        const op = doc.data.operations.find((o) => o.op_id === r.annotation.final_op_id);
        expect(op).toBeDefined();
        expect(r.annotation).toMatchObject({
          final_error_type: ERROR_TYPE_OF[kind],
          label_source: 'fault-injection',
        });
        const [c] = listCases(opened.graph);
        expect(c.failed).toBe(true);
        expect(c.label?.opId).toBe(op?.op_id);
        // The op type fits the fault.
        const expected = {
          extraction: 'extraction',
          update: 'update',
          deletion: 'deletion',
          retrieval: 'retrieval',
          response: 'generation',
        }[kind];
        expect(op?.category).toBe(expected);
        found.add(kind);
        break;
      }
    expect([...found].sort()).toEqual([...FAULT_KINDS].sort());
  });
});

describe('counterfactual repair', () => {
  it('labels a failure with the earliest faulty op whose repair rescues the answer', async () => {
    const ctx = { makeSystem: () => createSystem('rag'), conversation: small };
    const base = await runSystem(createSystem('rag'), small, { tracer: new Tracer() });
    let labelled = 0;
    for (const a of base.answers.filter((x) => !x.correct).slice(0, 6)) {
      const q = small.questions.find((x) => x.id === a.questionId)!;
      const label = await counterfactualLabel(ctx, q, base.events);
      if (!label) continue;
      labelled++;
      const evidence = evidenceOf(small, q);
      const candidates = faultyCandidates(base.events, q, evidence);
      // The label is one of the faulty ops…
      const at = candidates.findIndex((c) => c.opId === label.opId);
      expect(at).toBeGreaterThanOrEqual(0);
      // …candidates are in execution order…
      for (let i = 1; i < candidates.length; i++)
        expect(candidates[i].seq).toBeGreaterThan(candidates[i - 1].seq);
      // …repairing the label's op rescues the answer, and repairing any earlier faulty op does not.
      const repaired = async (key: string) =>
        (
          await runSystem(createSystem('rag'), small, {
            tracer: quietTracer(),
            answerOnly: [q.id],
            intervention: { questionId: q.id, evidence, repairFrom: key, answers: q.answers },
          })
        ).answers[0]?.correct === true;
      expect(await repaired(candidates[at].key)).toBe(true);
      for (const earlier of candidates.slice(0, at)) expect(await repaired(earlier.key)).toBe(false);
      expect([
        'ExtractionError',
        'UpdateError',
        'DeletionError',
        'RetrievalError',
        'ResponseError',
      ]).toContain(label.errorType);
    }
    expect(labelled).toBeGreaterThan(0);
  });

  it('generateBenchmark writes MemTraceBench files with all five types', async () => {
    const files = new Map<string, TraceDocument>();
    const summary = await generateBenchmark({
      system: 'long-context',
      dataset: 'locomo',
      conversations: [small],
      perType: 1,
      naturalPerConversation: 3,
      write: (rel, doc) => {
        files.set(rel, doc);
      },
    });
    expect(summary.injected).toEqual({ extraction: 1, update: 1, deletion: 1, retrieval: 1, response: 1 });
    expect([...files.keys()].every((f) => f.startsWith('long_context/'))).toBe(true);
    for (const doc of files.values()) {
      for (const a of doc.data.annotations ?? [])
        expect(Object.keys(a)).toEqual([
          'query_id',
          'query',
          'golden_answers',
          'prediction',
          'source_evidence_ids',
          'final_error_type',
          'final_op_id',
          'label_source',
        ]);
      expect(openTrace(JSON.stringify(doc), { file: 'x.json' }).issues).toEqual([]);
    }
  });
});
