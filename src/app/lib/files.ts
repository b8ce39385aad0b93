/** Collects files from a drop (folders walked recursively) or a file / folder picker. */
import type { ImportInput } from '../../../workers/api.ts';

const isTrace = (name: string) => /\.jsonl?$/i.test(name); // JSON Lines: OpenTelemetry span exports

/** Files from an <input type=file> (folder pickers give webkitRelativePath). */
export function fromFileList(list: FileList | File[]): ImportInput[] {
  return Array.from(list)
    .filter((f) => isTrace(f.name))
    .map((f) => ({ blob: f, name: f.name, path: f.webkitRelativePath || f.name }));
}

/** Files from a drop: plain files and whole folders (a MemTraceBench folder with split subfolders). */
export async function fromDataTransfer(dt: DataTransfer): Promise<ImportInput[]> {
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
  const out: ImportInput[] = [];
  for (const e of entries) await walk(e, out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function walk(entry: FileSystemEntry, out: ImportInput[]): Promise<void> {
  if (entry.isFile) {
    if (!isTrace(entry.name)) return;
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    out.push({ blob: file, name: file.name, path: entry.fullPath.replace(/^\//, '') });
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
