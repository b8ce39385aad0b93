/**
 * A session-summary memory (written for the recorded-memories benchmark). Each session becomes
 * one unit, its summary (the data set's recorded LLM summary in the `recorded` mode, the
 * session's offline facts otherwise). Consolidation: while more than `window` session summaries
 * are kept, the oldest `group` are merged into one digest that keeps, of each, its first
 * sentence and its most central sentences (details are lost); past `maxDigests` digests the
 * oldest is forgotten. The store is the `summary-memory` chain (the ids of the units kept);
 * questions take the BM25 top-k units.
 */

import { appendAll } from '../core/arrays.ts';
import type { TracedVar } from '../sdk/tracer.ts';
import type { MemoryPart } from './carrying.ts';
import { Provenance, type RunEnv } from './env.ts';
import { LexicalIndex } from './lexical.ts';
import { injectUnitFaults, memoriesOf, type PartsUnit, partsStore, unitText } from './recorded.ts';
import { searchUnits } from './search.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import { contentTokens, sentences } from './text.ts';
import type { ConversationSession, Question } from './types.ts';

interface Unit extends PartsUnit {
  id: string;
  digest: boolean;
  variable: TracedVar;
}

export interface SummaryMemoryOptions {
  topK?: number;
  /** Session summaries kept as they are (default 3). */
  window?: number;
  /** Summaries merged into one digest (default 3). */
  group?: number;
  /** Digests kept (default 6). */
  maxDigests?: number;
}

/** Of each part, its first sentence and its most central ones (content words the group shares), at most a third. */
export function condense(parts: readonly MemoryPart[]): MemoryPart[] {
  const df = new Map<string, number>();
  const split = parts.map((p) => sentences(p.text));
  for (const ss of split)
    for (const s of ss) for (const w of new Set(contentTokens(s))) df.set(w, (df.get(w) ?? 0) + 1);
  return parts.map((p, i) => {
    const ss = split[i];
    const score = (s: string) => {
      const ws = contentTokens(s);
      return ws.length ? ws.reduce((n, w) => n + (df.get(w) ?? 0), 0) / ws.length : 0;
    };
    const budget = Math.max(1, Math.ceil(ss.length / 3));
    const ranked = ss
      .map((s, k) => ({ k, score: k === 0 ? Number.POSITIVE_INFINITY : score(s) }))
      .sort((a, b) => b.score - a.score || a.k - b.k)
      .slice(0, budget)
      .map((x) => x.k)
      .sort((a, b) => a - b);
    return { text: ranked.map((k) => ss[k]).join(' '), date: p.date };
  });
}

export class SummaryMemory extends MemorySystem {
  readonly name = 'session-summary' as const;
  private readonly units = new Map<string, Unit>();
  private readonly index = new LexicalIndex<string>();
  private readonly prov = new Provenance();
  private storeVar: TracedVar | null = null;
  private readonly o: Required<SummaryMemoryOptions>;
  private nextDigest = 1;

  constructor(o: SummaryMemoryOptions = {}) {
    super();
    this.o = { topK: 3, window: 3, group: 3, maxDigests: 6, ...o };
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  private put(env: RunEnv, u: Unit): string[] {
    this.units.set(u.id, u);
    this.index.set(u.id, unitText(u));
    return this.prov.set(u.id, env.kept(u.parts, u.sources));
  }

  private drop(id: string): string[] {
    this.units.delete(id);
    this.index.remove(id);
    return this.prov.remove(id);
  }

  private writeStore(env: RunEnv, name: string, category: string, comment: string, inputs: TracedVar[]) {
    this.storeVar ??= env.t.variable([], {
      name: 'summary-memory',
      category: 'memory_store',
      comment: 'Ids of the summaries and digests kept.',
    });
    this.storeVar = env.t.mutate(this.storeVar, [...this.units.keys()], { name, category, comment, inputs });
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const t = env.t;
    const date = session.dateTime;
    const msgs = session.turns.map((turn) => env.message(turn, session));
    const text = env.replay
      ? (session.summary ?? '')
      : session.turns.flatMap((turn) => memoriesOf(env, turn).map((m) => m.text)).join(' ');
    const unit: Unit = {
      id: `summary-${session.index}`,
      digest: false,
      parts: [{ text, date }],
      sources: session.turns.map((x) => x.id),
      variable: msgs[0],
    };
    const evidence = session.turns.filter((x) => env.isEvidence(x.id));
    const inject = env.injecting('extraction') && evidence.length > 0;
    if (inject) unit.parts = [{ text: sentences(text).slice(0, 1).join(' ') || 'They talked.', date }];
    if (env.ideal())
      for (const e of evidence)
        if (!env.kept(unit.parts, unit.sources).includes(e.id))
          unit.parts.push({ text: `${e.speaker}: ${e.text}`, date });
    t.op(
      'summarize-session',
      {
        category: 'summarization',
        comment: 'Write the summary of the session.',
        metadata: { llm_model: env.replay ? 'recorded' : env.modelName, session: session.index },
      },
      (op) => {
        for (const m of msgs) op.input(m);
        op.input(env.prompt('session-summary-prompt'));
        unit.variable = op.output(unitText(unit), {
          name: unit.id,
          category: 'session_summary',
          comment: 'The summary of one session.',
          metadata: { date },
        });
        if (inject) env.faultOpId = op.opId;
        this.put(env, unit);
        env.log({
          opId: op.opId,
          kind: 'extraction',
          turns: unit.sources,
          carried: unit.sources.filter((x) => this.prov.sources(unit.id).has(x)),
        });
      },
    );
    this.writeStore(env, 'summary-memory.add', 'update', `Keep ${unit.id}.`, [unit.variable]);
    this.consolidate(env);
  }

  private consolidate(env: RunEnv) {
    const recent = [...this.units.values()].filter((u) => !u.digest);
    if (recent.length <= this.o.window) return;
    const merged = recent.slice(0, this.o.group);
    const condensed = condense(merged.flatMap((u) => u.parts));
    const digest: Unit = {
      id: `digest-${this.nextDigest++}`,
      digest: true,
      parts: condensed,
      sources: merged.flatMap((u) => u.sources),
      variable: merged[0].variable,
    };
    if (env.ideal()) {
      // An ideal digest keeps in full every merged unit whose evidence the condensed text loses.
      const keeps = new Set(env.kept(digest.parts, digest.sources));
      let at = 0;
      digest.parts = merged.flatMap((u) => {
        const mine = condensed.slice(at, at + u.parts.length);
        at += u.parts.length;
        const held = [...this.prov.sources(u.id)].some((s) => env.isEvidence(s) && !keeps.has(s));
        return held ? u.parts : mine;
      });
    }
    const t = env.t;
    t.op(
      'consolidate-summaries',
      {
        category: 'consolidation',
        comment: `Merge ${merged.map((u) => u.id).join(', ')} into one digest.`,
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        for (const u of merged) op.input(u.variable);
        op.input(env.prompt('summary-consolidation-prompt'));
        digest.variable = op.output(unitText(digest), {
          name: digest.id,
          category: 'session_summary',
          comment: 'A digest of older sessions.',
        });
        const lost = [...this.put(env, digest)];
        for (const u of merged) appendAll(lost, this.drop(u.id));
        env.log({ opId: op.opId, kind: 'update', lost });
      },
    );
    this.writeStore(
      env,
      'summary-memory.replace',
      'update',
      `Replace the merged summaries by ${digest.id}.`,
      [digest.variable],
    );
    this.forget(env);
  }

  private forget(env: RunEnv) {
    const digests = [...this.units.values()].filter((u) => u.digest);
    if (digests.length <= this.o.maxDigests) return;
    const holds = (u: Unit) => [...this.prov.sources(u.id)].some((s) => env.isEvidence(s));
    // An ideal policy forgets the oldest digest holding none of the evidence (or none).
    const victim = env.ideal() ? digests.find((u) => !holds(u)) : digests[0];
    if (!victim) return;
    const lost = this.drop(victim.id);
    this.writeStore(
      env,
      'summary-memory.forget',
      'deletion',
      `Forget ${victim.id} (over ${this.o.maxDigests} digests).`,
      [],
    );
    env.log({ opId: env.t.lastOpId ?? '', kind: 'deletion', lost });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    injectUnitFaults(env, kind, env.faultUnits(this.prov.unitsCarrying(env.evidence)), (id) => {
      const u = this.units.get(id);
      if (!u) return false;
      if (kind === 'deletion') {
        const lost = this.drop(id);
        this.writeStore(env, 'summary-memory.forget', 'deletion', `Forget ${id}.`, []);
        env.log({ opId: env.t.lastOpId ?? '', kind: 'deletion', lost });
      } else {
        u.parts = u.parts.map((p) => ({ text: sentences(p.text).slice(0, 1).join(' '), date: p.date }));
        u.variable = env.t.mutate(u.variable, unitText(u), {
          name: 'summary-rewrite',
          category: 'consolidation',
          comment: `Shorten ${id}.`,
        });
        env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost: this.put(env, u) });
      }
      return true;
    });
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    return searchUnits(env, q, queryVar, partsStore(this.units, this.index, this.prov, this.o.topK), {
      name: 'summary-search',
      noun: 'summaries',
      category: 'retrieved_summaries',
    });
  }
}
