/**
 * The retrieval service a worker exposes with comlink (workers/retrieval.worker.ts):
 * plain data in, plain data out; callbacks must be `Comlink.proxy(fn)` on the caller side.
 * Holds one trace, its index for one scope, and one embedder. Indexes are looked up in
 * an injected `IndexStore` (IndexedDB in the app) under a slot per trace/scope/model and
 * rebuilt when the stored key no longer matches the trace's documents or the model.
 */
import { listCases, type TraceCase } from '../cases/cases.ts';
import type { TraceGraph } from '../graph/graph.ts';
import { openTrace } from '../graph/open.ts';
import type { GpuProbe } from '../llm/webllm-models.ts';
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

/**
 * The retrieval worker's service (see the module comment): one open trace, its index and an embedder;
 * plain data in and out for comlink.
 */
export class RetrievalService {
  private graph: TraceGraph | null = null;
  private traceName = '';
  private corpus: Corpus | null = null;
  private index: RetrievalIndex | null = null;
  private embedder: Embedder | null = null;
  private abort: AbortController | null = null;

  constructor(
    private readonly deps: {
      store?: IndexStore;
      wasmPaths?: WasmPaths;
      gpu?: GpuProbe;
      /** A millisecond clock for `IndexInfo.ms` (the worker passes the real one; none: 0 ms). */
      now?: () => number;
    } = {},
  ) {}

  /** Cancels the running build or model load. */
  cancel(): void {
    this.abort?.abort(new Error('cancelled'));
  }

  private startTask(): AbortSignal {
    this.cancel();
    this.abort = new AbortController();
    return this.abort.signal;
  }

  embedderInfo(): EmbedderInfo {
    const e = this.embedder;
    if (!e) return { kind: 'none', id: null, label: 'none (BM25 only)', dims: 0 };
    return {
      kind: e.kind,
      id: e.id,
      label: e.label,
      dims: e.dims,
      ...(e instanceof TransformersEmbedder ? { device: e.device } : {}),
    };
  }

  async setEmbedding(
    setting: EmbeddingSetting,
    onProgress?: (p: ServiceProgress) => void,
  ): Promise<EmbedderInfo> {
    const signal = this.startTask();
    const previous = this.embedder;
    let next: Embedder | null;
    if (setting.kind === 'none') next = null;
    else if (setting.kind === 'fallback') next = new HashedNgramEmbedder();
    else {
      const location =
        setting.kind === 'served'
          ? servedModel(setting.baseUrl, setting.name)
          : setting.kind === 'folder'
            ? pickedFolderModel(setting.name, setting.files)
            : hubModel(setting.model);
      next = await TransformersEmbedder.load({
        location,
        dtype: setting.dtype,
        allowRemote: setting.kind === 'hub' && setting.allowRemote === true,
        wasmPaths: this.deps.wasmPaths,
        gpu: this.deps.gpu,
        signal,
        onLoadProgress: (p) => onProgress?.({ phase: 'load-model', ...p }),
      });
    }
    this.embedder = next;
    if (previous && previous !== next) await previous.dispose?.();
    // The dense half of the current index belongs to the old model.
    if (this.index && this.index.modelId !== (next?.id ?? null)) this.index = null;
    return this.embedderInfo();
  }

  /** Opens a trace (smartcomment JSON text). */
  async loadTrace(text: string, name: string): Promise<{ ok: boolean; issues: number; variables: number }> {
    const r = openTrace(text, { file: name });
    this.index = null;
    this.corpus = null;
    if (!r.ok) {
      this.graph = null;
      return { ok: false, issues: r.issues.length, variables: 0 };
    }
    this.graph = r.graph;
    this.traceName = name;
    return { ok: true, issues: r.issues.length, variables: r.graph.varId.length };
  }

  /** Builds (or loads from the store) the index of the open trace for a scope with the current embedder. */
  async buildIndex(scope: DocScope, onProgress?: (p: ServiceProgress) => void): Promise<IndexInfo> {
    if (!this.graph) throw new Error('no trace is open');
    const signal = this.startTask();
    const now = this.deps.now ?? (() => 0);
    const t0 = now();
    const corpus = corpusFromGraph(this.graph, scope);
    const modelId = this.embedder?.id ?? null;
    const key = indexKey(corpus, modelId);
    const slot = `${this.traceName}|${scope}|${modelId ?? 'bm25'}`;
    let index: RetrievalIndex | null = null;
    let fromStore = false;
    const stored = await this.deps.store?.get(slot);
    if (stored) {
      try {
        const candidate = RetrievalIndex.deserialize(stored);
        if (candidate.key === key) {
          index = candidate;
          fromStore = true;
        }
      } catch {
        // unreadable: rebuild
      }
    }
    if (!index) {
      index = await RetrievalIndex.build(corpus, { embedder: this.embedder, signal, onProgress });
      await this.deps.store?.put(slot, index.serialize());
    }
    this.corpus = corpus;
    this.index = index;
    return { key, scope, docs: corpus.ids.length, modelId, fromStore, ms: now() - t0 };
  }

  async search(query: string, options: { method?: SearchMethod; k?: number } = {}): Promise<ServiceHit[]> {
    const { index, corpus } = this;
    if (!index || !corpus) throw new Error('no index: call buildIndex first');
    const hits = await index.search(query, { ...options, embedder: this.embedder });
    return hits.map((h) => ({ ...h, preview: corpus.texts[h.doc].slice(0, 200) }));
  }

  /** Embeds texts with the current embedder (rows of `dims`). */
  async embed(texts: string[]): Promise<Float32Array> {
    if (!this.embedder) throw new Error('no embedder: choose one with setEmbedding');
    return this.embedder.embed(texts);
  }

  /** Failed questions of the open trace (for picking start points). */
  cases(): Pick<TraceCase, 'queryId' | 'question' | 'goldenAnswers' | 'evidenceIds'>[] {
    if (!this.graph) return [];
    return listCases(this.graph).map(({ queryId, question, goldenAnswers, evidenceIds }) => ({
      queryId,
      question,
      goldenAnswers,
      evidenceIds,
    }));
  }

  /** The paper's start points of one failed question (needs a `messages` index). */
  async startPoints(queryId: string, k = START_POINTS): Promise<ServiceHit[]> {
    if (!this.graph || !this.index) throw new Error('no index: call buildIndex("messages") first');
    if (this.index.scope !== 'messages') throw new Error('start points need the messages index');
    const c = listCases(this.graph, { includePassed: true }).find((x) => x.queryId === queryId);
    if (!c) throw new Error(`no question ${queryId} in this trace`);
    const method: SearchMethod = this.index.dense && this.embedder ? 'hybrid' : 'bm25';
    return this.search(startPointQuery(c.question, c.goldenAnswers), { method, k });
  }
}
