/**
 * `memtrace serve` as a real process for tests and the benchmark: started on a free port
 * (`--port 0`, the address read from its first lines) with a folder of its own, stopped by
 * SIGINT; and a raw-socket client that streams a body the server may refuse part-way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/memtrace.mjs');

export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  base: string;
  port: number;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /** SIGINT, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `memtrace serve --port 0 …args` and waits until it listens; with `openFiles`, under
 * `ulimit -n` of that many (set by bash, which then becomes the server process).
 */
export function startServe(args: string[], o: { openFiles?: number } = {}): Promise<ServeProcess> {
  const argv = [BIN, 'serve', '--port', '0', ...args];
  const child = o.openFiles
    ? spawn('bash', ['-c', `ulimit -n ${o.openFiles} && exec "$0" "$@"`, process.execPath, ...argv], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  return new Promise((ok, fail) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /at http:\/\/127\.0\.0\.1:(\d+)\/v1\/traces/.exec(err);
      if (m && err.includes('Ctrl-C stops'))
        ok({
          child,
          base: `http://127.0.0.1:${m[1]}`,
          port: Number(m[1]),
          stderr: () => err,
          stop: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
    });
    void exited.then((code) => fail(new Error(`memtrace serve exited (${code}) before listening:\n${err}`)));
  });
}

interface StreamedReply {
  /** The status line's code, or null when no reply came. */
  status: number | null;
  /** Response headers and body as text. */
  reply: string;
  /** Body bytes the kernel took from the client before the server stopped the exchange. */
  bytesSent: number;
}

/**
 * POSTs `headers` then body chunks from `next()` (null ends the body; chunked unless the
 * headers set a length) as fast as the socket takes them, until the body ends or the
 * server answers or closes. Bounded: stops after `limit` body bytes whatever happens.
 */
export function streamBody(
  port: number,
  headers: Record<string, string>,
  next: () => Buffer | null,
  limit: number,
): Promise<StreamedReply> {
  const chunked = !('content-length' in headers);
  const head = [
    'POST /v1/traces HTTP/1.1',
    `host: 127.0.0.1:${port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ...(chunked ? ['transfer-encoding: chunked'] : []),
    '',
    '',
  ].join('\r\n');
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let sent = 0;
    let stopped = false;
    const finish = () => {
      if (stopped) return;
      stopped = true;
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(reply.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''));
      ok({ status: m ? Number(m[1]) : null, reply, bytesSent: sent });
    };
    const pump = () => {
      if (!stopped) {
        if (reply.includes('\r\n\r\n') && !/^HTTP\/1\.1 100 /.test(reply)) return; // answered: stop sending
        const chunk = sent < limit ? next() : null;
        if (!chunk) {
          socket.write(chunked ? '0\r\n\r\n' : '');
          return;
        }
        sent += chunk.length;
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
          : chunk;
        // Wait for the socket to take it, or at least let the event loop read a reply (a loop of
        // writes the kernel takes at once would never look at the reply).
        if (!socket.write(framed)) return void socket.once('drain', pump);
        return void setImmediate(pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (d) => {
      reply += d.toString('latin1');
      // A whole reply (headers and its content-length body) ends the exchange.
      const end = reply.lastIndexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(reply);
      if (end >= 0 && length && reply.length - (end + 4) >= Number(length[1])) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}
