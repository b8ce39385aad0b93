/**
 * The app's connections: the database (read side) and the workers (comlink proxies). The
 * engine worker imports files and keeps each open trace's graph, indexes and analyses; the
 * embedder worker (texts in, vectors out) starts on the first ranked search and talks to the
 * engine over its own port; the systems worker (reference memory systems) starts on first use and
 * hands its writes to the engine over another (the engine worker is the database's one writer; the
 * page's connection reads).
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import {
  type EmbedderApi,
  type EngineApi,
  type SystemsApi,
  WORD_VECTORS_PATH,
} from '../../../workers/api.ts';
import type { CacheStore } from '../../core/llm/index.ts';
import type { MemtraceDb } from '../../db/schema.ts';
import { openDb } from '../../db/schema.ts';

export interface Services {
  db: MemtraceDb;
  /** The engine worker: one engine per open trace. */
  engine: Comlink.Remote<EngineApi>;
  /** The engine, under the name the views ask it by (their questions are analyses). */
  analysis: Comlink.Remote<EngineApi>;
  /** The embedder worker, connected to the engine (started on first use). */
  readonly embedder: Comlink.Remote<EmbedderApi>;
  /** Runs reference memory systems offline and stores their traces (started on first use). */
  readonly systems: Comlink.Remote<SystemsApi>;
  /** The LLM response cache, kept by the engine (the one writer of the app's databases). */
  llmCache: CacheStore;
  /**
   * Starts downloading the matcher's word vectors on the page's thread (once) and hands their
   * body to the engine: the 11 MB arrive while the engine worker is still starting up.
   */
  downloadWordVectors(): void;
  dispose(): void;
}

/**
 * A file's body, downloaded whole on the page's thread (natively, into one buffer) and given as
 * one chunk: the engine reads it at once however busy it was meanwhile.
 */
function download(url: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(c) {
      try {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        c.enqueue(new Uint8Array(await res.arrayBuffer()));
        c.close();
      } catch (e) {
        c.error(e);
      }
    },
  });
}

export function createServices(): Services {
  const engineWorker = new Worker(new URL('../../../workers/engine.worker.ts', import.meta.url), {
    type: 'module',
    name: 'engine',
  });
  const db = openDb();
  const engine = Comlink.wrap<EngineApi>(engineWorker);
  // The evidence-flow matcher's word vectors, served by the app next to index.html.
  const vectorsUrl = new URL(WORD_VECTORS_PATH, document.baseURI).href;
  void engine.setWordVectors(vectorsUrl);
  let vectorsAsked = false;
  let systemsWorker: Worker | null = null;
  let systems: Comlink.Remote<SystemsApi> | null = null;
  let embedderWorker: Worker | null = null;
  let embedder: Comlink.Remote<EmbedderApi> | null = null;
  return {
    db,
    engine,
    analysis: engine,
    llmCache: {
      get: (key) => engine.llmCacheGet(key),
      set: (key, entry) => engine.llmCacheSet(key, entry),
      size: () => engine.llmCacheSize(),
      clear: () => engine.llmCacheClear(),
    },
    get embedder() {
      if (!embedder) {
        embedderWorker = new Worker(new URL('../../../workers/embedder.worker.ts', import.meta.url), {
          type: 'module',
          name: 'embedder',
        });
        embedder = Comlink.wrap<EmbedderApi>(embedderWorker);
        const { port1, port2 } = new MessageChannel();
        void embedder.connect(Comlink.transfer(port1, [port1]));
        void engine.connectEmbedder(Comlink.transfer(port2, [port2]));
      }
      return embedder;
    },
    get systems() {
      if (!systems) {
        systemsWorker = new Worker(new URL('../../../workers/systems.worker.ts', import.meta.url), {
          type: 'module',
          name: 'systems',
        });
        systems = Comlink.wrap<SystemsApi>(systemsWorker);
        // It writes no database: the engine stores its runs, over a port of their own.
        const { port1, port2 } = new MessageChannel();
        void systems.connectEngine(Comlink.transfer(port1, [port1]));
        void engine.connectSystems(Comlink.transfer(port2, [port2]));
      }
      return systems;
    },
    downloadWordVectors() {
      if (vectorsAsked) return;
      vectorsAsked = true;
      const body = download(vectorsUrl);
      void engine.setWordVectors(vectorsUrl, Comlink.transfer(body, [body]));
    },
    dispose() {
      engineWorker.terminate();
      embedderWorker?.terminate();
      systemsWorker?.terminate();
      db.close();
    },
  };
}

const KEY = Symbol('services');
export function setupServices(s: Services): Services {
  return setContext(KEY, s);
}
export function useServices(): Services {
  return getContext<Services>(KEY);
}
