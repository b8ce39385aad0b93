/**
 * The HTTP side of `memtrace serve`: `POST /v1/traces` (OTLP/HTTP, protobuf or JSON, gzip),
 * the live list for the page (`GET api/received/?offset&limit` a page of it as JSON,
 * `…/events` as Server-Sent Events, `…/<trace id>.jsonl` the file's whole lines) and the
 * built workbench.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  contentTypeOf,
  encodingOf,
  exportResponse,
  type OtlpEncoding,
  RECEIVED_PAGE_MAX,
  type ReceivedList,
  receiveTraceRequest,
  statusBody,
} from '../../core/receiver/index.ts';
import { RECEIVED_API, serveAppFile } from './app.ts';
import { BodyError, bodyCoding, checkDeclaredLength, discardRest, readBody } from './body.ts';
import { isLoopback } from './hosts.ts';
import { LiveEvents } from './live.ts';
import type { TraceStore } from './store.ts';

interface ReceiverOptions {
  store: TraceStore;
  /** Largest request body, before and after inflating. */
  maxBody: number;
  /** Requests decoded and written at once (once their body is in); more are answered 503 with Retry-After. */
  maxConcurrent: number;
  /** Request bodies being received at once; more are answered 503 with Retry-After. */
  maxUploads: number;
  /** A body that sends nothing for this long (ms) is refused with 408 and lets go of its place. */
  bodyTimeoutMs: number;
  /** The built app's folder, or null (then `/` says how to build it). */
  appDir: string | null;
  /** Accept any Host header (a non-loopback --host); otherwise only loopback names (DNS rebinding). */
  allowRemote: boolean;
  log: (line: string) => void;
  now?: () => number;
}

const TRACE_FILE = new RegExp(`^/${RECEIVED_API}([0-9a-f]{32})\\.jsonl$`);
/** Seconds a client is told to wait when the receiver is busy. */
const RETRY_AFTER_S = 1;

/** The receiver's HTTP server (not yet listening) and what stops it cleanly. */
export function createReceiver(o: ReceiverOptions): { server: Server; close(): Promise<void> } {
  const live = new LiveEvents(o.store, o.log);
  const inFlight = new Set<Promise<unknown>>();
  const load: Load = { uploading: 0, working: 0 };
  const handle = async (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!o.allowRemote && !isLoopback(hostName(req.headers.host)))
      return plain(
        res,
        403,
        'this receiver answers only loopback host names (memtrace serve --allow-remote)',
      );
    if (path === '/v1/traces') {
      if (req.method !== 'POST')
        return refuse(req, res, 'json', 405, 'POST OTLP trace requests here', {
          expectsContinue,
          allow: 'POST',
        });
      if (load.uploading >= o.maxUploads)
        return refuse(
          req,
          res,
          encodingOf(req.headers['content-type']) ?? 'json',
          503,
          'busy: too many uploads at once; retry later',
          { retryAfter: RETRY_AFTER_S, expectsContinue },
        );
      const work = receive(req, res, o, expectsContinue, load);
      inFlight.add(work);
      try {
        return await work;
      } finally {
        inFlight.delete(work);
      }
    }
    if (expectsContinue) res.writeContinue();
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return plain(res, 405, 'only GET here', { allow: 'GET' });
    if (path === `/${RECEIVED_API}`) return listPage(req, res, o.store);
    if (path === `/${RECEIVED_API}events`) return live.connect(req, res);
    const file = TRACE_FILE.exec(path);
    if (file) return sendTraceFile(res, o.store, file[1]);
    if (o.appDir && (await serveAppFile(o.appDir, path, res))) return;
    if (path === '/' && !o.appDir)
      return plain(
        res,
        200,
        'memtrace serve: the workbench is not built here; run `npm run build` and restart',
      );
    plain(res, 404, 'not found');
  };
  const run = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) =>
    handle(req, res, expectsContinue).catch((e) => {
      o.log(`unexpected error on ${req.method} ${req.url}: ${(e as Error).message}`);
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  const server = createServer((req, res) => void run(req, res, false));
  server.on('checkContinue', (req, res) => void run(req, res, true));
  server.requestTimeout = 120_000;
  return {
    server,
    /** Stops listening, lets the exports under way finish (10 s at most), then drops every connection. */
    async close() {
      live.close();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      const grace = new Promise((ok) => setTimeout(ok, 10_000).unref());
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Export requests under way: bodies being received, and requests being decoded and written. */
interface Load {
  uploading: number;
  working: number;
}

/**
 * One export request: checked before the body is read, then read (counted as an upload, so a
 * stalled one never holds a place of the decoding and writing), then decoded and stored.
 */
async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  o: ReceiverOptions,
  expectsContinue: boolean,
  load: Load,
) {
  const encoding = encodingOf(req.headers['content-type']);
  if (!encoding)
    return refuse(req, res, 'json', 415, 'send Content-Type application/x-protobuf or application/json', {
      expectsContinue,
    });
  let body: Buffer;
  load.uploading++;
  try {
    bodyCoding(req);
    checkDeclaredLength(req, o.maxBody);
    if (expectsContinue) res.writeContinue();
    body = await readBody(req, o.maxBody, o.bodyTimeoutMs);
  } catch (e) {
    if (e instanceof BodyError) return refuse(req, res, encoding, e.status, e.message, { expectsContinue });
    throw e;
  } finally {
    load.uploading--;
  }
  if (load.working >= o.maxConcurrent)
    return refuse(req, res, encoding, 503, 'busy: too many requests at once; retry later', {
      retryAfter: RETRY_AFTER_S,
    });
  load.working++;
  try {
    await store(req, res, o, encoding, body);
  } finally {
    load.working--;
  }
}

/** A received body decoded, split by trace and appended; the reply says what was refused. */
async function store(
  req: IncomingMessage,
  res: ServerResponse,
  o: ReceiverOptions,
  encoding: OtlpEncoding,
  body: Buffer,
) {
  const decoded = receiveTraceRequest(body, encoding);
  if (!decoded.ok) return refuse(req, res, encoding, 400, decoded.message);
  const now = (o.now ?? Date.now)();
  try {
    await o.store.appendAll(decoded.parts, now);
  } catch (e) {
    o.log(`could not write a received trace: ${(e as Error).message}`);
    return refuse(req, res, encoding, 503, 'the receiver could not write the trace to disk', {
      retryAfter: RETRY_AFTER_S * 5,
    });
  }
  const why = decoded.rejected
    ? `${decoded.rejected} span(s) refused: ${decoded.reasons.join('; ')}${decoded.rejected > decoded.reasons.length ? '; …' : ''}`
    : '';
  if (why) o.log(why);
  reply(res, 200, encoding, exportResponse(encoding, decoded.rejected, why));
}

function reply(res: ServerResponse, status: number, encoding: OtlpEncoding, body: Uint8Array, headers = {}) {
  res.writeHead(status, {
    'content-type': contentTypeOf(encoding),
    'content-length': body.length,
    ...headers,
  });
  res.end(body);
}

/**
 * A failure in OTLP form. A body not yet read is dropped up to a bound (`discardRest`), or
 * never comes when the client waits for `100 Continue` (then the connection closes).
 */
function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  encoding: OtlpEncoding,
  status: number,
  message: string,
  o: { retryAfter?: number; expectsContinue?: boolean; allow?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (o.retryAfter) headers['retry-after'] = String(o.retryAfter);
  if (o.allow) headers.allow = o.allow;
  if (status === 408) {
    // The client stalled: it gets the reply, then the connection ends.
    headers.connection = 'close';
    res.once('finish', () => req.socket.end());
  } else if (o.expectsContinue && !req.readableFlowing) headers.connection = 'close';
  else discardRest(req);
  reply(res, status, encoding, statusBody(encoding, message), headers);
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  const body = Buffer.from(`${text}\n`);
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': body.length,
    ...(status >= 400 ? { connection: 'close' } : {}),
    ...headers,
  });
  res.end(body);
}

function json(res: ServerResponse, value: unknown) {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': body.length,
    'cache-control': 'no-store',
  });
  res.end(body);
}

/** `GET api/received/?offset=N&limit=M`: one page of the received traces (a bad parameter: 400). */
function listPage(req: IncomingMessage, res: ServerResponse, store: TraceStore) {
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  const param = (name: string, fallback: number, min: number, max: number) => {
    const text = query.get(name);
    const n = text === null ? fallback : /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
    return n >= min && n <= max ? n : null;
  };
  const offset = param('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = param('limit', RECEIVED_PAGE_MAX, 1, RECEIVED_PAGE_MAX);
  if (offset === null || limit === null)
    return plain(res, 400, `offset must be a whole number ≥ 0 and limit one from 1 to ${RECEIVED_PAGE_MAX}`);
  const { traces, total } = store.page(offset, limit);
  const list: ReceivedList = { dir: store.dir, traces, total, offset, limit, memory: memory() };
  json(res, list);
}

async function sendTraceFile(res: ServerResponse, store: TraceStore, traceId: string) {
  const bytes = await store.readComplete(traceId);
  if (!bytes) return plain(res, 404, `no trace ${traceId} received`);
  res.writeHead(200, {
    'content-type': 'application/x-ndjson',
    'content-length': bytes.length,
    'cache-control': 'no-store',
  });
  res.end(bytes);
}

/** The host name of a Host header (`[::1]:4318` → `::1`). */
function hostName(host: string | undefined): string {
  const h = host ?? '';
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.split(':')[0];
}

function memory() {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}
