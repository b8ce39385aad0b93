import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset, loadLocomo, loadLongMemEval, loadRealmem } from '../../src/systems/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data');
const read = (p: string) => JSON.parse(readFileSync(join(DATA, p), 'utf8'));

describe('LoCoMo loader', () => {
  const canonical = read('locomo/locomo-dev.json');
  it('reads the canonical layout: 7 conversations, 1,347 questions with adversarial ones', () => {
    const convs = loadLocomo(canonical, { includeAdversarial: true });
    expect(convs.map((c) => c.id)).toEqual([
      'conv-26',
      'conv-30',
      'conv-41',
      'conv-42',
      'conv-43',
      'conv-44',
      'conv-47',
    ]);
    expect(convs.reduce((n, c) => n + c.questions.length, 0)).toBe(1347);
    const scored = loadLocomo(canonical);
    expect(scored.every((c) => c.questions.every((q) => q.category !== 'adversarial'))).toBe(true);
    const c = convs[0];
    expect(c.speakers).toEqual(['Caroline', 'Melanie']);
    expect(c.sessions[0]).toMatchObject({ index: 1, dateTime: '1:56 pm on 8 May, 2023' });
    expect(c.sessions[0].turns[0]).toMatchObject({ id: 'D1:1', speaker: 'Caroline' });
    expect(c.questions[0]).toMatchObject({
      answers: ['7 May 2023'],
      evidence: ['D1:3'],
      category: 'temporal',
    });
    // Every session holds turns (date keys without a session are skipped).
    expect(c.sessions.every((s) => s.turns.length > 0)).toBe(true);
  });
  it('reads the flattened v2 layout into the same conversation', () => {
    const files = readdirSync(join(DATA, 'locomo/v2'));
    expect(files).toContain('26.json');
    const [flat] = loadDataset('locomo', read('locomo/v2/26.json'), 'locomo/v2/26.json');
    const [canon] = loadLocomo(canonical);
    expect(flat.id).toBe('conv-26');
    expect(flat.sessions.map((s) => s.turns.map((t) => t.id))).toEqual(
      canon.sessions.map((s) => s.turns.map((t) => t.id)),
    );
    expect(flat.questions.map((q) => q.question)).toEqual(canon.questions.map((q) => q.question));
  });
});

describe('RealMem loader', () => {
  it('reads a persona: sessions in order, queries asked before their session, evidence from earlier sessions', () => {
    const path = 'realmem/Kenta_Tanaka_dialogues_256k.json';
    const conv = loadRealmem(read(path), { id: 'Kenta_Tanaka' });
    expect(conv.sessions).toHaveLength(191);
    expect(conv.questions.length).toBeGreaterThan(100);
    const index = new Map(conv.sessions.flatMap((s) => s.turns.map((t) => [t.id, s.index] as const)));
    for (const q of conv.questions) {
      expect(q.evidence.length).toBeGreaterThan(0);
      for (const e of q.evidence) expect(index.get(e)).toBeLessThan(q.askedBefore);
    }
    expect(conv.questions[0].category).toBe('Dynamic Incremental');
  });
});

describe('LongMemEval loader (format only)', () => {
  it('reads instances written from the published field list', () => {
    const file = [
      {
        question_id: 'q1',
        question_type: 'single-session-user',
        question: 'What colour is my bike?',
        answer: 'red',
        question_date: '2023/05/30 (Tue) 10:00',
        haystack_session_ids: ['s-a', 's-b'],
        haystack_dates: ['2023/05/20 (Sat) 02:21', '2023/05/21 (Sun) 09:00'],
        haystack_sessions: [
          [
            { role: 'user', content: 'I bought a red bike.', has_answer: true },
            { role: 'assistant', content: 'Nice!' },
          ],
          [{ role: 'user', content: 'Weather is fine.' }],
        ],
        answer_session_ids: ['s-a'],
      },
      {
        question_id: 'q2_abs',
        question_type: 'knowledge-update',
        question: 'Where do I live?',
        answer: 'not mentioned',
        haystack_session_ids: ['s-c'],
        haystack_dates: ['2023/06/01 (Thu) 08:00'],
        haystack_sessions: [[{ role: 'user', content: 'Hi' }]],
        answer_session_ids: ['s-c'],
      },
    ];
    const convs = loadLongMemEval(file);
    expect(convs).toHaveLength(2);
    expect(convs[0].sessions.map((s) => [s.id, s.dateTime, s.turns.length])).toEqual([
      ['s-a', '2023/05/20 (Sat) 02:21', 2],
      ['s-b', '2023/05/21 (Sun) 09:00', 1],
    ]);
    expect(convs[0].questions[0]).toMatchObject({
      id: 'q1',
      answers: ['red'],
      evidence: ['s-a:0'],
      askedBefore: 3,
    });
    expect(convs[1].questions[0].category).toBe('knowledge-update (abstention)');
    expect(convs[1].questions[0].evidence).toEqual(['s-c:0']);
  });
});
