/**
 * Reads an OTLP/HTTP request body under a size cap (the OTLP spec: the limit holds after
 * decompression too): a `Content-Length` over the cap is refused before reading, a streamed
 * body is counted as it arrives, and gzip output is counted while it is inflated — so a
 * 1 GiB body or a gzip bomb costs at most the cap, never its whole size.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';

/** Why a body was refused: the HTTP status and a message for the reply. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** `20 MiB`, `512 KiB`, `300 B`: a size for messages. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const)
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  return `${n} B`;
}

/** `gzip` or none; anything else is refused (415) before the body is read. */
export function bodyCoding(req: IncomingMessage): 'gzip' | 'identity' {
  const coding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  if (coding === 'identity' || coding === '') return 'identity';
  throw new BodyError(415, `Content-Encoding "${coding.slice(0, 40)}" is not supported (send gzip or none)`);
}

/** Refuses a declared length over the cap (413) without reading a byte of the body. */
export function checkDeclaredLength(req: IncomingMessage, max: number): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max)
    throw new BodyError(
      413,
      `the request body is ${formatBytes(declared)}; this receiver takes at most ${formatBytes(max)} (memtrace serve --max-body)`,
    );
}

/**
 * The whole body, inflated when gzip, at most `max` bytes before and after inflating, and
 * refused (408) when no byte of it came for `idleMs`: a stalled upload lets go of its place.
 * On a refusal nothing more is kept: see `discardRest`.
 */
export function readBody(req: IncomingMessage, max: number, idleMs: number): Promise<Buffer> {
  const coding = bodyCoding(req);
  checkDeclaredLength(req, max);
  return new Promise((resolve, reject) => {
    const gunzip = coding === 'gzip' ? createGunzip() : null;
    const chunks: Buffer[] = [];
    let raw = 0;
    let size = 0;
    let settled = false;
    const idle = setTimeout(() => {
      const s = idleMs / 1000;
      fail(
        new BodyError(
          408,
          `no byte of the body came for ${s} s: the upload stalled (memtrace serve --body-timeout)`,
        ),
      );
    }, idleMs);
    const stop = () => {
      settled = true;
      clearTimeout(idle);
      req.off('data', onData);
      req.off('end', onEnd);
      gunzip?.destroy();
    };
    const fail = (e: BodyError) => {
      if (settled) return;
      stop();
      reject(e);
    };
    const tooLarge = (after: string) =>
      new BodyError(413, `the request body is over ${formatBytes(max)}${after} (memtrace serve --max-body)`);
    const keep = (c: Buffer) => {
      idle.refresh();
      size += c.length;
      if (size > max) fail(tooLarge(gunzip ? ' once inflated' : ''));
      else chunks.push(c);
    };
    const finish = () => {
      if (settled) return;
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer) => {
      idle.refresh();
      raw += c.length;
      if (raw > max) return fail(tooLarge(''));
      if (!gunzip) return keep(c);
      // Inflate at the pace the output is counted.
      if (!gunzip.write(c)) {
        req.pause();
        gunzip.once('drain', () => settled || req.resume());
      }
    };
    const onEnd = () => (gunzip ? gunzip.end() : finish());
    gunzip?.on('data', keep);
    gunzip?.on('end', finish);
    gunzip?.on('error', (e) => fail(new BodyError(400, `the gzip body could not be inflated: ${e.message}`)));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', (e) => fail(new BodyError(400, `the request was cut off: ${e.message}`)));
  });
}

/** Bytes of a refused body read and dropped after the reply, so the client reads the reply (not a reset). */
const LINGER_BYTES = 8 * 2 ** 20;

/**
 * After a refusal sent before the body was read: reads and drops the rest of the body, up to
 * `LINGER_BYTES`, then cuts the connection. Closing at once would reset it while the client
 * is still sending, and the client could lose the reply; reading on without a bound would
 * read a 1 GiB body after all.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  let dropped = 0;
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > LINGER_BYTES) req.socket.destroy();
  });
  req.resume();
}
