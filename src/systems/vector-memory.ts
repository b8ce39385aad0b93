/**
 * A vector-database memory the tracer does not see (written for the recorded-memories
 * benchmark): per message a `memorize` op writes each memory (the data set's recorded LLM
 * memories in the `recorded` mode) as a record variable `note-N`, upserted into an external
 * add-only vector database; a question's `vector-db.query` op reads only the query and the
 * collection's configuration and outputs the top-k records (hashed bag-of-words cosine). The
 * store is never an input of retrieval: what it held must be inferred from the writes.
 */
import type { TracedVar } from '../sdk/tracer.ts';
import { Provenance, type RunEnv } from './env.ts';
import { VectorIndex } from './lexical.ts';
import {
  capturedAt,
  injectUnitFaults,
  logExtraction,
  messageMemories,
  type PartsUnit,
  partsStore,
  unitText,
} from './recorded.ts';
import { searchUnits } from './search.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import type { ConversationSession, Question, RecordedMemory } from './types.ts';

interface Note extends PartsUnit {
  id: string;
  speaker: string;
  variable: TracedVar;
}

const record = (n: Note) => ({ memory: unitText(n), created_at: n.parts[0]?.date ?? '', speaker: n.speaker });

export class VectorMemory extends MemorySystem {
  readonly name = 'vector-store' as const;
  private readonly notes = new Map<string, Note>();
  private readonly vectors = new VectorIndex<string>();
  private readonly prov = new Provenance();
  private configVar: TracedVar | null = null;
  private nextId = 1;

  constructor(private readonly topK = 8) {
    super();
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  private put(env: RunEnv, n: Note): string[] {
    this.notes.set(n.id, n);
    this.vectors.set(n.id, unitText(n));
    return this.prov.set(n.id, env.kept(n.parts, n.sources));
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const t = env.t;
    const date = session.dateTime;
    const at = capturedAt(env, session);
    const written: RecordedMemory[] = [];
    for (const turn of session.turns) {
      const captured = session.turns.filter((x) => at.get(x.id) === turn.id);
      const { msg, memories, inject } = messageMemories(env, { turn, session, captured, written });
      t.op(
        'memorize',
        {
          category: 'extraction',
          comment: 'Write the memories of the message and upsert them into the vector database.',
          metadata: { llm_model: env.replay ? 'recorded' : env.modelName, collection: 'memories' },
        },
        (op) => {
          op.input(msg);
          op.input(env.prompt('fact-extraction-system-prompt'));
          for (const m of memories) {
            const n: Note = {
              id: `note-${this.nextId++}`,
              speaker: turn.speaker,
              parts: [{ text: m.text, date }],
              sources: [...m.sources],
              variable: msg,
            };
            n.variable = op.output(record(n), { name: n.id, category: 'memory_record' });
            this.put(env, n);
          }
          if (inject) env.faultOpId = op.opId;
          logExtraction(env, op.opId, captured, written, date);
        },
      );
    }
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    injectUnitFaults(env, kind, env.faultUnits(this.prov.unitsCarrying(env.evidence)), (id) => {
      const n = this.notes.get(id);
      if (!n) return false;
      if (kind === 'deletion') {
        n.variable = env.t.mutate(n.variable, null, {
          name: 'vector-db.delete',
          category: 'deletion',
          comment: `Delete ${id} from the collection.`,
        });
        this.notes.delete(id);
        this.vectors.remove(id);
        env.log({ opId: env.t.lastOpId ?? '', kind: 'deletion', lost: this.prov.remove(id) });
      } else {
        n.parts = [{ text: `${n.speaker} mentioned something in passing.`, date: n.parts[0]?.date ?? '' }];
        n.variable = env.t.mutate(n.variable, record(n), {
          name: 'vector-db.upsert',
          category: 'update',
          comment: `Upsert ${id}.`,
        });
        env.log({ opId: env.t.lastOpId ?? '', kind: 'update', lost: this.put(env, n) });
      }
      return true;
    });
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    this.configVar ??= env.t.variable(
      { collection: 'memories', top_k: this.topK, metric: 'cosine' },
      { name: 'vector-db-config', category: 'config' },
    );
    return searchUnits(env, q, queryVar, partsStore(this.notes, this.vectors, this.prov, this.topK), {
      name: 'vector-db.query',
      noun: 'memories',
      category: 'retrieved_memories',
      untracedStore: { config: this.configVar },
    });
  }
}
