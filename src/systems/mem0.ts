/**
 * Mem0, classic design: per message, fact extraction → per-fact search of the store
 * (top 5) → an update decision per fact (ADD / UPDATE / DELETE / NONE, with the store's
 * ids replaced by "0", "1", …) → apply. Questions: search (top 10) → answer.
 * Each memory unit is its own variable chain `mem-N` (ADD makes version 1, UPDATE and
 * DELETE make new versions; a deleted unit's value is None).
 * Recorded mode: the extraction op replays the data set's LLM-written facts of the message.
 * Offline mode: extractive facts, lexical decisions (near-duplicate → NONE, same topic →
 * UPDATE, negation of a similar memory → DELETE, else ADD) and BM25 search.
 */
import type { TracedVar } from '../sdk/tracer.ts';
import { Provenance, type RunEnv } from './env.ts';
import { LexicalIndex } from './lexical.ts';
import { parseJsonReply } from './llm.ts';
import { extractFacts } from './offline.ts';
import { fillPrompt } from './prompts.ts';
import { memoriesOf } from './recorded.ts';
import { searchUnits } from './search.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import { overlap } from './text.ts';
import type { ConversationSession, Question, Turn } from './types.ts';

interface Unit {
  id: string;
  text: string;
  date: string;
  variable: TracedVar;
}

type Event = 'ADD' | 'UPDATE' | 'DELETE' | 'NONE';
interface Decision {
  event: Event;
  text: string;
  /** Target unit (UPDATE / DELETE / NONE). */
  unit?: string;
}

const NEGATION = /\b(no longer|not anymore|stopped|quit|gave up|don't .* anymore|never again)\b/i;

export class Mem0 extends MemorySystem {
  readonly name = 'mem0' as const;
  private readonly units = new Map<string, Unit>();
  private readonly index = new LexicalIndex<string>();
  private readonly prov = new Provenance();
  private nextId = 1;

  constructor(private readonly topK = 10) {
    super();
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    for (const turn of session.turns) await this.addMessage(env, turn, session);
  }

  private async extract(env: RunEnv, turn: Turn, session: ConversationSession): Promise<string[]> {
    if (env.replay) return memoriesOf(env, turn).map((m) => m.text);
    if (env.offline) return extractFacts(turn);
    const reply = await env.complete(
      env.prompts['fact-extraction-system-prompt'],
      `Date: ${session.dateTime}\n${turn.speaker}: ${turn.text}`,
      true,
    );
    const parsed = parseJsonReply(reply) as { facts?: unknown } | undefined;
    return Array.isArray(parsed?.facts) ? parsed.facts.filter((f): f is string => typeof f === 'string') : [];
  }

  private async addMessage(env: RunEnv, turn: Turn, session: ConversationSession) {
    const evidence = env.isEvidence(turn.id);
    const { facts, factsVar } = await this.extractionStep(env, turn, session, evidence);
    if (facts.length === 0) return;

    // 2–3. Search the store per fact; map real ids to "0", "1", … for the decision.
    const found = new Map<string, Unit>();
    for (const f of facts) for (const h of this.index.search(f, 5)) found.set(h.key, this.units.get(h.key)!);

    // 4. Decide.
    const decisions = await this.decide(env, facts, found);
    const decisionVar = env.t.op(
      'memory-update-decision',
      {
        category: 'llm_call',
        comment: 'Decide ADD / UPDATE / DELETE / NONE per fact.',
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        op.input(factsVar);
        op.input(env.prompt('memory-update-decision-prompt'));
        for (const u of found.values()) op.input(u.variable);
        return op.output(
          decisions.map((d) => ({
            id: d.unit ? String([...found.keys()].indexOf(d.unit)) : 'new',
            text: d.text,
            event: d.event,
          })),
          { category: 'memory_decisions', comment: 'The update decisions.' },
        );
      },
    );

    // 5. Apply.
    const decisionOpId = env.t.lastOpId ?? '';
    for (const d of decisions) this.apply(env, d, turn, session, decisionVar);
    // Did the message's information enter the store? (A DELETE or a wrong NONE can keep it out.)
    if (evidence && !this.prov.carried(turn.id) && env.ideal())
      this.apply(env, { event: 'ADD', text: facts[0] }, turn, session, decisionVar);
    env.log({
      opId: decisionOpId,
      kind: 'extraction',
      turns: [turn.id],
      carried: this.prov.carried(turn.id) ? [turn.id] : [],
    });
  }

  /** 1. The extraction op of a message (an extraction fault empties it, the ideal step keeps the message). */
  private async extractionStep(env: RunEnv, turn: Turn, session: ConversationSession, evidence: boolean) {
    const msg = env.message(turn, session);
    let facts = await this.extract(env, turn, session);
    const inject = env.injecting('extraction') && evidence;
    if (inject) facts = [];
    if (env.ideal() && evidence && facts.length === 0) facts = [`${turn.speaker}: ${turn.text}`];
    const factsVar = env.t.op(
      'fact-extraction',
      {
        category: 'extraction',
        comment: 'Extract salient facts from the new message.',
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        op.input(msg);
        op.input(env.prompt('fact-extraction-system-prompt'));
        const v = op.output(facts, { category: 'facts', comment: 'Facts extracted from the message.' });
        if (inject) env.faultOpId = op.opId;
        env.log({
          opId: op.opId,
          kind: 'extraction',
          turns: [turn.id],
          carried: facts.length ? [turn.id] : [],
        });
        return v;
      },
    );
    return { facts, factsVar };
  }

  /** The update decision per fact against the units found (the model sees them as "0", "1", …). */
  private async decide(env: RunEnv, facts: string[], found: Map<string, Unit>): Promise<Decision[]> {
    if (env.offline) return this.decideOffline(facts, [...found.values()]);
    const oldMemory = [...found.values()].map((u, i) => ({ id: String(i), text: u.text }));
    const idOf = new Map([...found.keys()].map((k, i) => [String(i), k]));
    const reply = await env.complete(
      'You manage a memory store.',
      fillPrompt(env.prompts['memory-update-decision-prompt'], {
        old_memory: JSON.stringify(oldMemory),
        facts: JSON.stringify(facts),
      }),
      true,
    );
    const parsed = parseJsonReply(reply) as { memory?: unknown } | undefined;
    return (Array.isArray(parsed?.memory) ? parsed.memory : []).flatMap((m): Decision[] => {
      const r = m as { id?: unknown; text?: unknown; event?: unknown };
      const event = typeof r.event === 'string' ? (r.event.toUpperCase() as Event) : 'NONE';
      if (!['ADD', 'UPDATE', 'DELETE', 'NONE'].includes(event)) return [];
      const unit = typeof r.id === 'string' ? idOf.get(r.id) : undefined;
      return [{ event, text: typeof r.text === 'string' ? r.text : '', unit }];
    });
  }

  private decideOffline(facts: string[], found: Unit[]): Decision[] {
    return facts.map((text): Decision => {
      let best: Unit | undefined;
      let score = 0;
      for (const u of found) {
        const o = overlap(text, u.text);
        if (o > score) {
          score = o;
          best = u;
        }
      }
      const sameSpeaker = best !== undefined && best.text.split(':')[0] === text.split(':')[0];
      if (best && score >= 0.7) return { event: 'NONE', text, unit: best.id };
      if (best && sameSpeaker && score >= 0.3 && NEGATION.test(text))
        return { event: 'DELETE', text, unit: best.id };
      if (best && sameSpeaker && score >= 0.45) return { event: 'UPDATE', text, unit: best.id };
      return { event: 'ADD', text };
    });
  }

  private apply(env: RunEnv, d: Decision, turn: Turn, session: ConversationSession, decisionVar: TracedVar) {
    const t = env.t;
    let event = d.event;
    const target = d.unit ? this.units.get(d.unit) : undefined;
    if ((event === 'UPDATE' || event === 'DELETE') && !target) event = 'ADD';
    if (event === 'NONE') {
      // The information is already stored: the matched unit now carries this turn too.
      if (target) this.prov.set(target.id, [...this.prov.sources(target.id), turn.id]);
      return;
    }
    // An ideal update never loses evidence: it adds the new fact instead.
    if (
      target &&
      (event === 'UPDATE' || event === 'DELETE') &&
      env.ideal() &&
      [...this.prov.sources(target.id)].some((x) => env.isEvidence(x))
    )
      event = 'ADD';
    if (event === 'ADD') {
      const id = `mem-${this.nextId++}`;
      const variable = t.op(
        'memory-update',
        { category: 'update', comment: `ADD ${id}`, metadata: { event: 'ADD', memory_id: id } },
        (op) => {
          op.input(decisionVar);
          const v = op.output(d.text, {
            name: id,
            category: 'memory_entry',
            comment: 'A memory unit.',
            metadata: { created_at: session.dateTime },
          });
          env.log({ opId: op.opId, kind: 'update', lost: [] });
          return v;
        },
      );
      this.units.set(id, { id, text: d.text, date: session.dateTime, variable });
      this.index.set(id, d.text);
      this.prov.set(id, [turn.id]);
      return;
    }
    const u = target!;
    if (event === 'UPDATE') {
      u.variable = t.mutate(u.variable, d.text, {
        name: 'memory-update',
        category: 'update',
        comment: `UPDATE ${u.id}`,
        inputs: [decisionVar],
        metadata: { event: 'UPDATE', memory_id: u.id, old_memory: u.text },
      });
      u.text = d.text;
      this.index.set(u.id, d.text);
      env.log({ opId: t.lastOpId ?? '', kind: 'update', lost: this.prov.set(u.id, [turn.id]) });
      return;
    }
    u.variable = t.mutate(u.variable, null, {
      name: 'memory-delete',
      category: 'deletion',
      comment: `DELETE ${u.id}`,
      inputs: [decisionVar],
      metadata: { event: 'DELETE', memory_id: u.id },
    });
    this.units.delete(u.id);
    this.index.remove(u.id);
    env.log({ opId: t.lastOpId ?? '', kind: 'deletion', lost: this.prov.remove(u.id) });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    const t = env.t;
    const ids = env.faultUnits(this.prov.unitsCarrying(env.evidence));
    let faultOp: string | null = null;
    for (const id of ids) {
      const u = this.units.get(id)!;
      let lost: string[];
      if (kind === 'update') {
        const text = `${u.text.split(':')[0]}: mentioned something in passing.`;
        u.variable = t.mutate(u.variable, text, {
          name: 'memory-update',
          category: 'update',
          comment: `UPDATE ${u.id}`,
          metadata: { event: 'UPDATE', memory_id: u.id, old_memory: u.text },
        });
        u.text = text;
        this.index.set(id, text);
        lost = this.prov.set(id, []);
      } else {
        u.variable = t.mutate(u.variable, null, {
          name: 'memory-delete',
          category: 'deletion',
          comment: `DELETE ${u.id}`,
          metadata: { event: 'DELETE', memory_id: u.id },
        });
        this.units.delete(id);
        this.index.remove(id);
        lost = this.prov.remove(id);
      }
      const opId = t.lastOpId ?? '';
      // Every unit here carries the evidence, so each op is faulty; the paper's decisive op is
      // the earliest (repaired, with every later op ideal, the answer is right).
      faultOp ??= opId;
      env.log({ opId, kind, lost });
    }
    if (faultOp) env.faultOpId = faultOp;
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    return searchUnits(
      env,
      q,
      queryVar,
      {
        index: this.index,
        prov: this.prov,
        topK: this.topK,
        unit: (id) => {
          const u = this.units.get(id)!;
          return {
            item: { text: `${u.date}: ${u.text}`, sources: [...this.prov.sources(id)] },
            variable: u.variable,
          };
        },
      },
      { name: 'memory-search', noun: 'memories', category: 'retrieved_memories' },
    );
  }
}
