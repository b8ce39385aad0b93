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

/** What the wrappers of one traced `Memory` share: the tracer and the phase `add` / `search` is in. */
interface TraceState {
  tracer: Tracer;
  options: TraceMem0Options;
  meta: JsonObject;
  /** The latest variable of each memory id. */
  units: Map<string, TracedVar>;
  /** The text each embedded vector came from. */
  embedded: WeakMap<number[], string>;
  phase: 'add' | 'search' | null;
  messages: TracedVar[];
  facts: TracedVar | null;
  found: TracedVar[];
  decision: TracedVar | null;
  query: TracedVar | null;
  nextMessage: number;
  nextQuery: number;
}

/** Wraps `memory` in place (and returns it): every later `add` and `search` is traced into `tracer`. */
export function traceMem0<M extends object>(instance: M, tracer: Tracer, options: TraceMem0Options = {}): M {
  // mem0ai declares llm, embedder and vectorStore private; they are plain fields at run time.
  const memory = instance as unknown as Mem0MemoryLike;
  const s: TraceState = {
    tracer,
    options,
    meta: options.model ? { llm_model: options.model } : {},
    units: new Map(),
    embedded: new WeakMap(),
    phase: null,
    messages: [],
    facts: null,
    found: [],
    decision: null,
    query: null,
    nextMessage: 1,
    nextQuery: 1,
  };
  wrapLlm(memory.llm, s);
  wrapEmbedder(memory.embedder, s);
  // The store is created asynchronously by Memory; wrap it now or when it is assigned.
  let store = memory.vectorStore ? wrapStore(memory.vectorStore, s) : undefined;
  Object.defineProperty(memory, 'vectorStore', {
    configurable: true,
    enumerable: true,
    get: () => store,
    set: (v: Mem0VectorStore) => {
      store = wrapStore(v, s);
    },
  });
  wrapAdd(memory, s);
  wrapSearch(memory, s);
  return instance;
}

/** LLM: fact extraction, update decision, or any other call. */
function wrapLlm(llm: Mem0LLM, s: TraceState) {
  const generate = llm.generateResponse.bind(llm);
  llm.generateResponse = async (msgs: Message[], responseFormat?: unknown, tools?: unknown) => {
    const reply = await generate(msgs, responseFormat, tools);
    const text = typeof reply === 'string' ? reply : JSON.stringify(reply);
    const system = msgs.find((m) => m.role === 'system')?.content ?? '';
    const user = msgs
      .filter((m) => m.role !== 'system')
      .map((m) => m.content)
      .join('\n');
    if (s.phase === 'add' && system && FACT_PROMPT.test(system)) traceFactExtraction(s, system, text);
    else if (s.phase === 'add' && UPDATE_PROMPT.test(user)) traceUpdateDecision(s, user, text);
    else
      s.tracer.op('llm_call', { category: 'llm_call', metadata: s.meta }, (op) => {
        op.input(msgs.map((m) => ({ role: m.role, content: m.content })));
        op.output(text);
      });
    return reply;
  };
}

function traceFactExtraction(s: TraceState, system: string, text: string) {
  const parsed = parseJson(text) as { facts?: unknown } | undefined;
  s.facts = s.tracer.op(
    'fact-extraction',
    { category: 'extraction', comment: 'Extract facts from the new messages.', metadata: s.meta },
    (op) => {
      for (const m of s.messages) op.input(m);
      op.input(system, { name: 'fact-extraction-system-prompt', category: 'prompt' });
      return op.output(Array.isArray(parsed?.facts) ? parsed.facts : text, {
        category: 'facts',
        comment: 'Facts extracted from the messages.',
      });
    },
  );
  s.found = [];
}

function traceUpdateDecision(s: TraceState, user: string, text: string) {
  const parsed = parseJson(text) as { memory?: unknown } | undefined;
  s.decision = s.tracer.op(
    'memory-update-decision',
    { category: 'llm_call', comment: 'Decide ADD / UPDATE / DELETE / NONE per fact.', metadata: s.meta },
    (op) => {
      if (s.facts) op.input(s.facts);
      for (const f of s.found) op.input(f);
      op.input(user, { name: 'memory-update-decision-prompt', category: 'prompt' });
      return op.output(Array.isArray(parsed?.memory) ? parsed.memory : text, {
        category: 'memory_decisions',
      });
    },
  );
}

/** Embedder: remember which text each vector came from. */
function wrapEmbedder(embedder: Mem0Embedder, s: TraceState) {
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (text: string) => {
    const v = await embed(text);
    if (Array.isArray(v)) s.embedded.set(v, text);
    return v;
  };
}

/** Vector store: writes become ops on each memory's variable chain, searches retrieval ops. */
function wrapStore(store: Mem0VectorStore, s: TraceState): Mem0VectorStore {
  if ((store as { __memtrace?: boolean }).__memtrace) return store;
  wrapStoreWrites(store, s);
  wrapStoreSearch(store, s);
  (store as { __memtrace?: boolean }).__memtrace = true;
  return store;
}

function wrapStoreWrites(store: Mem0VectorStore, s: TraceState) {
  const { tracer, meta, units } = s;
  const insert = store.insert.bind(store);
  const update = store.update.bind(store);
  const del = store.delete.bind(store);
  store.insert = async (vectors, ids, payloads) => {
    await insert(vectors, ids, payloads);
    ids.forEach((id, i) => {
      const data = String(payloads[i]?.data ?? '');
      const v = tracer.op(
        'memory-update',
        { category: 'update', comment: `ADD ${id}`, metadata: { ...meta, event: 'ADD', memory_id: id } },
        (op) => {
          if (s.decision) op.input(s.decision);
          else if (s.facts) op.input(s.facts);
          return op.output(data, { name: id, category: 'memory_entry', comment: 'A memory unit.' });
        },
      );
      units.set(id, v);
    });
  };
  store.update = async (id, vector, payload) => {
    await update(id, vector, payload);
    const before = units.get(id) ?? tracer.variable(null, { name: id, category: 'memory_entry' });
    mutateUnit(s, before, id, String(payload.data ?? ''));
  };
  store.delete = async (id) => {
    await del(id);
    const before = units.get(id);
    if (!before) return;
    mutateUnit(s, before, id, null);
  };
}

/** A new version of a memory's variable chain, made by the update decision: its new text (UPDATE) or None (DELETE). */
function mutateUnit(s: TraceState, before: TracedVar, id: string, value: string | null) {
  const event = value === null ? 'DELETE' : 'UPDATE';
  s.units.set(
    id,
    s.tracer.mutate(before, value, {
      name: value === null ? 'memory-delete' : 'memory-update',
      category: value === null ? 'deletion' : 'update',
      comment: `${event} ${id}`,
      inputs: s.decision ? [s.decision] : [],
      metadata: { ...s.meta, event, memory_id: id },
    }),
  );
}

function wrapStoreSearch(store: Mem0VectorStore, s: TraceState) {
  const search = store.search.bind(store);
  store.search = async (vector, limit, filters) => {
    const hits = await search(vector, limit, filters);
    const text = s.embedded.get(vector) ?? '';
    const hitVars = hits.map((h) => s.units.get(h.id)).filter((v): v is TracedVar => v !== undefined);
    const retrieved = s.tracer.op(
      'memory-search',
      {
        category: 'retrieval',
        comment: `Search the store (top ${limit ?? ''}).`,
        metadata: { top_k: limit ?? null },
      },
      (op) => {
        if (s.phase === 'search' && s.query) op.input(s.query);
        else op.input(text, { category: 'search_text' });
        for (const v of hitVars) op.input(v);
        return op.output(
          hits.map((h) => String(h.payload?.data ?? '')),
          { category: 'retrieved_memories', comment: 'Memories returned by the store.' },
        );
      },
    );
    s.options.onSearch?.(retrieved, s.phase);
    if (s.phase === 'add') for (const v of hitVars) if (!s.found.includes(v)) s.found.push(v);
    return hits;
  };
}

/** `add`: its messages become variables; the LLM and store calls it makes are read in the `add` phase. */
function wrapAdd(memory: Mem0MemoryLike, s: TraceState) {
  const add = memory.add.bind(memory);
  memory.add = async (input, config) => {
    const list: Message[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    s.messages = list.map(
      (m, i) =>
        s.options.messageVariable?.(m, i) ??
        s.tracer.variable(JSON.stringify({ role: m.role, content: m.content }), {
          name: `message-${s.nextMessage++}`,
          category: 'message',
          comment: 'A message given to Memory.add.',
          metadata: { role: m.role },
        }),
    );
    s.facts = null;
    s.decision = null;
    s.found = [];
    s.phase = 'add';
    try {
      return await add(input, config);
    } finally {
      s.phase = null;
    }
  };
}

/** `search`: its query becomes a variable, the input of the store search it makes. */
function wrapSearch(memory: Mem0MemoryLike, s: TraceState) {
  const searchMemory = memory.search.bind(memory);
  memory.search = async (q, config) => {
    s.query =
      s.options.queryVariable?.(q) ??
      s.tracer.variable(q, {
        name: `query-${s.nextQuery++}`,
        className: 'query',
        category: 'message & query',
      });
    s.phase = 'search';
    try {
      return await searchMemory(q, config);
    } finally {
      s.phase = null;
    }
  };
}
