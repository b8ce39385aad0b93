/** Paths of the shared real data (read at test time; never copied into the repo). */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SHARED_DATA = resolve(import.meta.dirname, '../../../shared/data');
export const SMARTCOMMENT_DIR = join(SHARED_DATA, 'smartcomment');

export function smartcommentFiles(): string[] {
  return readdirSync(SMARTCOMMENT_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(SMARTCOMMENT_DIR, f));
}
