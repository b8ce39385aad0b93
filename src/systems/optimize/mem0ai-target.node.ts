/**
 * The loop's target over the real mem0ai `Memory` (npm `mem0ai` 2.4, open-source, the
 * classic ADD / UPDATE / DELETE / NONE design), traced by the SDK wrapper (src/sdk/mem0ai.ts).
 * Its prompts are mem0ai's own config fields: the registry name the wrapper gives the
 * fact-extraction system prompt, `fact-extraction-system-prompt`, is mem0ai's `customPrompt`.
 * mem0ai 2.4 writes its update-decision prompt in code (no config field), so failures behind
 * `memory-update-decision-prompt` are counted by the loop as behind a prompt it may not change.
 *
 * A run: a fresh `Memory` per conversation (mem0ai's own SQLite vector store in memory, via
 * better-sqlite3), every turn `add`ed as `Speaker: text` with its session date as metadata (as
 * mem0's LoCoMo evaluation does), questions answered from `search` (top 10, dates shown) by the
 * reference question flow (answer op, judge). mem0ai's LLM calls go through the loop's QA model
 * (metered, budgeted, cached); its embedder is the model-free hashed n-gram fallback unless one
 * is given. Node only: mem0ai is loaded on the first run.
 */
import { register } from 'node:module';
import { type Embedder, HashedNgramEmbedder } from '../../core/retrieval/index.ts';
import { type Mem0MemoryLike, type Mem0Message, traceMem0 } from '../../sdk/mem0ai.ts';
import { type TracedVar, Tracer } from '../../sdk/tracer.ts';
import type { RunEnv } from '../env.ts';
import type { SystemMessage } from '../llm.ts';
import { DEFAULT_PROMPTS, type PromptRegistry } from '../prompts.ts';
import { MemorySystem, type Retrieved } from '../system.ts';
import type { ConversationSession, Question } from '../types.ts';
import { type OptimizeTarget, runTraced } from './target.ts';

/** Registry name → the mem0ai `Memory` config field that holds it. */
const MEM0AI_PROMPT_FIELDS = { 'fact-extraction-system-prompt': 'customPrompt' } as const;

/**
 * Vendor SDKs mem0ai 2.4 imports when it loads (it lists them as required peers) and that this
 * target never calls, with the exports it reads from each: `fn` a function, an object its properties.
 */
export const MEM0AI_UNUSED_PEERS: Record<string, Record<string, 'fn' | Record<string, 'fn'>>> = {
  ollama: { Ollama: 'fn' },
  '@anthropic-ai/sdk': { default: 'fn' },
  'groq-sdk': { Groq: 'fn' },
  '@mistralai/mistralai': { Mistral: 'fn' },
  '@qdrant/js-client-rest': { QdrantClient: 'fn' },
  cloudflare: { default: 'fn' },
  redis: { createClient: 'fn' },
  '@supabase/supabase-js': { createClient: 'fn' },
  '@google/genai': { GoogleGenAI: 'fn' },
  '@langchain/core/documents': { Document: 'fn' },
  '@langchain/core/messages': { AIMessage: 'fn', HumanMessage: 'fn', SystemMessage: 'fn' },
  '@azure/search-documents': { SearchClient: 'fn', SearchIndexClient: 'fn', AzureKeyCredential: 'fn' },
  '@azure/identity': { DefaultAzureCredential: 'fn' },
  pg: { default: { Client: 'fn', Pool: 'fn' } },
  'neo4j-driver': { default: { driver: 'fn' } },
};

/**
 * A Node resolve hook: a listed peer that mem0ai imports and that is not installed resolves to
 * a module whose exports throw when called; installed peers, and every other import, resolve as usual.
 */
const PEER_HOOK = `
const PEERS = ${JSON.stringify(MEM0AI_UNUSED_PEERS)};
const source = (name, exports) => {
  const fail = 'function () { throw new Error(' + JSON.stringify(name + ' is not installed: mem0ai imports it, memtrace does not use it') + '); }';
  const value = (v) => (v === 'fn' ? fail : '{' + Object.keys(v).map((k) => JSON.stringify(k) + ': ' + fail).join(', ') + '}');
  return Object.entries(exports)
    .map(([k, v]) => (k === 'default' ? 'export default ' + value(v) + ';' : 'export const ' + k + ' = ' + value(v) + ';'))
    .join('\\n');
};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    const exports = Object.hasOwn(PEERS, specifier) ? PEERS[specifier] : undefined;
    if (!exports || e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(context.parentURL).includes('/mem0ai/')) throw e;
    return { url: 'data:text/javascript,' + encodeURIComponent(source(specifier, exports)), format: 'module', shortCircuit: true };
  }
}
`;

interface Mem0aiModule {
  Memory: new (config: Record<string, unknown>) => object;
}

let loaded: Promise<Mem0aiModule> | null = null;

/** The optional dependencies `--system mem0ai` needs (package.json `optionalDependencies`). */
const MEM0AI_PACKAGES = ['mem0ai', 'better-sqlite3'] as const;

/**
 * Why mem0ai could not be loaded, in one line: a missing optional package is named with the
 * command that installs it; any other failure keeps the first line of its own message.
 */
export function mem0aiLoadError(e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e);
  const missing = MEM0AI_PACKAGES.find(
    (p) =>
      (e as { code?: string })?.code === 'ERR_MODULE_NOT_FOUND' &&
      (message.includes(`'${p}'`) || message.includes(`'${p}/`)),
  );
  return new Error(
    missing
      ? `${missing} is not installed (an optional dependency, needed only for mem0ai): run npm install ${MEM0AI_PACKAGES.join(' ')}`
      : `mem0ai could not be loaded: ${message.split('\n')[0]}`,
  );
}

/**
 * mem0ai/oss, loaded once; its telemetry (events to PostHog) is switched off first: traces stay
 * on the machine. Rejects with {@link mem0aiLoadError}'s one line when it cannot be loaded.
 */
export function loadMem0ai(): Promise<Mem0aiModule> {
  loaded ??= (async () => {
    process.env.MEM0_TELEMETRY = 'false';
    register(`data:text/javascript,${encodeURIComponent(PEER_HOOK)}`);
    try {
      return (await import('mem0ai/oss')) as unknown as Mem0aiModule;
    } catch (e) {
      loaded = null;
      throw mem0aiLoadError(e);
    }
  })();
  return loaded;
}

interface Mem0aiTargetOptions {
  /** The embedder mem0ai stores and searches with (default: the model-free hashed n-gram fallback). */
  embedder?: Embedder;
  /** Memories per question (mem0ai `search` limit; default 10, as the reference Mem0). */
  topK?: number;
}

/** A search hit as mem0ai 2.4 returns it. */
interface Mem0Hit {
  memory?: unknown;
  metadata?: { timestamp?: unknown } | null;
}

/** mem0ai's `Memory` behind the reference question flow: `add` per turn, `search` per question. */
class Mem0aiSystem extends MemorySystem {
  readonly name = 'mem0ai' as const;
  private env: RunEnv | null = null;
  /** The variables the wrapper's hooks hand over while `add` or `search` runs. */
  private pendingMessage: TracedVar | null = null;
  private query: TracedVar | null = null;
  private retrieved: TracedVar | null = null;

  constructor(
    private readonly memory: Mem0MemoryLike,
    private readonly userId: string,
    private readonly topK: number,
  ) {
    super();
  }

  /** mem0ai's LLM: every call goes through the run's model (counted, and metered by the loop). */
  generateResponse = async (messages: Mem0Message[], responseFormat?: unknown): Promise<string> => {
    const llm = this.env?.llm;
    if (!llm) throw new Error('the mem0ai target runs in LLM mode only');
    const r = await llm.complete({
      messages: messages.map((m) => ({ role: m.role as SystemMessage['role'], content: m.content })),
      temperature: 0,
      ...(responseFormat ? { responseFormat: { type: 'json' as const } } : {}),
    });
    return r.text;
  };

  /** The wrapper's hooks: the data set's message and query variables, and the search result's variable. */
  messageVariable = (): TracedVar | undefined => this.pendingMessage ?? undefined;
  queryVariable = (): TracedVar | undefined => this.query ?? undefined;
  onSearch = (v: TracedVar, phase: 'add' | 'search' | null) => {
    if (phase === 'search') this.retrieved = v;
  };

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    this.env = env;
    for (const turn of session.turns) {
      this.pendingMessage = env.message(turn, session);
      try {
        await this.memory.add([{ role: 'user', content: `${turn.speaker}: ${turn.text}` }], {
          userId: this.userId,
          metadata: { timestamp: session.dateTime },
        });
      } finally {
        this.pendingMessage = null;
      }
    }
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    this.env = env;
    this.query = queryVar;
    this.retrieved = null;
    let found: unknown;
    try {
      found = await this.memory.search(q.question, { userId: this.userId, limit: this.topK });
    } finally {
      this.query = null;
    }
    const hits = ((found as { results?: Mem0Hit[] } | null)?.results ?? []).filter(
      (h) => typeof h.memory === 'string',
    );
    if (!this.retrieved) throw new Error('mem0ai search did not reach its vector store');
    return {
      // The dates the memories were said on, as mem0's LoCoMo evaluation shows them to the answer.
      items: hits.map((h) => ({
        text:
          typeof h.metadata?.timestamp === 'string'
            ? `${h.metadata.timestamp}: ${h.memory}`
            : String(h.memory),
        sources: [],
      })),
      variable: this.retrieved,
    };
  }

  injectStoreFault(): void {
    throw new Error('fault injection is not available for mem0ai');
  }

  carriedTurns(): Set<string> {
    return new Set();
  }
}

/** The mem0ai wrapper as a target of the loop (see the module comment). */
export function mem0aiTarget(options: Mem0aiTargetOptions = {}): OptimizeTarget {
  const prompts: PromptRegistry = Object.fromEntries(
    Object.keys(MEM0AI_PROMPT_FIELDS).map((n) => [n, DEFAULT_PROMPTS[n]]),
  );
  return {
    name: 'mem0ai',
    prompts,
    async run(conv, o) {
      const { Memory } = await loadMem0ai();
      const embedder = options.embedder ?? new HashedNgramEmbedder();
      const config: Record<string, unknown> = {
        disableHistory: true,
        // mem0ai builds these clients at construction; the LLM and embedder are replaced below.
        embedder: { provider: 'openai', config: { apiKey: 'unused', embeddingDims: embedder.dims } },
        llm: { provider: 'openai', config: { apiKey: 'unused' } },
        vectorStore: {
          provider: 'memory',
          config: { collectionName: 'memtrace', dimension: embedder.dims, dbPath: ':memory:' },
        },
      };
      for (const [name, field] of Object.entries(MEM0AI_PROMPT_FIELDS)) config[field] = o.prompts[name];
      const real = new Memory(config);
      // mem0ai declares llm and embedder private; they are plain fields at run time.
      const memory = real as unknown as Mem0MemoryLike;
      const system = new Mem0aiSystem(memory, conv.id, options.topK ?? 10);
      memory.llm = { generateResponse: system.generateResponse };
      memory.embedder = {
        embed: async (text: string) => Array.from(await embedder.embed([text])),
        embedBatch: async (texts: string[]) => {
          const rows = await embedder.embed(texts);
          return texts.map((_, i) => Array.from(rows.subarray(i * embedder.dims, (i + 1) * embedder.dims)));
        },
      } as Mem0MemoryLike['embedder'];
      const tracer = new Tracer({
        filename: 'memtrace-mem0ai',
        metadata: {
          system: 'mem0',
          memory_system: 'mem0ai',
          conversation: conv.id,
          mode: 'llm',
          llm_model: o.qa.model,
          embedder: embedder.label,
        },
      });
      traceMem0(real, tracer, {
        model: o.qa.model,
        messageVariable: system.messageVariable,
        queryVariable: system.queryVariable,
        onSearch: system.onSearch,
      });
      return runTraced(system, conv, tracer, o);
    },
  };
}
