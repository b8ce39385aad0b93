/**
 * RealMem (one persona per file): sessions in order; a query turn is asked before its own
 * session is added to memory (only earlier sessions may be used). The golden answer is the
 * assistant's reply after the query; the evidence is, per `memory_used` entry, the turn of
 * its source session whose text overlaps that memory most. The session's `extracted_memory`
 * (LLM-written) is put on the turns it came from (`recorded`).
 */
import { z } from 'zod';
import { overlap } from '../text.ts';
import type { Conversation, ConversationSession, Question, Turn } from '../types.ts';
import { parseAs } from './format.ts';

const MemoryUsed = z.looseObject({ session_uuid: z.string(), content: z.string() });
const DialogueTurn = z.looseObject({
  speaker: z.string(),
  content: z.string(),
  is_query: z.boolean().optional(),
  query_id: z.string().nullish(),
  category_name: z.string().nullish(),
  memory_used: z.array(MemoryUsed).nullish(),
});
const RealmemFile = z.looseObject({
  _metadata: z.looseObject({ person_name: z.string().optional() }).optional(),
  dialogues: z
    .array(
      z.looseObject({
        session_uuid: z.string().optional(),
        session_identifier: z.string().optional(),
        current_time: z.string().optional(),
        dialogue_turns: z.array(DialogueTurn),
      }),
    )
    .min(1),
});

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

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

/** One persona's file (already JSON-parsed); a file of another shape fails naming the first mismatch. */
export function loadRealmem(data: unknown, options: { id?: string } = {}): Conversation {
  const file = parseAs(RealmemFile, data, 'RealMem');
  const person = file._metadata?.person_name ?? 'user';
  const id = options.id ?? person;
  const sessions: ConversationSession[] = [];
  const questions: Question[] = [];
  const byUuid = new Map<string, ConversationSession>();
  const pending: { q: Question; used: { uuid: string; content: string }[] }[] = [];
  for (const d of file.dialogues) {
    const uuid = d.session_uuid ?? `s${sessions.length + 1}`;
    const session: ConversationSession = {
      index: sessions.length + 1,
      id: d.session_identifier ?? uuid,
      dateTime: d.current_time ?? '',
      turns: [],
    };
    const raw = d.dialogue_turns;
    raw.forEach((t, i) => {
      const turn: Turn = {
        id: `${uuid}:${i}`,
        speaker: t.speaker === 'User' ? person : t.speaker,
        role: t.speaker === 'User' ? 'user' : 'assistant',
        text: t.content,
      };
      session.turns.push(turn);
      if (t.is_query === true) {
        const reply = raw[i + 1];
        const q: Question = {
          id: `${id}-${t.query_id ?? `q${questions.length}`}`,
          question: t.content,
          answers: [reply?.content ?? ''],
          evidence: [],
          category: t.category_name ?? 'unknown',
          askedBefore: session.index,
          date: session.dateTime,
        };
        questions.push(q);
        pending.push({
          q,
          used: (reply?.memory_used ?? []).map((u) => ({ uuid: u.session_uuid, content: u.content })),
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
