/**
 * The received traces on disk: `DIR/<trace id>.jsonl`, one OTLP/JSON `ExportTraceServiceRequest`
 * per line (the Collector file exporter's layout, which `memtrace validate` and the app
 * import). Each request's part of a trace is appended as one whole line by a single write
 * (per file, one append at a time); a write that fails is cut back to the line boundary, and a
 * line left half-written by a killed process is cut off when the folder is opened again, so
 * the file always reads as whole lines. A lock file keeps two receivers out of one folder.
 */
import { mkdir, open, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodeTraceRequest,
  describeLine,
  mergeReceived,
  type ReceivedTrace,
  type ReceivedTraceFile,
  type TracePart,
} from '../../core/receiver/index.ts';
import { CliError } from '../io.ts';

/** A received trace as the live list shows it. */
export type StoredTrace = ReceivedTraceFile;

const TRACE_FILE = /^([0-9a-f]{32})\.jsonl$/;
const LOCK = '.memtrace-serve.lock';

export class TraceStore {
  readonly #traces = new Map<string, StoredTrace>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #listeners = new Set<(t: StoredTrace) => void>();

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

  /** Every received trace, most recently updated first. */
  list(): StoredTrace[] {
    return [...this.#traces.values()].sort((a, b) => b.updatedMs - a.updatedMs);
  }

  get(traceId: string): StoredTrace | undefined {
    return this.#traces.get(traceId);
  }

  /** Calls `fn` with each trace after a part of it was written; returns the unsubscribe. */
  onChange(fn: (t: StoredTrace) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Appends one part of a trace as one line; resolves once it is written (appends to one file queue up). */
  append(part: TracePart, now: number): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(part.request)}\n`);
    const previous = this.#queues.get(part.traceId) ?? Promise.resolve();
    const next = previous.then(() => this.#write(part, line, now));
    const settled = next.catch(() => undefined);
    this.#queues.set(part.traceId, settled);
    void settled.then(() => {
      if (this.#queues.get(part.traceId) === settled) this.#queues.delete(part.traceId);
    });
    return next;
  }

  async #write(part: TracePart, line: Buffer, now: number): Promise<void> {
    const file = await open(this.path(part.traceId), 'a');
    try {
      const { size } = await file.stat();
      try {
        for (let done = 0; done < line.length; )
          done += (await file.write(line, done, line.length - done)).bytesWritten;
      } catch (e) {
        await file.truncate(size).catch(() => undefined); // back to the last whole line
        throw e;
      }
      const old = this.#traces.get(part.traceId);
      const summary = old ? mergeReceived(old, part.summary) : part.summary;
      const stored = { ...summary, file: `${part.traceId}.jsonl`, bytes: size + line.length, updatedMs: now };
      this.#traces.set(part.traceId, stored);
      for (const fn of this.#listeners) fn(stored);
    } finally {
      await file.close();
    }
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
