/** The app's connections: the database (read side) and the two workers (comlink proxies). */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type { AnalysisApi, ImportApi } from '../../../workers/api.ts';
import type { MemtraceDb } from '../../db/schema.ts';
import { openDb } from '../../db/schema.ts';

export interface Services {
  db: MemtraceDb;
  importer: Comlink.Remote<ImportApi>;
  analysis: Comlink.Remote<AnalysisApi>;
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
  return {
    db,
    importer: Comlink.wrap<ImportApi>(importWorker),
    analysis: Comlink.wrap<AnalysisApi>(analysisWorker),
    dispose() {
      importWorker.terminate();
      analysisWorker.terminate();
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
