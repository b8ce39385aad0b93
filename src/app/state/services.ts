/**
 * The app's connections: the database (read side) and the workers (comlink proxies). The
 * systems worker (reference memory systems) starts on first use.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import {
  type AnalysisApi,
  type ImportApi,
  type SystemsApi,
  WORD_VECTORS_PATH,
} from '../../../workers/api.ts';
import type { MemtraceDb } from '../../db/schema.ts';
import { openDb } from '../../db/schema.ts';

export interface Services {
  db: MemtraceDb;
  importer: Comlink.Remote<ImportApi>;
  analysis: Comlink.Remote<AnalysisApi>;
  /** Runs reference memory systems offline and stores their traces (started on first use). */
  readonly systems: Comlink.Remote<SystemsApi>;
  dispose(): void;
}

export function createServices(): Services {
  const importWorker = new Worker(new URL('../../../workers/import.worker.ts', import.meta.url), {
    type: 'module',
    name: 'import',
  });
  const analysisWorker = new Worker(new URL('../../../workers/analysis.worker.ts', import.meta.url), {
    type: 'module',
    name: 'analysis',
  });
  const db = openDb();
  const analysis = Comlink.wrap<AnalysisApi>(analysisWorker);
  // The evidence-flow matcher's word vectors, served by the app next to index.html.
  void analysis.setWordVectors(new URL(WORD_VECTORS_PATH, document.baseURI).href);
  let systemsWorker: Worker | null = null;
  let systems: Comlink.Remote<SystemsApi> | null = null;
  return {
    db,
    importer: Comlink.wrap<ImportApi>(importWorker),
    analysis,
    get systems() {
      if (!systems) {
        systemsWorker = new Worker(new URL('../../../workers/systems.worker.ts', import.meta.url), {
          type: 'module',
          name: 'systems',
        });
        systems = Comlink.wrap<SystemsApi>(systemsWorker);
      }
      return systems;
    },
    dispose() {
      importWorker.terminate();
      analysisWorker.terminate();
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
