/**
 * Collects files from a drop (folders walked recursively) or a file / folder picker.
 * Only `.json` files are imported; the others are returned by path as `skipped`, so the
 * person is told about them instead of seeing them vanish.
 */
import type { ImportInput } from '../../../workers/api.ts';

const isTrace = (name: string) => /\.jsonl?$/i.test(name); // JSON Lines: OpenTelemetry span exports

interface PickedFiles {
  inputs: ImportInput[];
  /** Paths of the files left out because they are not `.json` files. */
  skipped: string[];
}

/** Files from an <input type=file> (folder pickers give webkitRelativePath). */
export function fromFileList(list: FileList | File[]): PickedFiles {
  const out: PickedFiles = { inputs: [], skipped: [] };
  for (const f of Array.from(list)) {
    const path = f.webkitRelativePath || f.name;
    if (isTrace(f.name)) out.inputs.push({ blob: f, name: f.name, path });
    else out.skipped.push(path);
  }
  return out;
}

/** Files from a drop: plain files and whole folders (a MemTraceBench folder with split subfolders). */
export async function fromDataTransfer(dt: DataTransfer): Promise<PickedFiles> {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(dt.items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (entries.length === 0) return fromFileList(loose.length ? loose : dt.files);
  const out: PickedFiles = { inputs: [], skipped: [] };
  for (const e of entries) await walk(e, out);
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  out.inputs.sort((a, b) => byPath(a.path, b.path));
  out.skipped.sort(byPath);
  return out;
}

async function walk(entry: FileSystemEntry, out: PickedFiles): Promise<void> {
  if (entry.isFile) {
    const path = entry.fullPath.replace(/^\//, '');
    if (!isTrace(entry.name)) {
      out.skipped.push(path);
      return;
    }
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    out.inputs.push({ blob: file, name: file.name, path });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries returns the listing in batches until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, out);
  }
}
