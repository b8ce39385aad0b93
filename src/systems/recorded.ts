/**
 * What the memory shapes of the recorded-memories benchmark share: the texts an extraction op
 * writes for a turn (the data set's recorded LLM memories in the `recorded` mode, the offline
 * extractive facts otherwise), which op must capture which turn, and memory units made of
 * dated parts with the turns they derive from.
 */

import { appendAll } from '../core/arrays.ts';
import type { TracedVar } from '../sdk/tracer.ts';
import type { MemoryPart } from './carrying.ts';
import type { FaultKind, Provenance, RunEnv } from './env.ts';
import type { Scored } from './lexical.ts';
import { extractFacts } from './offline.ts';
import type { UnitStore } from './search.ts';
import type { ConversationSession, RecordedMemory, Turn } from './types.ts';

/** The memories an extraction op writes for `turn`: the recorded ones (replay) or the offline facts. */
export function memoriesOf(env: RunEnv, turn: Turn): RecordedMemory[] {
  if (env.replay) return turn.recorded ?? [];
  return extractFacts(turn).map((text) => ({ text, sources: [turn.id], kind: 'offline' }));
}

/**
 * For each turn of a session, the turn whose extraction op must capture it: itself, unless a
 * memory written later in the session names it as a source (then the last such turn's op).
 */
export function capturedAt(env: RunEnv, session: ConversationSession): Map<string, string> {
  const at = new Map(session.turns.map((t) => [t.id, t.id]));
  for (const t of session.turns)
    for (const m of memoriesOf(env, t)) for (const s of m.sources) if (at.has(s)) at.set(s, t.id);
  return at;
}

/** The ideal extraction of a turn: its memories, plus its own words when they miss an evidence turn's information. */
export function idealMemories(
  env: RunEnv,
  memories: RecordedMemory[],
  turns: Turn[],
  date: string,
): RecordedMemory[] {
  const out = [...memories];
  for (const t of turns) {
    if (!env.isEvidence(t.id)) continue;
    const kept = out.some((m) => env.kept([{ text: m.text, date }], m.sources).includes(t.id));
    if (!kept) out.push({ text: `${t.speaker}: ${t.text}`, sources: [t.id], kind: 'message' });
  }
  return out;
}

/** The `extraction` event of the op that wrote a turn's memories: the turns it had to capture, and those the session's memories so far keep. */
export function logExtraction(
  env: RunEnv,
  opId: string,
  captured: Turn[],
  written: RecordedMemory[],
  date: string,
) {
  const kept = new Set(written.flatMap((m) => env.kept([{ text: m.text, date }], m.sources)));
  env.log({
    opId,
    kind: 'extraction',
    turns: captured.map((c) => c.id),
    carried: captured.map((c) => c.id).filter((id) => kept.has(id)),
  });
}

/** One message as a shape's extraction op reads it. */
export interface MessageInput {
  turn: Turn;
  session: ConversationSession;
  /** The turns this message's op must capture (`capturedAt`). */
  captured: Turn[];
  /** The memories the session's extraction ops wrote so far (this message's are appended). */
  written: RecordedMemory[];
}

/** What a message's extraction writes: its variable, its memories, and whether this op is the injected fault. */
export interface MessageMemories {
  msg: TracedVar;
  memories: RecordedMemory[];
  inject: boolean;
}

/**
 * The memories a message's extraction op writes (`memoriesOf`): an extraction fault on a
 * message that must capture evidence drops the evidence's memories, the ideal op restores
 * what they miss (`idealMemories`). Appended to `m.written`.
 */
export function messageMemories(env: RunEnv, m: MessageInput): MessageMemories {
  const msg = env.message(m.turn, m.session);
  let memories = memoriesOf(env, m.turn);
  const inject = env.injecting('extraction') && m.captured.some((c) => env.isEvidence(c.id));
  if (inject) memories = memories.filter((x) => !x.sources.some((s) => env.isEvidence(s)));
  if (env.ideal()) memories = idealMemories(env, memories, m.captured, m.session.dateTime);
  appendAll(m.written, memories);
  return { msg, memories, inject };
}

/** How a shape names its facts op and the facts it writes. */
export interface FactsOpNaming {
  name: string;
  category: string;
  comment: string;
  output: { category: string; comment: string };
}

/** A message's extraction as one op writing its memories' texts as a list (`messageMemories`). */
export function factsOp(
  env: RunEnv,
  m: MessageInput,
  naming: FactsOpNaming,
): { memories: RecordedMemory[]; factsVar: TracedVar } {
  const date = m.session.dateTime;
  const { msg, memories, inject } = messageMemories(env, m);
  const factsVar = env.t.op(
    naming.name,
    {
      category: naming.category,
      comment: naming.comment,
      metadata: { llm_model: env.replay ? 'recorded' : env.modelName },
    },
    (op) => {
      op.input(msg);
      op.input(env.prompt('fact-extraction-system-prompt'));
      const v = op.output(
        memories.map((x) => x.text),
        naming.output,
      );
      if (inject) env.faultOpId = op.opId;
      logExtraction(env, op.opId, m.captured, m.written, date);
      return v;
    },
  );
  return { memories, factsVar };
}

/** A memory unit: dated parts (merged facts have several) and every turn it derives from. */
export interface PartsUnit {
  parts: MemoryPart[];
  sources: string[];
}

/** The unit's text as stored (its parts' texts). */
export function unitText(u: PartsUnit): string {
  return u.parts.map((p) => p.text).join(' ');
}

/** The unit as a context line per part: `date | text` (the answer reads the date of each line). */
export function contextText(u: PartsUnit): string {
  return u.parts.map((p) => `${p.date} | ${p.text}`).join('\n');
}

/** A store of parts units for `searchUnits`: each unit shown as `contextText`, with the turns it carries. */
export function partsStore(
  units: Map<string, PartsUnit & { variable: TracedVar }>,
  index: { search(query: string, k: number): Scored<string>[] },
  prov: Provenance,
  topK: number,
): UnitStore {
  return {
    index,
    prov,
    topK,
    unit: (id) => {
      const u = units.get(id)!;
      return { item: { text: contextText(u), sources: [...prov.sources(id)] }, variable: u.variable };
    },
  };
}

/**
 * A store fault on the units carrying the evidence: `corrupt` rewrites or removes one (as one
 * op; false when it is gone); the first such op is the fault. Repaired, the fault op does its
 * job and changes nothing — its event is still logged, so later events keep their keys.
 */
export function injectUnitFaults(
  env: RunEnv,
  kind: Extract<FaultKind, 'update' | 'deletion'>,
  ids: string[],
  corrupt: (id: string) => boolean,
) {
  let first: string | null = null;
  for (const id of ids) {
    if (env.ideal()) {
      env.log({ opId: '', kind, lost: [] });
      continue;
    }
    if (corrupt(id)) first ??= env.t.lastOpId ?? null;
  }
  if (first) env.faultOpId = first;
}
