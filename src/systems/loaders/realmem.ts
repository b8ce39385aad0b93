/**
 * RealMem (one persona per file): sessions in order; a query turn is asked before its own
 * session is added to memory (only earlier sessions may be used). The golden answer is the
 * assistant's reply after the query; the evidence is, per `memory_used` entry, the turn of
 * its source session whose text overlaps that memory most.
 */
import { overlap } from '../text.ts';
import type { Conversation, ConversationSession, Question, Turn } from '../types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function loadRealmem(data: unknown, options: { id?: string } = {}): Conversation {
  if (!isObj(data) || !Array.isArray(data.dialogues))
    throw new Error('not a RealMem file: expected {dialogues: [...]}');
  const meta = isObj(data._metadata) ? data._metadata : {};
  const person = typeof meta.person_name === 'string' ? meta.person_name : 'user';
  const id = options.id ?? person;
  const sessions: ConversationSession[] = [];
  const questions: Question[] = [];
  const byUuid = new Map<string, ConversationSession>();
  const pending: { q: Question; used: { uuid: string; content: string }[] }[] = [];
  for (const d of data.dialogues) {
    if (!isObj(d) || !Array.isArray(d.dialogue_turns)) continue;
    const uuid = typeof d.session_uuid === 'string' ? d.session_uuid : `s${sessions.length + 1}`;
    const session: ConversationSession = {
      index: sessions.length + 1,
      id: typeof d.session_identifier === 'string' ? d.session_identifier : uuid,
      dateTime: typeof d.current_time === 'string' ? d.current_time : '',
      turns: [],
    };
    const raw = d.dialogue_turns.filter(isObj);
    raw.forEach((t, i) => {
      const speaker = typeof t.speaker === 'string' ? t.speaker : '';
      const text = typeof t.content === 'string' ? t.content : '';
      const turn: Turn = {
        id: `${uuid}:${i}`,
        speaker: speaker === 'User' ? person : speaker,
        role: speaker === 'User' ? 'user' : 'assistant',
        text,
      };
      session.turns.push(turn);
      if (t.is_query === true) {
        const reply = raw[i + 1];
        const used = isObj(reply) && Array.isArray(reply.memory_used) ? reply.memory_used.filter(isObj) : [];
        const q: Question = {
          id: `${id}-${typeof t.query_id === 'string' ? t.query_id : `q${questions.length}`}`,
          question: text,
          answers: [isObj(reply) && typeof reply.content === 'string' ? reply.content : ''],
          evidence: [],
          category: typeof t.category_name === 'string' ? t.category_name : 'unknown',
          askedBefore: session.index,
          date: session.dateTime,
        };
        questions.push(q);
        pending.push({
          q,
          used: used.map((u) => ({
            uuid: typeof u.session_uuid === 'string' ? u.session_uuid : '',
            content: typeof u.content === 'string' ? u.content : '',
          })),
        });
      }
    });
    sessions.push(session);
    byUuid.set(uuid, session);
  }
  for (const { q, used } of pending) {
    const ev = new Set<string>();
    for (const u of used) {
      const s = byUuid.get(u.uuid);
      if (!s || s.index >= q.askedBefore) continue;
      let best: Turn | undefined;
      let bestScore = 0;
      for (const t of s.turns) {
        const o = overlap(t.text, u.content);
        if (o > bestScore) {
          bestScore = o;
          best = t;
        }
      }
      if (best) ev.add(best.id);
    }
    q.evidence = [...ev];
  }
  return {
    dataset: 'realmem',
    id,
    speakers: [person, 'Assistant'],
    sessions,
    questions: questions.filter((q) => q.evidence.length > 0),
  };
}
