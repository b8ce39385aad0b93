/**
 * LoCoMo, both layouts: the canonical list of `{sample_id, conversation, qa, …}` and the
 * flattened per-conversation object of the public zip (`speaker_a`, `session_N`, `qa`, …
 * at top level; its id comes from the file name). Date keys without a session are skipped.
 */
import type { Conversation, ConversationSession, Question, Turn } from '../types.ts';

export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface LocomoOptions {
  /** Id for a flattened file (e.g. from its name: `26.json` → `conv-26`). */
  id?: string;
  /** Keep adversarial (category 5) questions; off by default, as in Mem0's and EverMemOS's evaluations. */
  includeAdversarial?: boolean;
}

function sessionsOf(conv: Obj): { sessions: ConversationSession[]; speakers: string[] } {
  const speakers = [conv.speaker_a, conv.speaker_b].filter((s): s is string => typeof s === 'string');
  const numbers = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const sessions: ConversationSession[] = [];
  for (const n of numbers) {
    const raw = conv[`session_${n}`];
    if (!Array.isArray(raw) || raw.length === 0) continue;
    const turns: Turn[] = [];
    for (const t of raw) {
      if (!isObj(t) || typeof t.dia_id !== 'string' || typeof t.text !== 'string') continue;
      const speaker = typeof t.speaker === 'string' ? t.speaker : '';
      const caption = typeof t.blip_caption === 'string' ? ` [shares a photo: ${t.blip_caption}]` : '';
      turns.push({
        id: t.dia_id,
        speaker,
        role: speaker === speakers[0] ? 'user' : 'assistant',
        text: t.text + caption,
      });
    }
    const date = conv[`session_${n}_date_time`];
    sessions.push({ index: n, id: `session_${n}`, dateTime: typeof date === 'string' ? date : '', turns });
  }
  sessions.forEach((s, i) => {
    s.index = i + 1;
  });
  return { sessions, speakers };
}

function questionsOf(id: string, qa: unknown, after: number, options: LocomoOptions): Question[] {
  if (!Array.isArray(qa)) return [];
  const out: Question[] = [];
  qa.forEach((q, i) => {
    if (!isObj(q) || typeof q.question !== 'string') return;
    const cat = typeof q.category === 'number' ? q.category : 0;
    if (cat === 5 && !options.includeAdversarial) return;
    const answer = q.answer ?? q.adversarial_answer;
    if (answer === undefined || answer === null) return;
    out.push({
      id: `${id}-qa-${i}`,
      question: q.question,
      answers: [String(answer)],
      evidence: Array.isArray(q.evidence)
        ? q.evidence.flatMap((e) => (typeof e === 'string' ? e.split(/[;,]\s*/) : [])).map((e) => e.trim())
        : [],
      category: LOCOMO_CATEGORIES[cat] ?? String(cat),
      askedBefore: after,
    });
  });
  return out;
}

function one(id: string, conv: Obj, qa: unknown, options: LocomoOptions): Conversation {
  const { sessions, speakers } = sessionsOf(conv);
  return {
    dataset: 'locomo',
    id,
    speakers,
    sessions,
    questions: questionsOf(id, qa, sessions.length + 1, options),
  };
}

/** Parses either layout (already JSON-parsed). */
export function loadLocomo(data: unknown, options: LocomoOptions = {}): Conversation[] {
  if (Array.isArray(data))
    return data.filter(isObj).map((s, i) => {
      const id = typeof s.sample_id === 'string' ? s.sample_id : `conv-${i}`;
      return one(id, isObj(s.conversation) ? s.conversation : {}, s.qa, options);
    });
  if (isObj(data)) {
    if (isObj(data.conversation))
      return [
        one(
          typeof data.sample_id === 'string' ? data.sample_id : (options.id ?? 'conv'),
          data.conversation,
          data.qa,
          options,
        ),
      ];
    return [
      one(
        typeof data.sample_id === 'string' ? data.sample_id : (options.id ?? 'conv'),
        data,
        data.qa,
        options,
      ),
    ];
  }
  throw new Error('not a LoCoMo file: expected a list of samples or one flattened conversation');
}

/** `…/v2/26.json` → `conv-26`. */
export function locomoIdFromPath(path: string): string | undefined {
  const m = /(\d+)\.json$/i.exec(path);
  return m ? `conv-${m[1]}` : undefined;
}
