/** A streaming sink that writes a graph file on disk; record lists are spooled to temp files beside it. */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type RecordList, type Spool, StreamingSink } from './sink.ts';

const FLUSH_AT = 1 << 20;

class FileSpool implements Spool {
  private fd: number;
  private buffer: string[] = [];
  private size = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w+');
  }
  append(text: string): void {
    this.buffer.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) this.flush();
  }
  private flush() {
    if (this.buffer.length) writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.size = 0;
  }
  drain(write: (chunk: string | Uint8Array) => void): void {
    this.flush();
    const chunk = Buffer.allocUnsafe(FLUSH_AT);
    let pos = 0;
    for (;;) {
      const n = readSync(this.fd, chunk, 0, chunk.length, pos);
      if (n <= 0) break;
      write(chunk.subarray(0, n));
      pos += n;
    }
  }
  dispose(): void {
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }
}

/** Options of `fileSink`. */
interface FileSinkOptions {
  /** The folder to spool records in (made by the caller; removed on close). Default: a new one beside `path`. */
  spoolDir?: string;
}

/**
 * A sink writing `path` incrementally (records spooled to a temp folder next to it, named
 * `.memtrace-spool-<pid>-…` so a cleanup can tell a dead run's spool from a live one; removed on close).
 */
export function fileSink(path: string, options: FileSinkOptions = {}): StreamingSink {
  const dir = options.spoolDir ?? mkdtempSync(join(dirname(path), `.memtrace-spool-${process.pid}-`));
  const fd = openSync(path, 'w');
  return new StreamingSink(
    {
      write(chunk) {
        if (typeof chunk === 'string') writeSync(fd, chunk);
        else writeSync(fd, chunk);
      },
      close() {
        closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
      },
    },
    (list: RecordList) => new FileSpool(join(dir, `${list}.part`)),
  );
}
