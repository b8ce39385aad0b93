import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import type { TraceDocument } from '../../src/core/trace/index.ts';
import { seededIds, steppingClock, Tracer } from '../../src/sdk/index.ts';
import {
  type Conversation,
  createSystem,
  llmJudge,
  loadLocomo,
  loadRealmem,
  offlineJudge,
  runSystem,
  SYSTEM_NAMES,
  type SystemLLM,
  tokenF1,
} from '../../src/systems/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data');
const read = (p: string) => JSON.parse(readFileSync(join(DATA, p), 'utf8'));
const REAL = JSON.parse(
  readFileSync(join(DATA, 'smartcomment/conv-26-fault-0.json'), 'utf8'),
) as TraceDocument;
const keys = (o: object) => Object.keys(o).join(',');

const locomo = loadLocomo(read('locomo/locomo-dev.json'))[0];
/** conv-26, first 3 sessions, the questions whose evidence lies in them. */
const small: Conversation = (() => {
  const turns = new Set(locomo.sessions.slice(0, 3).flatMap((s) => s.turns.map((t) => t.id)));
  return {
    ...locomo,
    sessions: locomo.sessions.slice(0, 3),
    questions: locomo.questions.filter((q) => q.evidence.every((e) => turns.has(e))).slice(0, 12),
  };
})();

function tracer(system: string) {
  return new Tracer({
    clock: steppingClock(Date.UTC(2026, 0, 1), 1),
    ids: seededIds(1),
    metadata: { system },
    filename: 'systems.ts',
  });
}

describe('offline runs of the four systems', () => {
  for (const name of SYSTEM_NAMES)
    it(`${name}: LoCoMo conv-26 (3 sessions) → a graph that loads without warnings`, async () => {
      const t = tracer(name);
      const progress: string[] = [];
      const r = await runSystem(createSystem(name), small, {
        tracer: t,
        onProgress: (done, total, label) => progress.push(`${done}/${total} ${label}`),
      });
      expect(r.answers).toHaveLength(small.questions.length);
      expect(r.llmCalls).toBe(0);
      expect(progress.at(-1)).toMatch(/^15\/15 /);
      const doc = t.document();
      const text = JSON.stringify(doc, null, 2);
      const opened = openTrace(text, { file: `${name}.json` });
      expect(opened.issues).toEqual([]);
      if (!opened.ok) return;
      // Field sets and key order of the toolkit's own files.
      for (const list of ['nodes', 'edges', 'operations', 'sessions'] as const)
        for (const rec of doc.data[list]) expect(keys(rec)).toBe(keys(REAL.data[list][0]));
      // Conventions the paper's tools rely on.
      const cases = listCases(opened.graph, { includePassed: true });
      expect(cases).toHaveLength(small.questions.length);
      expect(cases.filter((c) => c.failed).length).toBe(r.answers.filter((a) => !a.correct).length);
      expect(cases[0].evidenceIds.every((id) => id.startsWith('conv-26:D'))).toBe(true);
      expect(doc.data.nodes.some((n) => n.category === 'message')).toBe(true);
      expect(
        doc.data.nodes.some((n) => n.category === 'prompt' && n.name === 'question-answering-prompt'),
      ).toBe(true);
      expect(doc.data.nodes.some((n) => n.category === 'sentinel')).toBe(false);
    });

  it('RealMem: questions are answered before their session is added', async () => {
    const conv = loadRealmem(read('realmem/Pak_Budi_dialogues_256k.json'), { id: 'Pak_Budi' });
    const t = tracer('mem0');
    const asked = conv.questions.filter((q) => q.askedBefore <= 7);
    const r = await runSystem(createSystem('mem0'), conv, {
      tracer: t,
      maxSessions: 6,
      questionIds: asked.map((q) => q.id),
    });
    expect(r.answers.map((a) => a.questionId)).toEqual(asked.map((q) => q.id));
    const opened = openTrace(JSON.stringify(t.document()), { file: 'realmem.json' });
    expect(opened.issues).toEqual([]);
    const sessions = t.document().data.sessions.map((s) => s.session_id);
    // Search sessions sit between construction sessions.
    expect(sessions.some((s) => /-search-\d+$/.test(s))).toBe(true);
  });
});

describe('judges', () => {
  it('offline judge: normalised containment or token F1 ≥ 0.5', () => {
    expect(offlineJudge('She moved from Sweden four years ago.', ['Sweden']).correct).toBe(true);
    expect(offlineJudge('7 May 2023', ['7 May 2023']).correct).toBe(true);
    expect(offlineJudge("I don't know.", ['Sweden']).correct).toBe(false);
    expect(offlineJudge('the week before 9 June 2023', ['The week before 9 June 2023']).correct).toBe(true);
  });
  // A RealMem-style golden answer: the assistant's whole reply (long free text).
  const longGold =
    "That's wonderful to hear the podcasts are helping during your commute! Based on our study plan, " +
    'the next step would be to incorporate the digital flashcards during your lunch break. This is a ' +
    'quick 5-minute session to reinforce the vocabulary and grape varietals. Have you had a chance to ' +
    'open the flashcard application yet, or would you like a reminder of the recommendation?';
  const question =
    'I started the podcasts during my commute. What should be the next step in the study plan?';
  it('offline judge: a long golden answer supports a prediction that adds its facts', () => {
    // F1 against a 60-word reply cannot reach 0.5 for a one-sentence answer: rule 3 decides.
    const prediction = 'Use digital flashcards for a quick 5-minute session at lunch break.';
    expect(tokenF1(prediction, longGold)).toBeLessThan(0.5);
    expect(offlineJudge(prediction, [longGold], question).correct).toBe(true);
  });
  it('offline judge: a long golden answer does not support echoes, abstentions or other facts', () => {
    // Every added word of the echo is a question word: nothing is supported.
    expect(offlineJudge('The next step in the study plan.', [longGold], question).correct).toBe(false);
    expect(offlineJudge("I don't know.", [longGold], question).correct).toBe(false);
    expect(
      offlineJudge('Book a ryokan in northern Higashiyama for the Kyoto trip in May.', [longGold], question)
        .correct,
    ).toBe(false);
    // Without the question the echo's own words would count: the question is what rules it out.
    expect(offlineJudge('The next step in the study plan commute podcasts.', [longGold]).correct).toBe(true);
    expect(
      offlineJudge('The next step in the study plan commute podcasts.', [longGold], question).correct,
    ).toBe(false);
  });
  it('LLM judge parses CORRECT/WRONG', async () => {
    const llm: SystemLLM = { model: 'scripted', complete: async () => ({ text: '{"label": "WRONG"}' }) };
    expect((await llmJudge(llm, 'q', ['a'], 'b')).correct).toBe(false);
  });
});

describe('with a model', () => {
  it('Mem0 calls the model through the prompt registry and traces the prompts', async () => {
    const seen: string[] = [];
    const llm: SystemLLM = {
      model: 'scripted-test',
      async complete({ messages }) {
        const all = messages.map((m) => m.content).join('\n');
        seen.push(all);
        if (all.includes('Personal Information Organizer'))
          return { text: '{"facts": ["Caroline went to a support group"]}' };
        if (all.includes('smart memory manager'))
          return {
            text: '{"memory": [{"id": "new", "text": "Caroline went to a support group", "event": "ADD"}]}',
          };
        if (all.includes('Gold answer')) return { text: '{"label": "CORRECT"}' };
        return { text: 'A support group' };
      },
    };
    const conv: Conversation = {
      ...small,
      sessions: [{ ...small.sessions[0], turns: small.sessions[0].turns.slice(0, 3) }],
      questions: small.questions.slice(0, 1),
    };
    const t = tracer('mem0');
    const r = await runSystem(createSystem('mem0'), conv, { tracer: t, llm });
    expect(r.answers[0]).toMatchObject({ prediction: 'A support group', correct: true });
    expect(r.llmCalls).toBe(3 * 2 + 1 + 1); // extraction + decision per message, the answer, the judge
    const doc = t.document();
    const prompts = doc.data.nodes.filter((n) => n.category === 'prompt').map((n) => n.name);
    expect(prompts).toEqual(
      expect.arrayContaining([
        'fact-extraction-system-prompt',
        'memory-update-decision-prompt',
        'question-answering-prompt',
      ]),
    );
    expect(doc.data.operations.find((o) => o.op_name === 'fact-extraction')?.metadata).toEqual({
      llm_model: 'scripted-test',
    });
    expect(openTrace(JSON.stringify(doc), { file: 'x.json' }).issues).toEqual([]);
  });
});
