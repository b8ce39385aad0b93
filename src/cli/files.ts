/** Finding and reading trace files from paths given on the command line. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type OpenResult, openTrace } from '../core/graph/open.ts';
import { CliError } from './io.ts';

/** Expands files and folders (recursively, `.json` files, sorted) into a list of files. */
export async function collectTraceFiles(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    let s: Awaited<ReturnType<typeof stat>>;
    try {
      s = await stat(p);
    } catch {
      throw new CliError(`${p}: no such file or folder`);
    }
    if (s.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else if (e.isFile() && /\.jsonl?$/.test(e.name.toLowerCase())) out.push(p);
  }
  return out;
}

export async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(`${file}: cannot read (${code ?? (e as Error).message})`);
  }
}

export async function openTraceFile(file: string): Promise<OpenResult> {
  return openTrace(await readText(file), { file });
}
