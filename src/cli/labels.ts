/** Reading label files (annotations files and graph files) and the label-source flags, for `agreement` and `bench`. */
import { FILE_CHOICE, isLabelChoice, type LabelChoice } from '../core/labels/choose.ts';
import { type LabelRecord, readLabelFile } from '../core/labels/index.ts';
import type { Values } from './command.ts';
import { collectTraceFiles, readText } from './files.ts';
import { CliError } from './io.ts';

/**
 * Every label in these files and folders (`.json`, recursively); a bad file fails the command
 * with its one line. `graphFiles` are the files that were graph files (not annotations files).
 */
export async function readLabelPaths(
  paths: string[],
): Promise<{ labels: LabelRecord[]; files: number; graphFiles: string[] }> {
  const files = await collectTraceFiles(paths);
  const labels: LabelRecord[] = [];
  const graphFiles: string[] = [];
  for (const file of files) {
    const r = readLabelFile(await readText(file), file);
    if (!r.ok) throw new CliError(r.message);
    labels.push(...r.labels);
    if (r.kind === 'graph') graphFiles.push(file);
  }
  return { labels, files: files.length, graphFiles };
}

export const LABEL_SOURCE_USAGE = '[--label-source file|SOURCE|annotator:NAME] [--labels FILE_OR_DIR]';

/**
 * `--label-source`: `file` (default, each case's first annotation in its file), a
 * `label_source` (`fault-injection`, `adjudicated`, …, also written `source:NAME`) or
 * `annotator:NAME`.
 */
export function labelChoiceOf(values: Values): LabelChoice {
  const v = values['label-source'];
  if (v === undefined) return FILE_CHOICE;
  const s = String(v).trim();
  const choice =
    s === FILE_CHOICE || s.startsWith('source:') || s.startsWith('annotator:') ? s : `source:${s}`;
  if (!s || !isLabelChoice(choice))
    throw new CliError('--label-source must be file, a label source, or annotator:NAME', 2);
  return choice;
}
