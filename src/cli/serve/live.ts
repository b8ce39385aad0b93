/**
 * The live list for the page: Server-Sent Events (`event: traces` with the first page of the
 * list when a page connects, then `event: trace` with each trace that grew, at most a few
 * times a second per trace, or the first page again when more grew than it holds; `event:
 * count` with how many traces there are), and a line on stderr per trace that grew, as
 * coalesced (the first few of a burst, then how many more).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredTrace, TraceStore } from './store.ts';

/** How often grown traces are announced (ms). */
const FLUSH_MS = 250;
/** A comment line this often keeps proxies and the browser from timing the stream out. */
const KEEPALIVE_MS = 20_000;
/** Traces the stream sends as its first page (the page pages through the rest with `api/received/`). */
export const LIVE_PAGE = 100;
/** Lines a burst of grown traces writes to stderr before the rest are counted. */
const LOGGED = 10;

export class LiveEvents {
  readonly #clients = new Set<ServerResponse>();
  readonly #changed = new Map<string, StoredTrace>();
  /** The count the streams were last told. */
  #total: number;
  #timer: NodeJS.Timeout | null = null;
  readonly #keepalive: NodeJS.Timeout;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly store: TraceStore,
    private readonly log: (line: string) => void,
  ) {
    this.#total = store.size;
    this.#unsubscribe = store.onChange((t) => this.#grew(t));
    this.#keepalive = setInterval(() => this.#send(': keep-alive\n\n'), KEEPALIVE_MS).unref();
  }

  /** Starts an event stream for one page. */
  connect(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(`retry: 2000\n${this.#firstPage()}${this.#count()}`);
    this.#clients.add(res);
    req.on('close', () => this.#clients.delete(res));
  }

  #grew(t: StoredTrace): void {
    this.#changed.set(t.traceId, t);
    this.#timer ??= setTimeout(() => this.#flush(), FLUSH_MS);
  }

  #firstPage(): string {
    return `event: traces\ndata: ${JSON.stringify(this.store.page(0, LIVE_PAGE).traces)}\n\n`;
  }

  #count(): string {
    return `event: count\ndata: ${JSON.stringify({ total: this.store.size })}\n\n`;
  }

  #flush(): void {
    this.#timer = null;
    const grown = [...this.#changed.values()];
    this.#changed.clear();
    if (grown.length > LIVE_PAGE) this.#send(this.#firstPage());
    else for (const trace of grown) this.#send(`event: trace\ndata: ${JSON.stringify(trace)}\n\n`);
    if (this.store.size !== this.#total) {
      this.#total = this.store.size;
      this.#send(this.#count());
    }
    for (const trace of grown.slice(0, LOGGED)) {
      // The root span's name is the sender's text: quoted, so it cannot drive the terminal.
      const root = trace.root === null ? '' : ` ${JSON.stringify(trace.root.slice(0, 80))}`;
      this.log(`received ${trace.file}: ${trace.spans} span(s) so far${root}`);
    }
    if (grown.length > LOGGED) this.log(`… and ${grown.length - LOGGED} more trace(s) grew`);
  }

  #send(text: string): void {
    for (const res of this.#clients) res.write(text);
  }

  /** Ends every stream (the server is stopping). */
  close(): void {
    if (this.#timer) this.#flush();
    clearInterval(this.#keepalive);
    this.#unsubscribe();
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}
