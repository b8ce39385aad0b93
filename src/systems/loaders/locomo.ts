/**
 * LoCoMo, both layouts: the canonical list of `{sample_id, conversation, qa, …}` and the
 * flattened per-conversation object of the public zip (`speaker_a`, `session_N`, `qa`, …
 * at top level; its id comes from the file name). Date keys without a session are skipped.
 * The LLM-written texts of the data set ride along: each turn's observations (`recorded`)
 * and each session's summary.
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

/** Where a sample keeps its LLM-written texts: `observation` / `session_summary` (canonical) or top-level keys (v2). */
function recordedSource(sample: Obj): { observation: Obj; summary: Obj } {
  return {
    observation: isObj(sample.observation) ? sample.observation : sample,
    summary: isObj(sample.session_summary) ? sample.session_summary : sample,
  };
}

/** A `dia_id` field of an observation: "D1:3", "D1:3, D1:5" or ["D1:3", "D1:5"]. */
function diaIds(v: unknown): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.flatMap((x) => (typeof x === 'string' ? x.split(/[;,]\s*/) : [])).map((x) => x.trim());
}

/**
 * Puts session `n`'s observations on the turns they came from (a fact from several turns on
 * the last of them, when all its sources have been said) and its summary on the session.
 */
function attachRecorded(session: ConversationSession, n: number, rec: { observation: Obj; summary: Obj }) {
  const summary = rec.summary[`session_${n}_summary`];
  if (typeof summary === 'string' && summary.trim()) session.summary = summary;
  const obs = rec.observation[`session_${n}_observation`];
  if (!isObj(obs)) return;
  const position = new Map(session.turns.map((t, i) => [t.id, i]));
  for (const facts of Object.values(obs)) {
    if (!Array.isArray(facts)) continue;
    for (const f of facts) {
      if (!Array.isArray(f) || typeof f[0] !== 'string' || !f[0].trim()) continue;
      const sources = diaIds(f[1]).filter((id) => position.has(id));
      const memory = { text: f[0], sources, kind: 'observation' };
      if (sources.length === 0) {
        session.recorded = [...(session.recorded ?? []), memory];
        continue;
      }
      const last = session.turns[Math.max(...sources.map((id) => position.get(id) ?? 0))];
      last.recorded = [...(last.recorded ?? []), memory];
    }
  }
}

function sessionsOf(
  conv: Obj,
  rec: { observation: Obj; summary: Obj },
): {
  sessions: ConversationSession[];
  speakers: string[];
} {
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
    const session = { index: n, id: `session_${n}`, dateTime: typeof date === 'string' ? date : '', turns };
    attachRecorded(session, n, rec);
    sessions.push(session);
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

function one(id: string, sample: Obj, conv: Obj, qa: unknown, options: LocomoOptions): Conversation {
  const { sessions, speakers } = sessionsOf(conv, recordedSource(sample));
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
      return one(id, s, isObj(s.conversation) ? s.conversation : {}, s.qa, options);
    });
  if (isObj(data)) {
    if (isObj(data.conversation))
      return [
        one(
          typeof data.sample_id === 'string' ? data.sample_id : (options.id ?? 'conv'),
          data,
          data.conversation,
          data.qa,
          options,
        ),
      ];
    return [
      one(
        typeof data.sample_id === 'string' ? data.sample_id : (options.id ?? 'conv'),
        data,
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
