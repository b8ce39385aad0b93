/**
 * A per-user memory with duplicate facts and a reranker (written for the recorded-memories
 * benchmark; Mem0 as it runs on LoCoMo). One store per speaker; every fact written from a
 * message (the data set's recorded LLM facts in the `recorded` mode) goes into both stores, so
 * the same fact lives in two units. Each store decides per fact against its own closest unit
 * (hashed bag-of-words cosine):
 * - a fact that negates or revives the unit (exactly one of the two holds a negation or change
 *   cue: "not", "no longer", "stopped", …) with cosine ≥ `contradict` → DELETE the unit, ADD the fact;
 * - cosine ≥ `duplicate` → NOOP (the unit is kept and reinforced);
 * - cosine ≥ `revise` → UPDATE when the fact has more content words (it replaces the unit's
 *   text: the earlier wording is gone), else NOOP (the fact is dropped) — Mem0's "keep the fact
 *   with the most information";
 * - else ADD.
 * Each store keeps at most `capacity` units and expires the least recently written or
 * reinforced unit about the *other* speaker first (each store favours its owner), so the two
 * copies of a fact can diverge. Questions: each store's top `perStore` units by cosine, merged
 * (copies included) and reranked by a second score — BM25 of the question against the
 * candidates plus a recency bonus — to the top `topK`.
 */

import { maxOf, minOf } from '../core/arrays.ts';
import type { TracedVar } from '../sdk/tracer.ts';
import { type ContextItem, Provenance, type RunEnv } from './env.ts';
import { LexicalIndex, VectorIndex } from './lexical.ts';
import {
  capturedAt,
  contextText,
  type FactsOpNaming,
  factsOp,
  injectUnitFaults,
  type PartsUnit,
  unitText,
} from './recorded.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import { contentTokens } from './text.ts';
import type { ConversationSession, Question, RecordedMemory, Turn } from './types.ts';

interface Unit extends PartsUnit {
  id: string;
  /** The store (its speaker) the unit lives in. */
  owner: string;
  /** The speaker of the message the fact was written from. */
  speaker: string;
  /** Write order of the last write or reinforcement (expiry drops the lowest; the reranker favours the highest). */
  touched: number;
  variable: TracedVar;
}

interface UserStore {
  owner: string;
  units: Map<string, Unit>;
  vectors: VectorIndex<string>;
}

export interface PerUserStoreOptions {
  /** Units each store returns for a question (default 10). */
  perStore?: number;
  /** Units the reranker keeps (default 8). */
  topK?: number;
  /** Units kept per store (default 80). */
  capacity?: number;
  /** Cosine at or above which a fact duplicates a unit (default 0.8). */
  duplicate?: number;
  /** Cosine at or above which a fact revises (updates) a unit (default 0.4). */
  revise?: number;
  /** Cosine at or above which a contradicting fact deletes a unit (default 0.3). */
  contradict?: number;
  /** Weight of recency in the reranker's score, against BM25 scaled to [0, 1] (default 0.2). */
  recency?: number;
}

/** Negation and change cues: a fact holding one and a close unit not (or the reverse) contradict. */
const CUE = /n't\b|\b(?:not|no longer|never|stopped|quit|anymore|gave up|broke up)\b/i;

/** Does `fact` contradict (negate, or revive) `unit`'s text? Exactly one of them holds a cue. */
export function contradicts(unit: string, fact: string): boolean {
  return CUE.test(unit) !== CUE.test(fact);
}

/** The record a unit's variable holds. */
const record = (u: Unit) => ({
  memory: unitText(u),
  user_id: u.owner,
  created_at: u.parts[0]?.date ?? '',
});

type Decision = 'ADD' | 'UPDATE' | 'DELETE' | 'NOOP';

const DERIVE_FACTS: FactsOpNaming = {
  name: 'derive-facts',
  category: 'fact-derivation',
  comment: 'Derive the facts both speakers’ memories should hold from the new message.',
  output: { category: 'derived_facts', comment: 'Facts derived from the message.' },
};

export class PerUserStore extends MemorySystem {
  readonly name = 'per-user-store' as const;
  private readonly stores = new Map<string, UserStore>();
  private readonly prov = new Provenance();
  private readonly o: Required<PerUserStoreOptions>;
  private nextId = 1;
  private clock = 0;

  constructor(o: PerUserStoreOptions = {}) {
    super();
    this.o = {
      perStore: 10,
      topK: 8,
      capacity: 80,
      duplicate: 0.8,
      revise: 0.4,
      contradict: 0.3,
      recency: 0.2,
      ...o,
    };
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  /** The stores, one per speaker of the conversation (made on first use). */
  private storesOf(env: RunEnv): UserStore[] {
    for (const owner of env.conv.speakers)
      if (!this.stores.has(owner))
        this.stores.set(owner, { owner, units: new Map(), vectors: new VectorIndex() });
    return [...this.stores.values()];
  }

  private unit(id: string): Unit | undefined {
    for (const s of this.stores.values()) {
      const u = s.units.get(id);
      if (u) return u;
    }
    return undefined;
  }

  private put(env: RunEnv, store: UserStore, u: Unit): string[] {
    store.units.set(u.id, u);
    store.vectors.set(u.id, unitText(u));
    return this.prov.set(u.id, env.kept(u.parts, u.sources));
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const at = capturedAt(env, session);
    const written: RecordedMemory[] = [];
    const stores = this.storesOf(env);
    for (const turn of session.turns) {
      const captured = session.turns.filter((t) => at.get(t.id) === turn.id);
      // The extraction op of one message: the facts both stores will get.
      const { memories, factsVar } = factsOp(env, { turn, session, captured, written }, DERIVE_FACTS);
      for (const store of stores) {
        for (const m of memories) this.write(env, store, m, turn, session.dateTime, factsVar);
        this.expire(env, store);
      }
    }
  }

  /** What a store does with a fact, before repair: see the module comment. */
  private decide(store: UserStore, text: string): { decision: Decision; unit?: Unit } {
    const [hit] = store.vectors.search(text, 1);
    const unit = hit && store.units.get(hit.key);
    if (!unit) return { decision: 'ADD' };
    if (hit.score >= this.o.contradict && contradicts(unitText(unit), text))
      return { decision: 'DELETE', unit };
    if (hit.score < this.o.revise) return { decision: 'ADD' };
    if (hit.score >= this.o.duplicate) return { decision: 'NOOP', unit };
    const richer = contentTokens(text).length > contentTokens(unitText(unit)).length;
    return { decision: richer ? 'UPDATE' : 'NOOP', unit };
  }

  private write(
    env: RunEnv,
    store: UserStore,
    m: RecordedMemory,
    turn: Turn,
    date: string,
    factsVar: TracedVar,
  ) {
    const part = { text: m.text, date };
    const ideal = env.ideal();
    let { decision, unit } = this.decide(store, m.text);
    const keptNew = env.kept([part], m.sources).filter((s) => env.isEvidence(s));
    const holdsEvidence = (u: Unit) => [...this.prov.sources(u.id)].some((s) => env.isEvidence(s));
    if (ideal && unit) {
      const sources = [...new Set([...unit.sources, ...m.sources])];
      // Repaired: a NOOP never drops evidence the unit does not hold, an UPDATE never drops
      // evidence the unit held, a DELETE never removes a unit holding evidence.
      if (decision === 'NOOP' && keptNew.some((e) => !env.kept(unit!.parts, sources).includes(e)))
        decision = 'ADD';
      if (decision === 'UPDATE') {
        const after = new Set(env.kept([part], sources));
        if (env.kept(unit.parts, unit.sources).some((e) => env.isEvidence(e) && !after.has(e)))
          decision = 'ADD';
      }
      if (decision === 'DELETE' && holdsEvidence(unit)) decision = 'ADD';
    }
    if (decision === 'NOOP' && unit) return this.keep(env, unit, m, keptNew, factsVar);
    if (decision === 'UPDATE' && unit) return this.revise(env, store, unit, part, m, factsVar);
    if (decision === 'DELETE' && unit)
      this.remove(
        env,
        store,
        unit,
        'user-store.invalidate',
        `DELETE ${unit.id}: contradicted by a new fact.`,
        [factsVar],
      );
    this.insert(env, store, m, turn, part, factsVar);
  }

  /** NOOP: the unit stays as it is and now also derives from the fact's turns. */
  private keep(env: RunEnv, unit: Unit, m: RecordedMemory, keptNew: string[], factsVar: TracedVar) {
    unit.sources = [...new Set([...unit.sources, ...m.sources])];
    unit.touched = ++this.clock;
    env.t.op(
      'user-store.keep',
      {
        category: 'memory-write',
        comment: `NOOP: ${unit.owner}'s store already holds it (${unit.id}).`,
        metadata: { event: 'NONE', user_id: unit.owner },
      },
      (op) => {
        op.input(factsVar);
        op.input(unit.variable);
        op.output({ event: 'NONE', memory_id: unit.id, text: m.text }, { category: 'memory_decision' });
        this.put(env, this.stores.get(unit.owner)!, unit);
        env.log({
          opId: op.opId,
          kind: 'extraction',
          turns: keptNew,
          carried: keptNew.filter((e) => this.prov.carried(e)),
        });
      },
    );
  }

  /** UPDATE: the fact replaces the unit's text. */
  private revise(
    env: RunEnv,
    store: UserStore,
    unit: Unit,
    part: { text: string; date: string },
    m: RecordedMemory,
    factsVar: TracedVar,
  ) {
    const old = unitText(unit);
    unit.parts = [part];
    unit.sources = [...new Set([...unit.sources, ...m.sources])];
    unit.touched = ++this.clock;
    unit.variable = env.t.mutate(unit.variable, record(unit), {
      name: 'user-store.revise',
      category: 'memory-write',
      comment: `UPDATE ${unit.id} in ${unit.owner}'s store with a fuller fact.`,
      inputs: [factsVar],
      metadata: { event: 'UPDATE', memory_id: unit.id, user_id: unit.owner, old_memory: old },
    });
    env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost: this.put(env, store, unit) });
  }

  /** ADD: a new unit in the store. */
  private insert(
    env: RunEnv,
    store: UserStore,
    m: RecordedMemory,
    turn: Turn,
    part: { text: string; date: string },
    factsVar: TracedVar,
  ) {
    const id = `mem-${this.nextId++}`;
    env.t.op(
      'user-store.insert',
      {
        category: 'memory-write',
        comment: `ADD ${id} to ${store.owner}'s store.`,
        metadata: { event: 'ADD' },
      },
      (op) => {
        op.input(factsVar);
        const u: Unit = {
          id,
          owner: store.owner,
          speaker: turn.speaker,
          parts: [part],
          sources: [...m.sources],
          touched: ++this.clock,
          variable: factsVar,
        };
        u.variable = op.output(record(u), {
          name: id,
          category: 'user_memory',
          comment: `A memory in ${store.owner}'s store.`,
          metadata: { user_id: store.owner },
        });
        this.put(env, store, u);
        env.log({ opId: op.opId, kind: 'update', lost: [] });
      },
    );
  }

  /** Expiry: past `capacity`, the least recently touched unit about the other speaker goes first. */
  private expire(env: RunEnv, store: UserStore) {
    while (store.units.size > this.o.capacity) {
      const order = [...store.units.values()].sort(
        (a, b) =>
          Number(a.speaker === store.owner) - Number(b.speaker === store.owner) || a.touched - b.touched,
      );
      const holds = (u: Unit) => [...this.prov.sources(u.id)].some((s) => env.isEvidence(s));
      // Repaired, expiry spares units holding the evidence (and stops when only those are left).
      const victim = env.ideal() ? order.find((u) => !holds(u)) : order[0];
      if (!victim) return;
      this.remove(
        env,
        store,
        victim,
        'user-store.expire',
        `Expire ${victim.id}: ${store.owner}'s store is full.`,
        [],
      );
    }
  }

  private remove(env: RunEnv, store: UserStore, u: Unit, name: string, comment: string, inputs: TracedVar[]) {
    u.variable = env.t.mutate(u.variable, null, {
      name,
      category: 'memory-removal',
      comment,
      inputs,
      metadata: { event: 'DELETE', memory_id: u.id, user_id: store.owner },
    });
    store.units.delete(u.id);
    store.vectors.remove(u.id);
    env.log({ opId: env.t.lastOpId ?? '', kind: 'deletion', lost: this.prov.remove(u.id) });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    injectUnitFaults(env, kind, env.faultUnits(this.prov.unitsCarrying(env.evidence)), (id) => {
      const u = this.unit(id);
      const store = u && this.stores.get(u.owner);
      if (!u || !store) return false;
      if (kind === 'deletion') this.remove(env, store, u, 'user-store.invalidate', `DELETE ${u.id}.`, []);
      else {
        const old = unitText(u);
        u.parts = [{ text: `${u.speaker} mentioned something in passing.`, date: u.parts[0]?.date ?? '' }];
        u.variable = env.t.mutate(u.variable, record(u), {
          name: 'user-store.revise',
          category: 'memory-write',
          comment: `UPDATE ${u.id} in ${u.owner}'s store with a fuller fact.`,
          metadata: { event: 'UPDATE', memory_id: u.id, user_id: u.owner, old_memory: old },
        });
        env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost: this.put(env, store, u) });
      }
      return true;
    });
  }

  private item(id: string): ContextItem {
    return { text: contextText(this.unit(id)!), sources: [...this.prov.sources(id)] };
  }

  private carrying(ids: string[], q: Question): string[] {
    const items = ids.map((id) => this.item(id));
    return q.evidence.filter((e) => items.some((i) => i.sources.includes(e)));
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    const candidates = this.lookup(env, q, queryVar);
    return this.rerank(env, q, queryVar, candidates);
  }

  /** Stage 1: each store's top units by cosine, merged in store order (copies included). */
  private lookup(env: RunEnv, q: Question, queryVar: TracedVar): { ids: string[]; variable: TracedVar } {
    const target = env.isTarget(q.id);
    const stores = this.storesOf(env);
    let ids = stores.flatMap((s) => s.vectors.search(q.question, this.o.perStore).map((h) => h.key));
    if (env.injecting('retrieval') && target)
      ids = ids.filter((id) => ![...this.prov.sources(id)].some((x) => env.isEvidence(x)));
    if (target && env.ideal(q.id, 'retrieval'))
      for (const id of this.prov.unitsCarrying(env.evidence)) if (!ids.includes(id)) ids.push(id);
    return env.t.op(
      'user-store.lookup',
      {
        category: 'lookup',
        comment: `Look up the ${this.o.perStore} closest memories in each speaker's store.`,
        metadata: { per_store: this.o.perStore, stores: stores.map((s) => s.owner) },
      },
      (op) => {
        op.input(queryVar);
        for (const id of ids) op.input(this.unit(id)!.variable);
        const variable = op.output(
          ids.map((id) => this.item(id).text),
          { category: 'memory_candidates', comment: 'Candidates from every store, before reranking.' },
        );
        if (env.injecting('retrieval') && target) env.faultOpId = op.opId;
        env.log({
          opId: op.opId,
          kind: 'retrieval',
          questionId: q.id,
          inStore: q.evidence.filter((e) => this.prov.carried(e)),
          inContext: this.carrying(ids, q),
        });
        return { ids, variable };
      },
    );
  }

  /** The reranker's score of each candidate: BM25 of the question (scaled to [0, 1]) plus a recency bonus. */
  rerankScores(question: string, ids: string[]): number[] {
    const index = new LexicalIndex<number>();
    ids.forEach((id, i) => {
      index.set(i, unitText(this.unit(id)!));
    });
    const bm25 = new Array<number>(ids.length).fill(0);
    for (const h of index.search(question, ids.length)) bm25[h.key] = h.score;
    const top = maxOf(bm25, 0) || 1;
    const touched = ids.map((id) => this.unit(id)!.touched);
    const lo = minOf(touched);
    const span = maxOf(touched) - lo || 1;
    return ids.map((_, i) => bm25[i] / top + this.o.recency * ((touched[i] - lo) / span));
  }

  /** Stage 2: the candidates reranked to the top `topK`. */
  private rerank(
    env: RunEnv,
    q: Question,
    queryVar: TracedVar,
    candidates: { ids: string[]; variable: TracedVar },
  ): Retrieved {
    const scores = this.rerankScores(q.question, candidates.ids);
    const order = candidates.ids
      .map((id, i) => ({ id, i }))
      .sort((a, b) => scores[b.i] - scores[a.i] || a.i - b.i);
    const ids = order.slice(0, this.o.topK).map((x) => x.id);
    if (env.isTarget(q.id) && env.ideal(q.id, 'retrieval', 'rerank'))
      for (const id of candidates.ids)
        if (!ids.includes(id) && [...this.prov.sources(id)].some((x) => env.isEvidence(x))) ids.push(id);
    const items = ids.map((id) => this.item(id));
    return env.t.op(
      'rerank',
      {
        category: 'reranking',
        comment: `Rerank the candidates (BM25 of the question + recency) and keep the top ${this.o.topK}.`,
        metadata: { top_k: this.o.topK, recency_weight: this.o.recency },
      },
      (op) => {
        op.input(queryVar);
        op.input(candidates.variable);
        const variable = op.output(
          items.map((i) => i.text),
          { category: 'reranked_memories', comment: 'Memories given to the answer.' },
        );
        env.log({
          opId: op.opId,
          kind: 'retrieval',
          questionId: q.id,
          stage: 'rerank',
          inStore: this.carrying(candidates.ids, q),
          inContext: q.evidence.filter((e) => items.some((i) => i.sources.includes(e))),
        });
        return { items, variable };
      },
    );
  }
}
