/**
 * LongMemEval instances (format only, from the published field list): each instance is
 * one conversation — its haystack sessions, then one question asked after all of them.
 * Evidence = turns marked `has_answer`, else every turn of the answer sessions.
 */
import { z } from 'zod';
import type { Conversation, Question, Turn } from '../types.ts';
import { parseAs } from './format.ts';

const Instance = z.looseObject({
  question_id: z.string(),
  question_type: z.string().optional(),
  question: z.string(),
  answer: z.union([z.string(), z.number()]),
  question_date: z.string().optional(),
  haystack_session_ids: z.array(z.union([z.string(), z.number()])).optional(),
  haystack_dates: z.array(z.string()).optional(),
  haystack_sessions: z.array(
    z.array(
      z.looseObject({
        role: z.enum(['user', 'assistant']),
        content: z.string(),
        has_answer: z.boolean().optional(),
      }),
    ),
  ),
  answer_session_ids: z.array(z.union([z.string(), z.number()])).optional(),
});

/** A list of instances or one instance (already JSON-parsed); another shape fails naming the first mismatch. */
export function loadLongMemEval(data: unknown): Conversation[] {
  const list = Array.isArray(data)
    ? parseAs(z.array(Instance).min(1), data, 'LongMemEval')
    : [parseAs(Instance, data, 'LongMemEval')];
  return list.map((inst) => {
    const qid = inst.question_id;
    const ids = (inst.haystack_session_ids ?? []).map(String);
    const dates = inst.haystack_dates ?? [];
    const answerSessions = new Set((inst.answer_session_ids ?? []).map(String));
    const marked: string[] = [];
    const inAnswerSessions: string[] = [];
    const sessions = inst.haystack_sessions.map((s, i) => {
      const sid = ids[i] ?? `session_${i + 1}`;
      const turns: Turn[] = s.map((t, j) => {
        const turn: Turn = {
          id: `${sid}:${j}`,
          speaker: t.role === 'user' ? 'User' : 'Assistant',
          role: t.role,
          text: t.content,
        };
        if (t.has_answer === true) marked.push(turn.id);
        if (answerSessions.has(sid)) inAnswerSessions.push(turn.id);
        return turn;
      });
      return { index: i + 1, id: sid, dateTime: dates[i] ?? '', turns };
    });
    const type = inst.question_type ?? 'unknown';
    const question: Question = {
      id: qid,
      question: inst.question,
      answers: [String(inst.answer)],
      evidence: marked.length ? marked : inAnswerSessions,
      category: qid.endsWith('_abs') ? `${type} (abstention)` : type,
      askedBefore: sessions.length + 1,
      ...(inst.question_date !== undefined ? { date: inst.question_date } : {}),
    };
    return {
      dataset: 'longmemeval',
      id: qid,
      speakers: ['User', 'Assistant'],
      sessions,
      questions: [question],
    };
  });
}
