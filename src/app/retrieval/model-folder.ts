/** The files of a folder picked with `<input type="file" webkitdirectory>`, by path inside that folder. */
export function pickedFolderFiles(list: FileList): { name: string; files: Map<string, Blob> } {
  const files = new Map<string, Blob>();
  let name = 'model';
  for (const f of Array.from(list)) {
    const rel = f.webkitRelativePath || f.name;
    const parts = rel.split('/');
    if (parts.length > 1) name = parts[0];
    files.set(parts.length > 1 ? parts.slice(1).join('/') : rel, f);
  }
  return { name, files };
}
