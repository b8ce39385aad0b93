/**
 * Naive RAG: messages formatted "timestamp | speaker: text" accumulate in a buffer; past
 * ~1,200 tokens the buffer is flushed as a chunk and indexed; a question takes the top-10
 * chunks. Offline mode ranks chunks by BM25 (no embedder).
 */

import { appendAll } from '../core/arrays.ts';
import type { TracedVar } from '../sdk/tracer.ts';
import { Provenance, type RunEnv } from './env.ts';
import { LexicalIndex } from './lexical.ts';
import { searchUnits } from './search.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import { countTokens } from './text.ts';
import type { ConversationSession, Question } from './types.ts';

interface Line {
  turn: string;
  text: string;
}

export interface RagOptions {
  bufferTokens?: number;
  topK?: number;
}

export class NaiveRag extends MemorySystem {
  readonly name = 'rag' as const;
  private readonly bufferTokens: number;
  private readonly topK: number;
  private buffer: Line[] = [];
  private bufferVar: TracedVar | null = null;
  private pendingMessages: TracedVar[] = [];
  private readonly chunks = new Map<string, { lines: Line[]; variable: TracedVar }>();
  private indexVar: TracedVar | null = null;
  private readonly index = new LexicalIndex<string>();
  private readonly prov = new Provenance();
  private nextChunk = 1;

  constructor(o: RagOptions = {}) {
    super();
    this.bufferTokens = o.bufferTokens ?? 1200;
    this.topK = o.topK ?? 10;
  }

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  private bufferValue(lines: Line[]): string[] {
    return lines.map((l) => l.text);
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const t = env.t;
    if (!this.bufferVar)
      this.bufferVar = t.variable([], {
        name: 'message-buffer',
        category: 'buffer',
        comment: 'Messages waiting to be chunked.',
      });
    for (const turn of session.turns) {
      const msg = env.message(turn, session);
      this.buffer.push({ turn: turn.id, text: `${session.dateTime} | ${turn.speaker}: ${turn.text}` });
      this.pendingMessages.push(msg);
      this.bufferVar = t.mutate(this.bufferVar, this.bufferValue(this.buffer), {
        name: 'rag.buffer_append',
        category: 'update',
        comment: 'Append the message to the buffer.',
        inputs: [msg],
      });
      if (countTokens(this.buffer.map((l) => l.text).join('\n')) >= this.bufferTokens) this.flush(env);
    }
  }

  override async beforeQuestions(env: RunEnv): Promise<void> {
    if (this.buffer.length) this.flush(env);
  }

  /** `rag.flush_chunk` (extraction): buffer → chunk; `rag.index_add` (update): chunk → index; buffer cleared. */
  private flush(env: RunEnv) {
    const t = env.t;
    const turns = this.buffer.map((l) => l.turn);
    let lines = this.buffer;
    const inject = env.injecting('extraction') && turns.some((x) => env.isEvidence(x));
    if (inject) lines = lines.filter((l) => !env.isEvidence(l.turn));
    if (env.ideal()) lines = this.buffer; // ideal extraction keeps every message
    const id = `chunk-${this.nextChunk++}`;
    const chunkVar = t.op(
      'rag.flush_chunk',
      { category: 'extraction', comment: 'Flush the buffer into one retrievable chunk.' },
      (op) => {
        op.input(this.bufferVar);
        const v = op.output(lines.map((l) => l.text).join('\n'), {
          name: id,
          category: 'memory_entry',
          comment: 'A chunk of the conversation.',
        });
        if (inject) env.faultOpId = op.opId;
        env.log({ opId: op.opId, kind: 'extraction', turns, carried: lines.map((l) => l.turn) });
        return v;
      },
    );
    this.chunks.set(id, { lines, variable: chunkVar });
    this.prov.set(
      id,
      lines.map((l) => l.turn),
    );
    this.index.set(id, lines.map((l) => l.text).join('\n'));
    this.indexVar ??= t.variable([], {
      name: 'chunk-index',
      category: 'memory_store',
      comment: 'Ids of the indexed chunks.',
    });
    this.indexVar = t.mutate(this.indexVar, [...this.chunks.keys()], {
      name: 'rag.index_add',
      category: 'update',
      comment: `Index ${id}.`,
      inputs: [chunkVar],
    });
    this.buffer = [];
    this.pendingMessages = [];
    if (this.bufferVar)
      this.bufferVar = t.mutate(this.bufferVar, [], {
        name: 'rag.buffer_clear',
        category: 'update',
        comment: 'Clear the buffer.',
      });
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    const t = env.t;
    const units = env.faultUnits(this.prov.unitsCarrying(env.evidence));
    if (units.length === 0 || !this.indexVar) return;
    if (kind === 'update') {
      for (const id of units) {
        const c = this.chunks.get(id)!;
        const kept = c.lines.filter((l) => !env.isEvidence(l.turn));
        const text = kept.map((l) => l.text).join('\n');
        c.variable = t.mutate(c.variable, text, {
          name: 'rag.chunk_rewrite',
          category: 'update',
          comment: `Rewrite ${id}.`,
        });
        const lost = this.prov.set(
          id,
          kept.map((l) => l.turn),
        );
        c.lines = kept;
        this.index.set(id, text);
        const opId = this.lastOpId(env);
        // Each rewritten chunk carried the evidence: the earliest rewrite is the decisive op.
        env.faultOpId ??= opId;
        env.log({ opId, kind: 'update', lost });
      }
      return;
    }
    const lost: string[] = [];
    for (const id of units) {
      appendAll(lost, this.prov.remove(id));
      this.chunks.delete(id);
      this.index.remove(id);
    }
    this.indexVar = t.mutate(this.indexVar, [...this.chunks.keys()], {
      name: 'rag.index_delete',
      category: 'deletion',
      comment: `Delete ${units.join(', ')} from the index.`,
    });
    const opId = this.lastOpId(env);
    env.faultOpId = opId;
    env.log({ opId, kind: 'deletion', lost });
  }

  private lastOpId(env: RunEnv): string {
    return env.t.lastOpId ?? '';
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
          const c = this.chunks.get(id)!;
          return {
            item: { text: c.lines.map((l) => l.text).join('\n'), sources: c.lines.map((l) => l.turn) },
            variable: c.variable,
          };
        },
      },
      { name: 'rag.search', noun: 'chunks', category: 'retrieved_chunks' },
    );
  }
}
