/**
 * Traces the npm `mem0ai` open-source `Memory` (2.4.x, the classic ADD/UPDATE/DELETE/NONE
 * design) without changing the user's code: `traceMem0(memory, tracer)` wraps the
 * instance's LLM, embedder and vector store (and `add`/`search` to see the messages and
 * questions), and records the paper's naming conventions:
 * - `add` messages → variables of category `message`;
 * - the fact-retrieval LLM call → op `fact-extraction` (extraction), prompt
 *   `fact-extraction-system-prompt`, facts out;
 * - per-fact store searches → op `memory-search` (retrieval) during `add`;
 * - the update LLM call → op `memory-update-decision` (llm_call), prompt
 *   `memory-update-decision-prompt`;
 * - vector-store insert / update / delete → ops `memory-update` (ADD, UPDATE) and
 *   `memory-delete` on one variable chain per memory id (a deleted memory's value is None);
 * - `search(query)` → a `query` variable and op `memory-search` with the memories it returned.
 * Structural types only: this file does not import mem0ai (which is Node-only).
 */
import type { JsonObject } from '../core/trace/index.ts';
import type { TracedVar, Tracer } from './tracer.ts';

/** A message as mem0ai's `add` and its LLM take it. */
export type Mem0Message = { role: string; content: string };
type Message = Mem0Message;
interface Mem0LLM {
  generateResponse(messages: Message[], responseFormat?: unknown, tools?: unknown): Promise<unknown>;
}
interface Mem0Embedder {
  embed(text: string): Promise<number[]>;
}
interface Mem0VectorStore {
  insert(vectors: number[][], ids: string[], payloads: Record<string, unknown>[]): Promise<void>;
  update(id: string, vector: number[], payload: Record<string, unknown>): Promise<void>;
  delete(id: string): Promise<void>;
  search(
    query: number[],
    limit?: number,
    filters?: unknown,
  ): Promise<{ id: string; payload: Record<string, unknown>; score?: number }[]>;
}
/** The parts of mem0ai's `Memory` the tracer touches. */
export interface Mem0MemoryLike {
  llm: Mem0LLM;
  embedder: Mem0Embedder;
  vectorStore?: Mem0VectorStore;
  add(messages: string | Message[], config: Record<string, unknown>): Promise<unknown>;
  search(query: string, config: Record<string, unknown>): Promise<unknown>;
}

export interface TraceMem0Options {
  /** Model name for `llm_model` metadata. */
  model?: string;
  /**
   * A variable the caller already traced for a message given to `add` (a data set turn, so
   * that evidence ids point at it); a new `message-N` variable when it returns undefined.
   */
  messageVariable?: (message: Message, index: number) => TracedVar | undefined;
  /** The same for the query given to `search`; a new `query-N` variable when undefined. */
  queryVariable?: (query: string) => TracedVar | undefined;
  /** Called with the `retrieved_memories` variable of every store search (during `add` and `search`). */
  onSearch?: (retrieved: TracedVar, phase: 'add' | 'search' | null) => void;
}

const FACT_PROMPT = /Personal Information Organizer|facts/i;
const UPDATE_PROMPT = /smart memory manager/i;

function parseJson(text: string): unknown {
  const m = /\{[\s\S]*\}/.exec(text.replace(/```(?:json)?/g, ''));
  if (!m) return undefined;
  try {
    return JSON.parse(m[0]);
  } catch {
    return undefined;
  }
}

/** Wraps `memory` in place (and returns it): every later `add` and `search` is traced into `tracer`. */
export function traceMem0<M extends object>(instance: M, tracer: Tracer, options: TraceMem0Options = {}): M {
  // mem0ai declares llm, embedder and vectorStore private; they are plain fields at run time.
  const memory = instance as unknown as Mem0MemoryLike;
  const meta: JsonObject = options.model ? { llm_model: options.model } : {};
  const units = new Map<string, TracedVar>();
  const embedded = new WeakMap<number[], string>();
  let phase: 'add' | 'search' | null = null;
  let messages: TracedVar[] = [];
  let facts: TracedVar | null = null;
  let found: TracedVar[] = [];
  let decision: TracedVar | null = null;
  let query: TracedVar | null = null;
  let nextMessage = 1;
  let nextQuery = 1;

  // LLM: fact extraction, update decision, or any other call.
  const llm = memory.llm;
  const generate = llm.generateResponse.bind(llm);
  llm.generateResponse = async (msgs: Message[], responseFormat?: unknown, tools?: unknown) => {
    const reply = await generate(msgs, responseFormat, tools);
    const text = typeof reply === 'string' ? reply : JSON.stringify(reply);
    const system = msgs.find((m) => m.role === 'system')?.content ?? '';
    const user = msgs
      .filter((m) => m.role !== 'system')
      .map((m) => m.content)
      .join('\n');
    if (phase === 'add' && system && FACT_PROMPT.test(system)) {
      const parsed = parseJson(text) as { facts?: unknown } | undefined;
      facts = tracer.op(
        'fact-extraction',
        { category: 'extraction', comment: 'Extract facts from the new messages.', metadata: meta },
        (op) => {
          for (const m of messages) op.input(m);
          op.input(system, { name: 'fact-extraction-system-prompt', category: 'prompt' });
          return op.output(Array.isArray(parsed?.facts) ? parsed.facts : text, {
            category: 'facts',
            comment: 'Facts extracted from the messages.',
          });
        },
      );
      found = [];
    } else if (phase === 'add' && UPDATE_PROMPT.test(user)) {
      const parsed = parseJson(text) as { memory?: unknown } | undefined;
      decision = tracer.op(
        'memory-update-decision',
        { category: 'llm_call', comment: 'Decide ADD / UPDATE / DELETE / NONE per fact.', metadata: meta },
        (op) => {
          if (facts) op.input(facts);
          for (const f of found) op.input(f);
          op.input(user, { name: 'memory-update-decision-prompt', category: 'prompt' });
          return op.output(Array.isArray(parsed?.memory) ? parsed.memory : text, {
            category: 'memory_decisions',
          });
        },
      );
    } else
      tracer.op('llm_call', { category: 'llm_call', metadata: meta }, (op) => {
        op.input(msgs.map((m) => ({ role: m.role, content: m.content })));
        op.output(text);
      });
    return reply;
  };

  // Embedder: remember which text each vector came from.
  const embedder = memory.embedder;
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (text: string) => {
    const v = await embed(text);
    if (Array.isArray(v)) embedded.set(v, text);
    return v;
  };

  const wrapStore = (store: Mem0VectorStore): Mem0VectorStore => {
    if ((store as { __memtrace?: boolean }).__memtrace) return store;
    const insert = store.insert.bind(store);
    const update = store.update.bind(store);
    const del = store.delete.bind(store);
    const search = store.search.bind(store);
    store.insert = async (vectors, ids, payloads) => {
      await insert(vectors, ids, payloads);
      ids.forEach((id, i) => {
        const data = String(payloads[i]?.data ?? '');
        const v = tracer.op(
          'memory-update',
          { category: 'update', comment: `ADD ${id}`, metadata: { ...meta, event: 'ADD', memory_id: id } },
          (op) => {
            if (decision) op.input(decision);
            else if (facts) op.input(facts);
            return op.output(data, { name: id, category: 'memory_entry', comment: 'A memory unit.' });
          },
        );
        units.set(id, v);
      });
    };
    store.update = async (id, vector, payload) => {
      await update(id, vector, payload);
      const before = units.get(id) ?? tracer.variable(null, { name: id, category: 'memory_entry' });
      units.set(
        id,
        tracer.mutate(before, String(payload.data ?? ''), {
          name: 'memory-update',
          category: 'update',
          comment: `UPDATE ${id}`,
          inputs: decision ? [decision] : [],
          metadata: { ...meta, event: 'UPDATE', memory_id: id },
        }),
      );
    };
    store.delete = async (id) => {
      await del(id);
      const before = units.get(id);
      if (!before) return;
      units.set(
        id,
        tracer.mutate(before, null, {
          name: 'memory-delete',
          category: 'deletion',
          comment: `DELETE ${id}`,
          inputs: decision ? [decision] : [],
          metadata: { ...meta, event: 'DELETE', memory_id: id },
        }),
      );
    };
    store.search = async (vector, limit, filters) => {
      const hits = await search(vector, limit, filters);
      const text = embedded.get(vector) ?? '';
      const hitVars = hits.map((h) => units.get(h.id)).filter((v): v is TracedVar => v !== undefined);
      const retrieved = tracer.op(
        'memory-search',
        {
          category: 'retrieval',
          comment: `Search the store (top ${limit ?? ''}).`,
          metadata: { top_k: limit ?? null },
        },
        (op) => {
          if (phase === 'search' && query) op.input(query);
          else op.input(text, { category: 'search_text' });
          for (const v of hitVars) op.input(v);
          return op.output(
            hits.map((h) => String(h.payload?.data ?? '')),
            { category: 'retrieved_memories', comment: 'Memories returned by the store.' },
          );
        },
      );
      options.onSearch?.(retrieved, phase);
      if (phase === 'add') for (const v of hitVars) if (!found.includes(v)) found.push(v);
      return hits;
    };
    (store as { __memtrace?: boolean }).__memtrace = true;
    return store;
  };

  // The store is created asynchronously by Memory; wrap it now or when it is assigned.
  let store = memory.vectorStore ? wrapStore(memory.vectorStore) : undefined;
  Object.defineProperty(memory, 'vectorStore', {
    configurable: true,
    enumerable: true,
    get: () => store,
    set: (s: Mem0VectorStore) => {
      store = wrapStore(s);
    },
  });

  const add = memory.add.bind(memory);
  memory.add = async (input, config) => {
    const list: Message[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    messages = list.map(
      (m, i) =>
        options.messageVariable?.(m, i) ??
        tracer.variable(JSON.stringify({ role: m.role, content: m.content }), {
          name: `message-${nextMessage++}`,
          category: 'message',
          comment: 'A message given to Memory.add.',
          metadata: { role: m.role },
        }),
    );
    facts = null;
    decision = null;
    found = [];
    phase = 'add';
    try {
      return await add(input, config);
    } finally {
      phase = null;
    }
  };
  const searchMemory = memory.search.bind(memory);
  memory.search = async (q, config) => {
    query =
      options.queryVariable?.(q) ??
      tracer.variable(q, {
        name: `query-${nextQuery++}`,
        className: 'query',
        category: 'message & query',
      });
    phase = 'search';
    try {
      return await searchMemory(q, config);
    } finally {
      phase = null;
    }
  };
  return instance;
}
