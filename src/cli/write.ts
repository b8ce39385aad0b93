/**
 * Every file the CLI writes goes through here: it is written to a temporary file beside its
 * destination and renamed into place once complete (flushed to disk first), so an error, a
 * Ctrl-C, a kill or a full disk never leaves a truncated file and never touches the previous
 * one. Temporaries (`.<name>.memtrace-tmp-<pid>-<random>`) and spool folders
 * (`.memtrace-spool-<pid>-<random>`) are removed on every exit path a process can catch
 * (success, error, SIGINT, SIGTERM, SIGHUP, `process.exit`); those of a process that could not
 * clean up (SIGKILL, power loss) are removed by the next write into the same folder, once their
 * process is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from './io.ts';

const TEMP_TAG = '.memtrace-tmp-';
const SPOOL_TAG = '.memtrace-spool-';
/** A temporary or spool of this CLI, with the id of the process that made it. */
const OURS = /^(?:\..+\.memtrace-tmp-|\.memtrace-spool-)(\d+)-[^/]*$/;
/** A spool folder of an older version (no process id in its name). */
const LEGACY_SPOOL = /^\.memtrace-spool-[A-Za-z0-9]{6}$/;
/** A legacy spool untouched this long belongs to no running process. */
const LEGACY_STALE_MS = 60 * 60 * 1000;

/** Paths to remove if the process ends before they are committed or released. */
const pending = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function removePendingSync() {
  for (const p of pending) rmSync(p, { recursive: true, force: true });
  pending.clear();
}

function onSignal(signal: NodeJS.Signals) {
  removePendingSync();
  stopWatching();
  // Ends the process as the signal would have (exit status 128 + n) once our cleanup is done.
  process.kill(process.pid, signal);
}

function startWatching() {
  if (process.listeners('exit').includes(removePendingSync)) return;
  process.on('exit', removePendingSync);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function stopWatching() {
  process.off('exit', removePendingSync);
  for (const s of SIGNALS) process.off(s, onSignal);
}

/** Removes `path` (a file or folder) if the process ends before `release(path)`. */
function removeOnExit(path: string) {
  pending.add(path);
  startWatching();
}

/** Removes `path` (a file or folder) now, and no longer on exit. */
export function removeNow(path: string) {
  rmSync(path, { recursive: true, force: true });
  release(path);
}

/** `path` no longer needs removing on exit (it was committed, or removed already). */
function release(path: string) {
  pending.delete(path);
  if (pending.size === 0) stopWatching();
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** Newest modification time of a folder and the files directly in it. */
async function lastTouched(dir: string): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  for (const f of await readdir(dir).catch(() => []))
    newest = Math.max(newest, (await stat(join(dir, f)).catch(() => null))?.mtimeMs ?? 0);
  return newest;
}

/** When each folder was last swept: a command writing many files into one folder sweeps it once. */
const swept = new Map<string, number>();
const SWEEP_EVERY_MS = 60_000;

/**
 * Removes the temporaries and spool folders in `dir` left by processes that are gone (a
 * SIGKILL cannot run cleanup), at most once a minute per folder. Never throws: cleanup is a courtesy.
 */
async function sweepStale(dir: string): Promise<void> {
  const now = Date.now();
  if (now - (swept.get(dir) ?? Number.NEGATIVE_INFINITY) < SWEEP_EVERY_MS) return;
  swept.set(dir, now);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = OURS.exec(name);
    const path = join(dir, name);
    let stale = m !== null && !processAlive(Number(m[1]));
    if (!m && LEGACY_SPOOL.test(name))
      stale = Date.now() - (await lastTouched(path).catch(() => Date.now())) > LEGACY_STALE_MS;
    if (stale) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

const random = () => Math.random().toString(36).slice(2, 10);

/** A file being written: write `temp`, then `commit()` (or `discard()` on failure). */
interface PendingFile {
  /** The destination as given. */
  readonly path: string;
  /** Where to write; beside the destination, so the rename is atomic. */
  readonly temp: string;
  /** Flushes the temporary to disk and renames it over the destination. */
  commit(): Promise<void>;
  /** Removes the temporary; the destination is left as it was. */
  discard(): Promise<void>;
}

/** Why a write failed, in one line naming the file. */
function cannotWrite(path: string, e: unknown): CliError {
  if (e instanceof CliError) return e;
  return new CliError(`${path}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
}

/**
 * Starts writing `path`: reserves a temporary beside it (beside the file a symlink points to),
 * removed on any exit until committed. Stale temporaries of killed runs in that folder go first.
 */
export async function beginWrite(path: string): Promise<PendingFile> {
  const target = await realpath(path).catch(() => path);
  const dir = dirname(target);
  await sweepStale(dir);
  const temp = join(dir, `.${basename(target)}${TEMP_TAG}${process.pid}-${random()}`);
  removeOnExit(temp);
  const discard = async () => {
    await rm(temp, { force: true }).catch(() => undefined);
    release(temp);
  };
  const commit = async () => {
    try {
      const mode = (await stat(target).catch(() => null))?.mode;
      const f = await open(temp, 'r+');
      try {
        await f.sync();
      } finally {
        await f.close();
      }
      if (mode !== undefined) await chmod(temp, mode & 0o7777);
      await rename(temp, target);
      release(temp);
    } catch (e) {
      await discard();
      throw cannotWrite(path, e);
    }
  };
  return { path, temp, commit, discard };
}

/** What `writeAtomic` writes: text, bytes, or chunks in order. */
type FileContent = string | Uint8Array | readonly (string | Uint8Array)[];

/** Writes `path` completely or not at all (the previous file stays until the new one is whole). */
export async function writeAtomic(path: string, content: FileContent): Promise<void> {
  const f = await beginWrite(path);
  try {
    const h = await open(f.temp, 'wx');
    try {
      const chunks = typeof content === 'string' || content instanceof Uint8Array ? [content] : content;
      for (const c of chunks) typeof c === 'string' ? await h.write(c) : await h.write(c);
    } finally {
      await h.close();
    }
  } catch (e) {
    await f.discard();
    throw cannotWrite(path, e);
  }
  await f.commit();
}

/**
 * A spool folder in `dir` (`.memtrace-spool-<pid>-…`) for a streaming writer's record lists;
 * removed on any exit until `release`d by whoever removes it.
 */
export function spoolFolder(dir: string): string {
  const path = mkdtempSync(join(dir, `${SPOOL_TAG}${process.pid}-`));
  removeOnExit(path);
  return path;
}
