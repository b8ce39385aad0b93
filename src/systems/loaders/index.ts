/** Data set loaders: JSON (already parsed) in, conversations out. */
import type { Conversation, DatasetName } from '../types.ts';
import { loadLocomo, locomoIdFromPath } from './locomo.ts';
import { loadLongMemEval } from './longmemeval.ts';
import { loadRealmem } from './realmem.ts';

export * from './locomo.ts';
export * from './longmemeval.ts';
export * from './realmem.ts';

export const DATASETS: readonly DatasetName[] = ['locomo', 'realmem', 'longmemeval'];

/** Loads a data set file's parsed JSON; `path` names flattened LoCoMo files and RealMem personas. */
export function loadDataset(name: DatasetName, data: unknown, path = ''): Conversation[] {
  switch (name) {
    case 'locomo':
      return loadLocomo(data, { id: locomoIdFromPath(path) });
    case 'realmem':
      return [loadRealmem(data, { id: /([^/\\]+?)_dialogues/.exec(path)?.[1] })];
    case 'longmemeval':
      return loadLongMemEval(data);
  }
}
