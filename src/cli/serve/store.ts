/**
 * The received traces on disk: `DIR/<trace id>.jsonl`, one OTLP/JSON `ExportTraceServiceRequest`
 * per line (the Collector file exporter's layout, which `memtrace validate` and the app
 * import). Each request's part of a trace is appended as one whole line (per file, one
 * append at a time; a request's lines all or none); a write that fails is cut back to the line
 * boundary, and a line left half-written by a killed process is cut off when the folder is
 * opened again, so the file always reads as whole lines. A lock file keeps two receivers out of one folder.
 */
import { mkdir, open, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConcurrencyLimit } from '../../core/llm/index.ts';
import {
  decodeTraceRequest,
  describeLine,
  type LinePart,
  mergeReceived,
  type ReceivedTrace,
  type ReceivedTraceFile,
} from '../../core/receiver/index.ts';
import { CliError } from '../io.ts';

/** A received trace as the live list shows it. */
export type StoredTrace = ReceivedTraceFile;

const TRACE_FILE = /^([0-9a-f]{32})\.jsonl$/;
const LOCK = '.memtrace-serve.lock';
/** Trace files open at once for appends (each append opens, writes and closes its file). */
const OPEN_FILES = 64;

export class TraceStore {
  readonly #traces = new Map<string, StoredTrace>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #listeners = new Set<(t: StoredTrace) => void>();
  readonly #files = new ConcurrencyLimit(OPEN_FILES);

  private constructor(readonly dir: string) {}

  /** Opens (creates) the folder: takes the lock, repairs cut-off lines, reads what is there. */
  static async open(dir: string, log: (line: string) => void): Promise<TraceStore> {
    await mkdir(dir, { recursive: true }).catch((e) => {
      throw new CliError(`--dir ${dir}: cannot create the folder (${(e as NodeJS.ErrnoException).code})`);
    });
    const store = new TraceStore(dir);
    await store.#lock();
    for (const name of (await readdir(dir)).sort()) {
      const m = TRACE_FILE.exec(name);
      if (m) await store.#load(m[1], log);
    }
    // The list is kept least recently updated first (an update moves a trace to the end).
    const loaded = [...store.#traces.values()].sort((a, b) => a.updatedMs - b.updatedMs);
    store.#traces.clear();
    for (const t of loaded) store.#traces.set(t.traceId, t);
    return store;
  }

  async #lock(): Promise<void> {
    const path = join(this.dir, LOCK);
    const held = await readFile(path, 'utf8').catch(() => null);
    const pid = Number(held);
    if (held !== null && Number.isInteger(pid) && pid !== process.pid && alive(pid))
      throw new CliError(`--dir ${this.dir}: another memtrace serve (pid ${pid}) is writing there`);
    await writeFile(path, String(process.pid));
  }

  /** Reads one trace file: a cut-off last line is removed (a crash mid-write), each line described. */
  async #load(traceId: string, log: (line: string) => void): Promise<void> {
    const path = this.path(traceId);
    let bytes = await readFile(path);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) {
      await truncate(path, end);
      log(
        `${path}: removed an incomplete last line (${bytes.length - end} bytes) left by an interrupted write`,
      );
      bytes = bytes.subarray(0, end);
    }
    let summary: ReceivedTrace | null = null;
    let lineNo = 0;
    for (let start = 0; start < bytes.length; ) {
      const stop = bytes.indexOf(0x0a, start);
      lineNo++;
      const r = decodeTraceRequest(bytes.subarray(start, stop), 'json');
      start = stop + 1;
      if (!r.ok) {
        log(`${path}: line ${lineNo} is not a trace request (${r.message}); the list leaves it out`);
        continue;
      }
      const line = describeLine(r.request, traceId);
      summary = summary ? mergeReceived(summary, line) : line;
    }
    if (!summary) return;
    const { mtimeMs } = await stat(path);
    this.#traces.set(traceId, {
      ...summary,
      file: `${traceId}.jsonl`,
      bytes: bytes.length,
      updatedMs: mtimeMs,
    });
  }

  /** The file of a trace id (32 hex digits, checked by the decoder). */
  path(traceId: string): string {
    return join(this.dir, `${traceId}.jsonl`);
  }

  /** How many traces were received. */
  get size(): number {
    return this.#traces.size;
  }

  /** `limit` received traces from the `offset`-th, most recently updated first, and how many there are. */
  page(offset: number, limit: number): { traces: StoredTrace[]; total: number } {
    const all = [...this.#traces.values()];
    const end = all.length - offset;
    return { traces: end > 0 ? all.slice(Math.max(0, end - limit), end).reverse() : [], total: all.length };
  }

  get(traceId: string): StoredTrace | undefined {
    return this.#traces.get(traceId);
  }

  /** Calls `fn` with each trace after a part of it was written; returns the unsubscribe. */
  onChange(fn: (t: StoredTrace) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /**
   * Appends one request's parts, each as one line of its trace's file, all or nothing: the
   * lines are made before anything is written, and when a write fails every file this request
   * wrote is cut back to where it was, so a retried request does not store its spans twice.
   * Appends to one file keep request order (a request waits for the one before it on that
   * file to finish); at most `OPEN_FILES` files are open at once, however many traces come.
   */
  async appendAll(parts: readonly LinePart[], now: number): Promise<void> {
    const lines = parts.map((p) => p.line);
    let release = () => {};
    const done = new Promise<void>((ok) => (release = ok));
    const before = parts.map((p) => this.#queues.get(p.traceId));
    for (const p of parts) this.#queues.set(p.traceId, done);
    try {
      const results = await Promise.allSettled(
        parts.map(async (p, i) => {
          await before[i];
          return this.#files.run(() => this.#write(p.traceId, lines[i]));
        }),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) {
        await this.#rollBack(parts, results);
        throw failed.reason;
      }
      parts.forEach((p, i) => {
        const size = (results[i] as PromiseFulfilledResult<number>).value;
        this.#stored(p, size + lines[i].length, now);
      });
    } finally {
      release();
      for (const p of parts) if (this.#queues.get(p.traceId) === done) this.#queues.delete(p.traceId);
    }
  }

  /** Appends one line; resolves with the file's size before it (a failed write is cut back first). */
  async #write(traceId: string, line: Uint8Array): Promise<number> {
    const file = await open(this.path(traceId), 'a');
    try {
      const { size } = await file.stat();
      try {
        for (let done = 0; done < line.length; )
          done += (await file.write(line, done, line.length - done)).bytesWritten;
      } catch (e) {
        await file.truncate(size).catch(() => undefined); // back to the last whole line
        throw e;
      }
      return size;
    } finally {
      await file.close();
    }
  }

  /** Cuts the files a failed request did write back to their sizes before it (a new file is removed). */
  async #rollBack(parts: readonly LinePart[], results: PromiseSettledResult<number>[]): Promise<void> {
    const undo = parts.flatMap((p, i) => {
      const r = results[i];
      return r.status === 'fulfilled' ? [{ traceId: p.traceId, size: r.value }] : [];
    });
    await Promise.all(
      undo.map(({ traceId, size }) =>
        this.#files.run(() =>
          size === 0 && !this.#traces.has(traceId)
            ? rm(this.path(traceId), { force: true })
            : truncate(this.path(traceId), size),
        ),
      ),
    );
  }

  /** The list's entry after a part of the trace was written, announced to the listeners. */
  #stored(part: LinePart, bytes: number, now: number): void {
    const old = this.#traces.get(part.traceId);
    const summary = old ? mergeReceived(old, part.summary) : part.summary;
    const stored = { ...summary, file: `${part.traceId}.jsonl`, bytes, updatedMs: now };
    this.#traces.delete(part.traceId); // to the end: the most recently updated
    this.#traces.set(part.traceId, stored);
    for (const fn of this.#listeners) fn(stored);
  }

  /** A trace file's whole lines (what was written completely), or null when there is no such trace. */
  async readComplete(traceId: string): Promise<Buffer | null> {
    if (!this.#traces.has(traceId)) return null;
    await this.#queues.get(traceId);
    const bytes = await readFile(this.path(traceId)).catch(() => null);
    return bytes?.subarray(0, bytes.lastIndexOf(0x0a) + 1) ?? null;
  }

  /** Waits for the appends under way, then lets the folder go. */
  async close(): Promise<void> {
    await Promise.all(this.#queues.values());
    await rm(join(this.dir, LOCK), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
