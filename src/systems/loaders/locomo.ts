/**
 * LoCoMo, both layouts: the canonical list of `{sample_id, conversation, qa, …}` and the
 * flattened per-conversation object of the public zip (`speaker_a`, `session_N`, `qa`, …
 * at top level; its id comes from the file name). Date keys without a session are skipped.
 * The LLM-written texts of the data set ride along: each turn's observations (`recorded`)
 * and each session's summary.
 */
import { z } from 'zod';
import { maxOf } from '../../core/arrays.ts';
import type { Conversation, ConversationSession, Question, Turn } from '../types.ts';
import { parseAs } from './format.ts';

export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface LocomoOptions {
  /** Id for a flattened file (e.g. from its name: `26.json` → `conv-26`). */
  id?: string;
  /** Keep adversarial (category 5) questions; off by default, as in Mem0's and EverMemOS's evaluations. */
  includeAdversarial?: boolean;
}

const LocomoTurn = z.looseObject({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const Qa = z.looseObject({
  question: z.string(),
  answer: z.union([z.string(), z.number()]).nullish(),
  adversarial_answer: z.union([z.string(), z.number()]).nullish(),
  evidence: z.array(z.string()).optional(),
  category: z.number().optional(),
});

const SESSION_KEY = /^session_(\d+)$/;

/** The speakers and `session_N` turn lists (checked key by key: their number varies). */
const LocomoConversation = z
  .looseObject({ speaker_a: z.string(), speaker_b: z.string() })
  .superRefine((conv, ctx) => {
    const keys = Object.keys(conv).filter((k) => SESSION_KEY.test(k));
    if (keys.length === 0)
      ctx.addIssue({ code: 'custom', message: 'expected session_1, session_2, … turn lists' });
    for (const k of keys) {
      const r = z.array(LocomoTurn).safeParse(conv[k]);
      if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, path: [k, ...i.path] } as never);
    }
  });
type LocomoConversation = z.infer<typeof LocomoConversation>;

const Sample = z.looseObject({
  sample_id: z.string().optional(),
  conversation: LocomoConversation,
  qa: z.array(Qa),
});
const Samples = z.array(Sample).min(1);
const Flattened = z.intersection(
  LocomoConversation,
  z.looseObject({ sample_id: z.string().optional(), qa: z.array(Qa) }),
);

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

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
      const last = session.turns[maxOf(sources.map((id) => position.get(id) ?? 0))];
      last.recorded = [...(last.recorded ?? []), memory];
    }
  }
}

function sessionsOf(
  conv: LocomoConversation,
  rec: { observation: Obj; summary: Obj },
): { sessions: ConversationSession[]; speakers: string[] } {
  const speakers = [conv.speaker_a, conv.speaker_b];
  const numbers = Object.keys(conv)
    .map((k) => SESSION_KEY.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const sessions: ConversationSession[] = [];
  for (const n of numbers) {
    const raw = conv[`session_${n}`] as z.infer<typeof LocomoTurn>[];
    if (raw.length === 0) continue;
    const turns: Turn[] = raw.map((t) => ({
      id: t.dia_id,
      speaker: t.speaker,
      role: t.speaker === speakers[0] ? 'user' : 'assistant',
      text: t.text + (t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ''),
    }));
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

function questionsOf(
  id: string,
  qa: z.infer<typeof Qa>[],
  after: number,
  options: LocomoOptions,
): Question[] {
  const out: Question[] = [];
  qa.forEach((q, i) => {
    const cat = q.category ?? 0;
    if (cat === 5 && !options.includeAdversarial) return;
    const answer = q.answer ?? q.adversarial_answer;
    if (answer === undefined || answer === null) return;
    out.push({
      id: `${id}-qa-${i}`,
      question: q.question,
      answers: [String(answer)],
      evidence: (q.evidence ?? []).flatMap((e) => e.split(/[;,]\s*/)).map((e) => e.trim()),
      category: LOCOMO_CATEGORIES[cat] ?? String(cat),
      askedBefore: after,
    });
  });
  return out;
}

function one(
  id: string,
  sample: Obj,
  conv: LocomoConversation,
  qa: z.infer<typeof Qa>[],
  options: LocomoOptions,
): Conversation {
  const { sessions, speakers } = sessionsOf(conv, recordedSource(sample));
  return {
    dataset: 'locomo',
    id,
    speakers,
    sessions,
    questions: questionsOf(id, qa, sessions.length + 1, options),
  };
}

/** Parses either layout (already JSON-parsed); a file of another shape fails naming the first mismatch. */
export function loadLocomo(data: unknown, options: LocomoOptions = {}): Conversation[] {
  // The layout is chosen by shape first, so a mismatch is reported inside it (not as "no layout fits").
  if (Array.isArray(data))
    return parseAs(Samples, data, 'LoCoMo').map((s, i) =>
      one(s.sample_id ?? `conv-${i}`, s, s.conversation, s.qa, options),
    );
  if (typeof data === 'object' && data !== null && 'conversation' in data) {
    const s = parseAs(Sample, data, 'LoCoMo');
    return [one(s.sample_id ?? options.id ?? 'conv', s, s.conversation, s.qa, options)];
  }
  const f = parseAs(Flattened, data, 'LoCoMo');
  return [one(f.sample_id ?? options.id ?? 'conv', f, f, f.qa, options)];
}

/** `…/v2/26.json` → `conv-26`. */
export function locomoIdFromPath(path: string): string | undefined {
  const m = /(\d+)\.json$/i.exec(path);
  return m ? `conv-${m[1]}` : undefined;
}
