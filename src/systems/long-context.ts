/**
 * Long-context memory: one memory unit, the conversation window ("timestamp | speaker:
 * text" lines), trimmed from the oldest turn past the budget (32k tokens). Each session
 * appended is a new version of the window; retrieval passes the window through.
 */
import type { TracedVar } from '../sdk/tracer.ts';
import { Provenance, type RunEnv } from './env.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import { countTokens } from './text.ts';
import type { ConversationSession, Question } from './types.ts';

interface Line {
  turn: string;
  text: string;
  tokens: number;
}

export class LongContext extends MemorySystem {
  readonly name = 'long-context' as const;
  private window: Line[] = [];
  private windowVar: TracedVar | null = null;
  private readonly prov = new Provenance();

  constructor(private readonly budget = 32_000) {
    super();
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  private text(lines: Line[] = this.window): string {
    return lines.map((l) => l.text).join('\n');
  }

  private sync(): string[] {
    return this.prov.set(
      'context-window',
      this.window.map((l) => l.turn),
    );
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const t = env.t;
    this.windowVar ??= t.variable('', {
      name: 'context-window',
      category: 'memory_store',
      comment: 'The conversation window.',
    });
    const msgs = session.turns.map((turn) => env.message(turn, session));
    let turns = session.turns;
    const inject = env.injecting('extraction') && turns.some((x) => env.isEvidence(x.id));
    if (inject && !env.ideal()) turns = turns.filter((x) => !env.isEvidence(x.id));
    for (const turn of turns) {
      const text = `${session.dateTime} | ${turn.speaker}: ${turn.text}`;
      this.window.push({ turn: turn.id, text, tokens: countTokens(text) });
    }
    this.sync();
    this.windowVar = t.mutate(this.windowVar, this.text(), {
      name: 'context-append',
      category: 'update',
      comment: `Append session ${session.index} to the window.`,
      inputs: msgs,
    });
    const opId = t.lastOpId ?? '';
    if (inject) env.faultOpId = opId;
    env.log({
      opId,
      kind: 'extraction',
      turns: session.turns.map((x) => x.id),
      carried: turns.map((x) => x.id),
    });
    this.evict(env);
  }

  /** `context-evict` (update): drop the oldest turns until the window fits the budget. */
  private evict(env: RunEnv) {
    let total = this.window.reduce((s, l) => s + l.tokens, 0);
    if (total <= this.budget || !this.windowVar) return;
    const ideal = env.ideal();
    const kept: Line[] = [];
    const drop = new Set<number>();
    for (let i = 0; i < this.window.length && total > this.budget; i++) {
      if (ideal && env.isEvidence(this.window[i].turn)) continue; // an ideal trim keeps the evidence
      drop.add(i);
      total -= this.window[i].tokens;
    }
    this.window.forEach((l, i) => {
      if (!drop.has(i)) kept.push(l);
    });
    this.window = kept;
    const lost = this.sync();
    this.windowVar = env.t.mutate(this.windowVar, this.text(), {
      name: 'context-evict',
      category: 'update',
      comment: `Trim ${drop.size} oldest turns to fit ${this.budget} tokens.`,
    });
    env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    if (!this.windowVar) return;
    if (kind === 'update') {
      // Corrupt: the evidence lines lose their content words.
      this.window = this.window.map((l) =>
        env.isEvidence(l.turn)
          ? { ...l, text: l.text.replace(/:.*$/, ': (message garbled)'), turn: `${l.turn}#garbled` }
          : l,
      );
    } else this.window = this.window.filter((l) => !env.isEvidence(l.turn));
    const lost = this.sync();
    this.windowVar = env.t.mutate(this.windowVar, this.text(), {
      name: kind === 'update' ? 'context-rewrite' : 'context-delete',
      category: kind,
      comment: kind === 'update' ? 'Rewrite turns of the window.' : 'Delete turns from the window.',
    });
    const opId = env.t.lastOpId ?? '';
    env.faultOpId = opId;
    env.log({ opId, kind, lost });
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    const target = env.isTarget(q.id);
    let lines = this.window;
    if (env.injecting('retrieval') && target && !env.ideal(q.id, 'retrieval'))
      lines = lines.filter((l) => !env.isEvidence(l.turn));
    const items = [{ text: this.text(lines), sources: lines.map((l) => l.turn) }];
    const inStore = q.evidence.filter((e) => this.prov.carried(e));
    return env.t.op(
      'context-retrieval',
      { category: 'retrieval', comment: 'Pass the window through as the context.' },
      (op) => {
        op.input(queryVar);
        if (this.windowVar) op.input(this.windowVar);
        const variable = op.output(items[0].text, {
          category: 'retrieved_context',
          comment: 'The context given to the answer.',
        });
        if (env.injecting('retrieval') && target) env.faultOpId = op.opId;
        env.log({
          opId: op.opId,
          kind: 'retrieval',
          questionId: q.id,
          inStore,
          inContext: q.evidence.filter((e) => items[0].sources.includes(e)),
        });
        return { items, variable };
      },
    );
  }
}
