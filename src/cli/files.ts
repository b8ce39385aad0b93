/** Finding and reading trace files from paths given on the command line. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { appendAll } from '../core/arrays.ts';
import { buildGraph, type OpenResult, openTrace, type TraceGraph } from '../core/graph/index.ts';
import {
  decodeUtf8,
  formatIssue,
  parseTraceText,
  type TraceDocument,
  type TraceIssue,
} from '../core/trace/index.ts';
import { CliError, type CliIO } from './io.ts';
import { progressReporter } from './progress.ts';

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
    if (s.isDirectory()) appendAll(out, await walk(p));
    else out.push(p);
  }
  return out;
}

/** The trace files of `paths` (as collectTraceFiles); none at all is an error. */
export async function traceFilesIn(paths: string[]): Promise<string[]> {
  const files = await collectTraceFiles(paths);
  if (files.length === 0) throw new CliError(`no trace files (.json, .jsonl) in ${paths.join(', ')}`);
  return files;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) appendAll(out, await walk(p));
    else if (e.isFile() && /\.jsonl?$/.test(e.name.toLowerCase())) out.push(p);
  }
  return out;
}

/** Why a path cannot be read, in words. */
function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return `cannot read (${code ?? (e as Error).message})`;
}

/**
 * A file's text, decoded strictly as UTF-8 (a bad byte is reported with its offset, never
 * replaced), or the one problem that keeps it from being read — returned, not thrown, so a
 * command over many files reports it and goes on.
 */
export async function readFileText(
  file: string,
): Promise<{ ok: true; text: string } | { ok: false; issue: TraceIssue }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    return { ok: false, issue: { severity: 'error', code: 'unreadable', message: readProblem(e), file } };
  }
  const r = decodeUtf8(bytes);
  if (!r.ok) return { ok: false, issue: { severity: 'error', code: 'not-utf8', message: r.message, file } };
  return r;
}

/** A file's text (as `readFileText`); a file that cannot be read fails the command with its one line. */
export async function readText(file: string): Promise<string> {
  const r = await readFileText(file);
  if (!r.ok) throw new CliError(`${file}: ${r.issue.message}`);
  return r.text;
}

/** `path` for a file the command will write (`flag` names it in messages): not a folder, in a folder that exists. */
export async function outputFile(path: string, flag: string): Promise<string> {
  const s = await stat(path).catch(() => null);
  if (s?.isDirectory()) throw new CliError(`${flag} ${path}: is a folder; give the path of a file to write`);
  const parent = await stat(dirname(resolve(path))).catch(() => null);
  if (!parent?.isDirectory())
    throw new CliError(`${flag} ${path}: the folder ${dirname(path)} does not exist`);
  return path;
}

/** `path` for a folder the command will write into: not an existing file. */
export async function outputDir(path: string, flag: string): Promise<string> {
  const s = await stat(path).catch(() => null);
  if (s && !s.isDirectory()) throw new CliError(`${flag} ${path}: is a file; give a folder to write into`);
  return path;
}

/** Why a file did not load, in one line: its first fatal problem (file and place) and how to see the rest. */
export function problemLine(file: string, issues: readonly TraceIssue[]): string {
  const first = issues.find((i) => i.severity === 'error') ?? issues[0];
  if (!first) return `${file}: could not be loaded`;
  const more = issues.length - 1;
  return `${formatIssue(first)}${more > 0 ? ` (and ${more} more problem(s): memtrace validate ${file})` : ''}`;
}

/** What a command adds to a trace's document before its graph is built (`--qa`: the judge ops of a QA file). */
export type PrepareDoc = (doc: TraceDocument, file: string) => TraceDocument;

/** A trace file opened, or the issues that stop it (unreadable and undecodable files included: never thrown). */
export async function openTraceFile(file: string, prepare?: PrepareDoc): Promise<OpenResult> {
  const r = await readFileText(file);
  if (!r.ok) return { ok: false, issues: [r.issue] };
  if (!prepare) return openTrace(r.text, { file });
  const p = parseTraceText(r.text, { file });
  return p.ok ? { ok: true, graph: buildGraph(prepare(p.doc, file)), issues: p.issues } : p;
}

/**
 * A trace file read and checked — parsed and validated, no graph indexed (the index adds no
 * issue) — for `validate`; unreadable and undecodable files included, never thrown.
 */
export async function checkTraceFile(file: string): Promise<{ ok: boolean; issues: TraceIssue[] }> {
  const r = await readFileText(file);
  return r.ok ? parseTraceText(r.text, { file }) : { ok: false, issues: [r.issue] };
}

/**
 * One of a command's `count` trace files, opened. When it cannot be: alone, the command
 * fails with its problem; among several, the problem goes to stderr and null comes back, so
 * the command goes on with the others (and says in its exit code that one was unreadable).
 */
export async function openOneOf(file: string, count: number, io: CliIO): Promise<TraceGraph | null> {
  return oneOf(await openTraceFile(file), file, count, io);
}

function oneOf(r: OpenResult, file: string, count: number, io: CliIO): TraceGraph | null {
  if (r.ok) return r.graph;
  if (count === 1) throw new CliError(problemLine(file, r.issues));
  io.stderr.write(`${problemLine(file, r.issues)}\n`);
  return null;
}

/** How `eachTraceFile` / `eachOpenResult` walk the files. */
export interface EachFileOptions {
  /** Print `[i/n] file` on stderr before each file when there are several (default true). */
  progress?: boolean;
  /** Open only the files (0-based places) this accepts; default all. */
  only?: (index: number) => boolean;
  /** Changes each document before its graph is built (see `PrepareDoc`). */
  prepare?: PrepareDoc;
}

/** Each of `files` through `open`, one at a time, with progress on stderr (several files), to `each`. */
async function eachResult<R>(
  files: readonly string[],
  io: CliIO,
  open: (file: string) => Promise<R>,
  each: (r: R, file: string, index: number) => void | Promise<void>,
  options: EachFileOptions,
): Promise<void> {
  const progress = progressReporter(io, options.progress === false ? 0 : files.length);
  for (const [i, file] of files.entries()) {
    if (options.only && !options.only(i)) continue;
    progress(i + 1, file);
    await each(await open(file), file, i);
  }
}

/**
 * Opens a command's trace files one by one (one graph in memory at a time), with progress on
 * stderr, and hands each open result, loaded or not, to `each`.
 */
export async function eachOpenResult(
  files: readonly string[],
  io: CliIO,
  each: (r: OpenResult, file: string, index: number) => void | Promise<void>,
  options: EachFileOptions = {},
): Promise<void> {
  await eachResult(files, io, (file) => openTraceFile(file, options.prepare), each, options);
}

/** As `eachOpenResult`, with each file only checked (`checkTraceFile`: no graph), for `validate`. */
export async function eachCheckedFile(
  files: readonly string[],
  io: CliIO,
  each: (r: { ok: boolean; issues: TraceIssue[] }, file: string, index: number) => void | Promise<void>,
  options: EachFileOptions = {},
): Promise<void> {
  await eachResult(files, io, checkTraceFile, each, options);
}

/**
 * Opens a command's trace files one by one, as `eachOpenResult`, and hands each graph to
 * `each`. A file that cannot be opened is handled as `openOneOf` does: alone, it fails the
 * command; among several, its problem goes to stderr and it is skipped. Returns how many were
 * skipped, for the command's exit status.
 */
export async function eachTraceFile(
  files: readonly string[],
  io: CliIO,
  each: (graph: TraceGraph, file: string, index: number) => void | Promise<void>,
  options: EachFileOptions = {},
): Promise<number> {
  let unreadable = 0;
  await eachOpenResult(
    files,
    io,
    async (r, file, i) => {
      const graph = oneOf(r, file, files.length, io);
      if (graph) await each(graph, file, i);
      else unreadable++;
    },
    options,
  );
  return unreadable;
}
