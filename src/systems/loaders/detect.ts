/**
 * Which data set a parsed file is, from its shape alone (the loaders then check it in full):
 * used by `memtrace run|inject` without `--dataset` and by the app's systems worker.
 */
import type { DatasetName } from '../types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Names of the data sets as people write them. */
export const DATASET_LABEL: Record<DatasetName, string> = {
  locomo: 'LoCoMo',
  realmem: 'RealMem',
  longmemeval: 'LongMemEval',
};

/** The data set a parsed file looks like, and its layout in words; null when none fits. */
export function detectDataset(data: unknown): { dataset: DatasetName; layout: string } | null {
  if (Array.isArray(data)) {
    const first = data.find(isObj);
    if (!first) return null;
    if ('haystack_sessions' in first || 'question_id' in first)
      return { dataset: 'longmemeval', layout: 'LongMemEval, a list of instances' };
    if ('conversation' in first || 'sample_id' in first || 'qa' in first)
      return { dataset: 'locomo', layout: 'LoCoMo, canonical layout (a list of samples)' };
    return null;
  }
  if (!isObj(data)) return null;
  if (Array.isArray(data.dialogues)) return { dataset: 'realmem', layout: 'RealMem, one persona' };
  if ('haystack_sessions' in data) return { dataset: 'longmemeval', layout: 'LongMemEval, one instance' };
  if (isObj(data.conversation)) return { dataset: 'locomo', layout: 'LoCoMo, canonical layout (one sample)' };
  if ('speaker_a' in data || Object.keys(data).some((k) => /^session_\d+$/.test(k)))
    return { dataset: 'locomo', layout: 'LoCoMo, v2 layout (one flattened conversation)' };
  return null;
}
