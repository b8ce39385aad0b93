/** Reading label files (annotations files and graph files) and the label-source flags, for `agreement` and `bench`. */

import { appendAll } from '../core/arrays.ts';
import {
  FILE_CHOICE,
  isLabelChoice,
  type LabelChoice,
  type LabelRecord,
  readLabelFile,
} from '../core/labels/index.ts';
import { collectTraceFiles, readFileText } from './files.ts';
import { CliError, type CliIO } from './io.ts';

/**
 * Every label in these files and folders (`.json`, recursively). A file that cannot be read
 * (not UTF-8, broken JSON, wrong shape): alone, it fails the command with its one line; among
 * several, its line goes to stderr, it counts in `unreadable`, and the others are read.
 * `graphFiles` are the files that were graph files (not annotations files).
 */
export async function readLabelPaths(
  paths: string[],
  io: Pick<CliIO, 'stderr'>,
): Promise<{ labels: LabelRecord[]; files: number; graphFiles: string[]; unreadable: number }> {
  const files = await collectTraceFiles(paths);
  const labels: LabelRecord[] = [];
  const graphFiles: string[] = [];
  let unreadable = 0;
  for (const file of files) {
    const t = await readFileText(file);
    const r = t.ok
      ? readLabelFile(t.text, file)
      : { ok: false as const, message: `${file}: ${t.issue.message}` };
    if (!r.ok) {
      if (files.length === 1) throw new CliError(r.message);
      io.stderr.write(`${r.message}\n`);
      unreadable++;
      continue;
    }
    appendAll(labels, r.labels);
    if (r.kind === 'graph') graphFiles.push(file);
  }
  return { labels, files: files.length, graphFiles, unreadable };
}

export const LABEL_SOURCE_USAGE = '[--label-source file|SOURCE|annotator:NAME] [--labels FILE_OR_DIR]';

/**
 * `--label-source`: `file` (default, each case's first annotation in its file), a
 * `label_source` (`fault-injection`, `adjudicated`, …, also written `source:NAME`) or
 * `annotator:NAME`.
 */
export function labelChoiceOf(values: { 'label-source'?: string }): LabelChoice {
  const v = values['label-source'];
  if (v === undefined) return FILE_CHOICE;
  const s = String(v).trim();
  const choice =
    s === FILE_CHOICE || s.startsWith('source:') || s.startsWith('annotator:') ? s : `source:${s}`;
  if (!s || !isLabelChoice(choice))
    throw new CliError(
      `--label-source must be one of file, a label source (fault-injection, adjudicated, …), annotator:NAME (got "${s}")`,
      2,
    );
  return choice;
}
