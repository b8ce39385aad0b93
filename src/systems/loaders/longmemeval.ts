/**
 * LongMemEval instances (format only, from the published field list): each instance is
 * one conversation — its haystack sessions, then one question asked after all of them.
 * Evidence = turns marked `has_answer`, else every turn of the answer sessions.
 */
import type { Conversation, Question, Turn } from '../types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function loadLongMemEval(data: unknown): Conversation[] {
  const list = Array.isArray(data) ? data : [data];
  return list.filter(isObj).map((inst, n) => {
    const qid = typeof inst.question_id === 'string' ? inst.question_id : `lme-${n}`;
    const ids = Array.isArray(inst.haystack_session_ids) ? inst.haystack_session_ids.map(String) : [];
    const dates = Array.isArray(inst.haystack_dates) ? inst.haystack_dates.map(String) : [];
    const raw = Array.isArray(inst.haystack_sessions) ? inst.haystack_sessions : [];
    const answerSessions = new Set(
      Array.isArray(inst.answer_session_ids) ? inst.answer_session_ids.map(String) : [],
    );
    const marked: string[] = [];
    const inAnswerSessions: string[] = [];
    const sessions = raw.map((s, i) => {
      const sid = ids[i] ?? `session_${i + 1}`;
      const turns: Turn[] = (Array.isArray(s) ? s : []).filter(isObj).map((t, j) => {
        const role = t.role === 'assistant' ? 'assistant' : 'user';
        const turn: Turn = {
          id: `${sid}:${j}`,
          speaker: role === 'user' ? 'User' : 'Assistant',
          role,
          text: typeof t.content === 'string' ? t.content : '',
        };
        if (t.has_answer === true) marked.push(turn.id);
        if (answerSessions.has(sid)) inAnswerSessions.push(turn.id);
        return turn;
      });
      return { index: i + 1, id: sid, dateTime: dates[i] ?? '', turns };
    });
    const type = typeof inst.question_type === 'string' ? inst.question_type : 'unknown';
    const question: Question = {
      id: qid,
      question: typeof inst.question === 'string' ? inst.question : '',
      answers: [inst.answer === undefined || inst.answer === null ? '' : String(inst.answer)],
      evidence: marked.length ? marked : inAnswerSessions,
      category: qid.endsWith('_abs') ? `${type} (abstention)` : type,
      askedBefore: sessions.length + 1,
      ...(typeof inst.question_date === 'string' ? { date: inst.question_date } : {}),
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
