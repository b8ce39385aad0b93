/** Data set loaders: JSON (already parsed) in, conversations out; each checks its format (zod). */
import type { Conversation, DatasetName } from '../types.ts';
import { detectDataset } from './detect.ts';
import { DatasetFormatError } from './format.ts';
import { loadLocomo, locomoIdFromPath } from './locomo.ts';
import { loadLongMemEval } from './longmemeval.ts';
import { loadRealmem } from './realmem.ts';

export { DATASET_LABEL, detectDataset } from './detect.ts';
export { DatasetFormatError } from './format.ts';
export { loadLocomo } from './locomo.ts';
export { loadLongMemEval } from './longmemeval.ts';
export { loadRealmem } from './realmem.ts';

export const DATASETS: readonly DatasetName[] = ['locomo', 'realmem', 'longmemeval'];

/**
 * Loads a data set file's parsed JSON as `name` (detected from the shape when absent); `path`
 * names flattened LoCoMo files and RealMem personas. Throws a DatasetFormatError naming the
 * first place that does not fit (and, when the file looks like another data set, which).
 */
export function loadDataset(name: DatasetName | undefined, data: unknown, path = ''): Conversation[] {
  const found = detectDataset(data);
  const as = name ?? found?.dataset;
  if (!as)
    throw new DatasetFormatError(
      'does not look like LoCoMo, RealMem or LongMemEval (pass --dataset to read it as one of them)',
    );
  try {
    switch (as) {
      case 'locomo':
        return loadLocomo(data, { id: locomoIdFromPath(path) });
      case 'realmem':
        return [loadRealmem(data, { id: /([^/\\]+?)_dialogues/.exec(path)?.[1] })];
      case 'longmemeval':
        return loadLongMemEval(data);
    }
  } catch (e) {
    if (e instanceof DatasetFormatError && found && found.dataset !== as)
      throw new DatasetFormatError(`${e.message} (it looks like ${found.layout})`);
    throw e;
  }
}
