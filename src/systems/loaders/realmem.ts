/**
 * RealMem (one persona per file): sessions in order; a query turn is asked before its own
 * session is added to memory (only earlier sessions may be used). The golden answer is the
 * assistant's reply after the query; the evidence is, per `memory_used` entry, the turn of
 * its source session whose text overlaps that memory most. The session's `extracted_memory`
 * (LLM-written) is put on the turns it came from (`recorded`).
 */
import { overlap } from '../text.ts';
import type { Conversation, ConversationSession, Question, Turn } from '../types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The turn an extracted memory came from: the turn whose text is its `source_content_snapshot`
 * (the one nearest `source_turn`, which the data set counts from 1 mostly, from 0 sometimes),
 * else the turn its snapshot overlaps most; -1 when it names none.
 */
function sourceTurnIndex(turns: Turn[], m: Obj): number {
  const snapshot = typeof m.source_content_snapshot === 'string' ? m.source_content_snapshot : '';
  const near = typeof m.source_turn === 'number' ? m.source_turn - 1 : 0;
  if (!snapshot.trim()) return -1;
  let best = -1;
  let bestScore = 0;
  turns.forEach((t, i) => {
    const score = t.text === snapshot ? 2 - Math.abs(i - near) / 1000 : overlap(t.text, snapshot);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return bestScore >= 0.5 ? best : -1;
}

function attachExtracted(session: ConversationSession, extracted: unknown) {
  if (!Array.isArray(extracted)) return;
  for (const m of extracted.filter(isObj)) {
    if (typeof m.content !== 'string' || !m.content.trim()) continue;
    const i = sourceTurnIndex(session.turns, m);
    const kind = typeof m.type === 'string' ? m.type : 'memory';
    if (i < 0) session.recorded = [...(session.recorded ?? []), { text: m.content, sources: [], kind }];
    else {
      const turn = session.turns[i];
      turn.recorded = [...(turn.recorded ?? []), { text: m.content, sources: [turn.id], kind }];
    }
  }
}

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
    attachExtracted(session, d.extracted_memory);
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
