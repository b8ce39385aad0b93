/**
 * Ranked retrieval split by who owns what: `EmbedderHost` holds one embedder (texts in,
 * vectors out: the embedder worker), `TraceRetrieval` holds one trace's index for one scope
 * (the trace engine, next to the graph it indexes). Indexes are looked up in an injected
 * `IndexStore` (IndexedDB in the app) under a slot per trace/scope/model and rebuilt when the
 * stored key no longer matches the trace's documents or the model.
 */
import { listCases, type TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import type { GpuProbe } from '../llm/index.ts';
import { type Corpus, corpusFromGraph, type DocScope, indexKey } from './corpus.ts';
import type { Embedder } from './embedder.ts';
import { HashedNgramEmbedder } from './hashed.ts';
import { type BuildProgress, RetrievalIndex, type SearchHit, type SearchMethod } from './retrieval-index.ts';
import { START_POINTS, startPointQuery } from './startpoints.ts';
import {
  type Dtype,
  type LoadProgress,
  type ModelLocation,
  pickedFolderModel,
  servedModel,
  TransformersEmbedder,
  type WasmPaths,
} from './transformers.ts';

/**
 * Which embedder the retrieval service uses: none (BM25 only), the fallback, or a transformers.js model
 * from the app, a picked folder or (only when allowed) the hub.
 */
export type EmbeddingSetting =
  /** BM25 only. */
  | { kind: 'none' }
  /** Hashed character n-grams: deterministic, model-free, not a neural model. */
  | { kind: 'fallback' }
  /** Model files served by the app: `${baseUrl}/${name}/config.json`, … */
  | { kind: 'served'; name: string; baseUrl: string; dtype?: Dtype }
  /** A folder the user picked: relative path → file. */
  | { kind: 'folder'; name: string; files: Map<string, Blob>; dtype?: Dtype }
  /** The Hugging Face hub — only when the user explicitly allowed downloads. */
  | { kind: 'hub'; model: string; dtype?: Dtype; allowRemote: true };

/** The embedder in use, as the UI shows it: kind, id, label, width and device. */
export interface EmbedderInfo {
  kind: 'none' | 'fallback' | 'transformers';
  id: string | null;
  /** What is in use, as people should read it. */
  label: string;
  dims: number;
  device?: string;
}

/** Where serialised indexes are kept between sessions, one per slot (IndexedDB in the app). */
export interface IndexStore {
  get(slot: string): Promise<Uint8Array | undefined>;
  put(slot: string, bytes: Uint8Array): Promise<void>;
}

/**
 * The index the service built or loaded: its key, scope, size, model, whether it came from the store, and
 * how long it took.
 */
export interface IndexInfo {
  key: string;
  scope: DocScope;
  docs: number;
  modelId: string | null;
  fromStore: boolean;
  ms: number;
}

/** A search hit with a preview of the document's text. */
export interface ServiceHit extends SearchHit {
  /** The first 200 characters of the document's text. */
  preview: string;
}

/** Progress of `buildIndex`: index building, or loading the model. */
export type ServiceProgress = BuildProgress | ({ phase: 'load-model' } & LoadProgress);

function hubModel(model: string): ModelLocation {
  const base = `https://huggingface.co/${model}/resolve/main`;
  return {
    name: model,
    model,
    localModelPath: '/models/',
    async readText(path) {
      const r = await fetch(`${base}/${path}`);
      return r.ok ? r.text() : null;
    },
  };
}

/** One embedder chosen by setting (none, the fallback, or a transformers.js model); the embedder worker's state. */
export class EmbedderHost {
  #embedder: Embedder | null = null;

  constructor(private readonly deps: { wasmPaths?: WasmPaths; gpu?: GpuProbe } = {}) {}

  /** The embedder in use (null: BM25 only). */
  get embedder(): Embedder | null {
    return this.#embedder;
  }

  embedderInfo(): EmbedderInfo {
    return infoOf(this.#embedder);
  }

  /**
   * Switches the embedder (the previous one is freed). A model still loading stops when
   * `signal` aborts (the embedder in use stays); the page aborts the older of two loads.
   */
  async setEmbedding(
    setting: EmbeddingSetting,
    onProgress?: (p: ServiceProgress) => void,
    signal?: AbortSignal,
  ): Promise<EmbedderInfo> {
    const previous = this.#embedder;
    const next = await this.#load(setting, signal, onProgress);
    this.#embedder = next;
    if (previous && previous !== next) await previous.dispose?.();
    return this.embedderInfo();
  }

  async #load(
    setting: EmbeddingSetting,
    signal: AbortSignal | undefined,
    onProgress?: (p: ServiceProgress) => void,
  ): Promise<Embedder | null> {
    if (setting.kind === 'none') return null;
    if (setting.kind === 'fallback') return new HashedNgramEmbedder();
    const location =
      setting.kind === 'served'
        ? servedModel(setting.baseUrl, setting.name)
        : setting.kind === 'folder'
          ? pickedFolderModel(setting.name, setting.files)
          : hubModel(setting.model);
    return TransformersEmbedder.load({
      location,
      dtype: setting.dtype,
      allowRemote: setting.kind === 'hub' && setting.allowRemote === true,
      wasmPaths: this.deps.wasmPaths,
      gpu: this.deps.gpu,
      signal,
      onLoadProgress: (p) => onProgress?.({ phase: 'load-model', ...p }),
    });
  }

  /** Embeds texts with the current embedder (rows of `dims`). */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    if (!this.#embedder) throw new Error('no embedder: choose one with setEmbedding');
    return this.#embedder.embed(texts, { signal });
  }
}

/** What people see of an embedder (none: BM25 only). */
export function infoOf(e: Embedder | null): EmbedderInfo {
  if (!e) return { kind: 'none', id: null, label: 'none (BM25 only)', dims: 0 };
  return {
    kind: e.kind,
    id: e.id,
    label: e.label,
    dims: e.dims,
    ...(e instanceof TransformersEmbedder ? { device: e.device } : {}),
  };
}

/**
 * One trace's ranked retrieval: the index of one scope built with one embedder (rebuilt when
 * either changes), its search and the paper's start points. Holds the graph it was given,
 * never a copy.
 */
export class TraceRetrieval {
  #corpus: Corpus | null = null;
  #index: RetrievalIndex | null = null;

  constructor(
    private readonly graph: TraceGraph,
    /** The index slot's trace part (the graph_id in the app, so a stored index is found after a reload). */
    private readonly name: string,
    private readonly deps: {
      store?: IndexStore;
      /** A millisecond clock for `IndexInfo.ms` (none: 0 ms). */
      now?: () => number;
    } = {},
  ) {}

  /** Builds (or loads from the store) the index for a scope with this embedder. */
  async buildIndex(
    scope: DocScope,
    embedder: Embedder | null,
    options: { signal?: AbortSignal; onProgress?: (p: ServiceProgress) => void } = {},
  ): Promise<IndexInfo> {
    const now = this.deps.now ?? (() => 0);
    const t0 = now();
    const corpus = corpusFromGraph(this.graph, scope);
    const modelId = embedder?.id ?? null;
    const key = indexKey(corpus, modelId);
    const slot = `${this.name}|${scope}|${modelId ?? 'bm25'}`;
    let index = await this.#stored(slot, key);
    const fromStore = index !== null;
    if (!index) {
      index = await RetrievalIndex.build(corpus, { embedder, ...options });
      await this.deps.store?.put(slot, index.serialize());
    }
    this.#corpus = corpus;
    this.#index = index;
    return { key, scope, docs: corpus.ids.length, modelId, fromStore, ms: now() - t0 };
  }

  /** The stored index of a slot when it still matches `key`. */
  async #stored(slot: string, key: string): Promise<RetrievalIndex | null> {
    const stored = await this.deps.store?.get(slot);
    if (!stored) return null;
    try {
      const candidate = RetrievalIndex.deserialize(stored);
      return candidate.key === key ? candidate : null;
    } catch {
      return null; // unreadable: rebuild
    }
  }

  /** The scope and model of the index built last (null before any). */
  get built(): { scope: DocScope; modelId: string | null } | null {
    return this.#index ? { scope: this.#index.scope, modelId: this.#index.modelId } : null;
  }

  async search(
    query: string,
    options: { method?: SearchMethod; k?: number; embedder?: Embedder | null; signal?: AbortSignal } = {},
  ): Promise<ServiceHit[]> {
    const index = this.#index;
    const corpus = this.#corpus;
    if (!index || !corpus) throw new Error('no index: call buildIndex first');
    const hits = await index.search(query, options);
    return hits.map((h) => ({ ...h, preview: corpus.texts[h.doc].slice(0, 200) }));
  }

  /** Failed questions of the trace (for picking start points). */
  cases(): Pick<TraceCase, 'queryId' | 'question' | 'goldenAnswers' | 'evidenceIds'>[] {
    return listCases(this.graph).map(({ queryId, question, goldenAnswers, evidenceIds }) => ({
      queryId,
      question,
      goldenAnswers,
      evidenceIds,
    }));
  }

  /** The paper's start points of one question (needs a `messages` index; hybrid when it has vectors). */
  async startPoints(queryId: string, embedder: Embedder | null, k = START_POINTS): Promise<ServiceHit[]> {
    const index = this.#index;
    if (!index) throw new Error('no index: call buildIndex("messages") first');
    if (index.scope !== 'messages') throw new Error('start points need the messages index');
    const c = listCases(this.graph, { includePassed: true }).find((x) => x.queryId === queryId);
    if (!c) throw new Error(`no question ${queryId} in this trace`);
    const method: SearchMethod = index.dense && embedder ? 'hybrid' : 'bm25';
    return this.search(startPointQuery(c.question, c.goldenAnswers), { method, k, embedder });
  }
}
