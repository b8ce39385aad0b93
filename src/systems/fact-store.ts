/**
 * A fact store (Mem0-like, written for the recorded-memories benchmark). Per message: an
 * extraction op writes its facts (the data set's recorded LLM facts in the `recorded` mode);
 * each fact is compared with the same speaker's units by similarity (hashed bag-of-words
 * cosine): a near duplicate is skipped, a close fact rewrites the unit (merged when both
 * are short, replaced otherwise — the earlier information is then gone), anything else is a
 * new unit. A forgetting policy keeps at most `capacity` units per speaker and drops the one
 * written or reinforced longest ago. Questions: BM25 top-k over the units.
 * Each unit is its own variable chain `fact-N`; a forgotten unit's last value is None.
 */
import type { TracedVar } from '../sdk/tracer.ts';
import { Provenance, type RunEnv } from './env.ts';
import { LexicalIndex, VectorIndex } from './lexical.ts';
import {
  capturedAt,
  factsOp,
  injectUnitFaults,
  type MessageInput,
  type PartsUnit,
  partsStore,
  unitText,
} from './recorded.ts';
import { searchUnits } from './search.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import type { ConversationSession, Question, RecordedMemory, Turn } from './types.ts';

interface Unit extends PartsUnit {
  id: string;
  speaker: string;
  /** Write order of the last write or reinforcement (the forgetting policy drops the lowest). */
  touched: number;
  variable: TracedVar;
}

export interface FactStoreOptions {
  topK?: number;
  /** Units kept per speaker (default 40). */
  capacity?: number;
  /** Cosine at or above which a fact is a duplicate of a unit (default 0.8). */
  duplicate?: number;
  /** Cosine at or above which a fact rewrites a unit (default 0.45). */
  rewrite?: number;
  /** A rewrite keeps both texts while they fit this many characters (default 220). */
  mergeChars?: number;
}

export class FactStore extends MemorySystem {
  readonly name = 'fact-store' as const;
  private readonly units = new Map<string, Unit>();
  private readonly bm25 = new LexicalIndex<string>();
  private readonly vectors = new VectorIndex<string>();
  private readonly prov = new Provenance();
  private readonly o: Required<FactStoreOptions>;
  private nextId = 1;
  private clock = 0;

  constructor(o: FactStoreOptions = {}) {
    super();
    this.o = { topK: 10, capacity: 40, duplicate: 0.8, rewrite: 0.45, mergeChars: 220, ...o };
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const at = capturedAt(env, session);
    const written: RecordedMemory[] = [];
    for (const turn of session.turns) {
      const captured = session.turns.filter((t) => at.get(t.id) === turn.id);
      this.addMessage(env, { turn, session, captured, written });
    }
  }

  private setUnit(env: RunEnv, u: Unit): string[] {
    this.units.set(u.id, u);
    this.bm25.set(u.id, unitText(u));
    this.vectors.set(u.id, unitText(u));
    return this.prov.set(u.id, env.kept(u.parts, u.sources));
  }

  private addMessage(env: RunEnv, m: MessageInput) {
    const { memories, factsVar } = factsOp(env, m, {
      name: 'extract-facts',
      category: 'extraction',
      comment: 'Write the facts worth remembering from the new message.',
      output: { category: 'facts', comment: 'Facts written from the message.' },
    });
    for (const x of memories) this.write(env, x, m.turn, m.session.dateTime, factsVar);
    this.forget(env, m.turn.speaker);
  }

  /** The closest unit of the same speaker and its cosine. */
  private closest(text: string, speaker: string): { unit?: Unit; score: number } {
    const [hit] = this.vectors.search(text, 1, (id) => this.units.get(id)?.speaker === speaker);
    return hit ? { unit: this.units.get(hit.key), score: hit.score } : { score: 0 };
  }

  private write(env: RunEnv, m: RecordedMemory, turn: Turn, date: string, factsVar: TracedVar) {
    const t = env.t;
    const part = { text: m.text, date };
    const { unit, score } = this.closest(m.text, turn.speaker);
    const ideal = env.ideal();
    const keptNew = env.kept([part], m.sources).filter((s) => env.isEvidence(s));
    let event: 'ADD' | 'UPDATE' | 'NONE' =
      unit && score >= this.o.duplicate ? 'NONE' : unit && score >= this.o.rewrite ? 'UPDATE' : 'ADD';
    if (event === 'NONE' && unit) {
      const merged = { parts: unit.parts, sources: [...unit.sources, ...m.sources] };
      // An ideal skip never leaves out information the unit does not hold.
      if (ideal && keptNew.some((e) => !env.kept(merged.parts, merged.sources).includes(e))) event = 'ADD';
      else {
        unit.sources = [...new Set(merged.sources)];
        unit.touched = ++this.clock;
        t.op(
          'store.skip-duplicate',
          { category: 'update', comment: `NONE: already held by ${unit.id}.`, metadata: { event: 'NONE' } },
          (op) => {
            op.input(factsVar);
            op.input(unit.variable);
            op.output({ event: 'NONE', memory_id: unit.id, text: m.text }, { category: 'write_decision' });
            this.setUnit(env, unit);
            env.log({
              opId: op.opId,
              kind: 'extraction',
              turns: keptNew,
              carried: keptNew.filter((e) => this.prov.carried(e)),
            });
          },
        );
        return;
      }
    }
    if (event === 'UPDATE' && unit) {
      const merge = unitText(unit).length + m.text.length <= this.o.mergeChars;
      const next: PartsUnit = {
        parts: merge ? [...unit.parts, part] : [part],
        sources: [...new Set([...unit.sources, ...m.sources])],
      };
      const before = env.kept(unit.parts, unit.sources);
      const after = new Set(env.kept(next.parts, next.sources));
      // An ideal rewrite never drops evidence the unit held: the fact becomes a unit of its own.
      if (ideal && before.some((e) => env.isEvidence(e) && !after.has(e))) event = 'ADD';
      else {
        const old = unitText(unit);
        unit.parts = next.parts;
        unit.sources = next.sources;
        unit.touched = ++this.clock;
        unit.variable = t.mutate(unit.variable, unitText(unit), {
          name: 'store.rewrite',
          category: 'update',
          comment: `${merge ? 'Merge' : 'Replace'} ${unit.id} with a closer fact.`,
          inputs: [factsVar],
          metadata: { event: 'UPDATE', memory_id: unit.id, old_memory: old },
        });
        env.log({ opId: t.lastOpId ?? '', kind: 'update', lost: this.setUnit(env, unit) });
        return;
      }
    }
    const id = `fact-${this.nextId++}`;
    t.op('store.add', { category: 'update', comment: `ADD ${id}`, metadata: { event: 'ADD' } }, (op) => {
      op.input(factsVar);
      const variable = op.output(m.text, {
        name: id,
        category: 'memory_entry',
        comment: 'A fact in the store.',
        metadata: { date, speaker: turn.speaker },
      });
      this.setUnit(env, {
        id,
        speaker: turn.speaker,
        parts: [part],
        sources: [...m.sources],
        touched: ++this.clock,
        variable,
      });
      env.log({ opId: op.opId, kind: 'update', lost: [] });
    });
  }

  /** Forgetting: past `capacity` units of a speaker, the least recently touched goes. */
  private forget(env: RunEnv, speaker: string) {
    const mine = [...this.units.values()].filter((u) => u.speaker === speaker);
    if (mine.length <= this.o.capacity) return;
    mine.sort((a, b) => a.touched - b.touched);
    const holdsEvidence = (u: Unit) => [...this.prov.sources(u.id)].some((s) => env.isEvidence(s));
    // An ideal policy forgets the oldest unit holding none of the evidence (or none).
    const victim = env.ideal() ? mine.find((u) => !holdsEvidence(u)) : mine[0];
    if (!victim) return;
    this.remove(
      env,
      victim,
      'store.forget',
      `Forget ${victim.id}: over ${this.o.capacity} facts of ${speaker}.`,
    );
  }

  private remove(env: RunEnv, u: Unit, name: string, comment: string) {
    u.variable = env.t.mutate(u.variable, null, {
      name,
      category: 'deletion',
      comment,
      metadata: { event: 'DELETE', memory_id: u.id },
    });
    this.units.delete(u.id);
    this.bm25.remove(u.id);
    this.vectors.remove(u.id);
    env.log({ opId: env.t.lastOpId ?? '', kind: 'deletion', lost: this.prov.remove(u.id) });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    injectUnitFaults(env, kind, env.faultUnits(this.prov.unitsCarrying(env.evidence)), (id) => {
      const u = this.units.get(id);
      if (!u) return false;
      if (kind === 'deletion') this.remove(env, u, 'store.forget', `Forget ${u.id}.`);
      else {
        const old = unitText(u);
        u.parts = [{ text: `${u.speaker} mentioned something in passing.`, date: u.parts[0]?.date ?? '' }];
        u.variable = env.t.mutate(u.variable, unitText(u), {
          name: 'store.rewrite',
          category: 'update',
          comment: `Replace ${u.id} with a closer fact.`,
          metadata: { event: 'UPDATE', memory_id: u.id, old_memory: old },
        });
        env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost: this.setUnit(env, u) });
      }
      return true;
    });
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    return searchUnits(env, q, queryVar, partsStore(this.units, this.bm25, this.prov, this.o.topK), {
      name: 'store.search',
      noun: 'facts',
      category: 'retrieved_facts',
    });
  }
}
