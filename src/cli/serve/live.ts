/**
 * The live list for the page: Server-Sent Events (`event: traces` with the whole list when a
 * page connects, then `event: trace` with each trace that grew, at most a few times a second
 * per trace), and a line on stderr per trace that grew, as coalesced.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredTrace, TraceStore } from './store.ts';

/** How often grown traces are announced (ms). */
const FLUSH_MS = 250;
/** A comment line this often keeps proxies and the browser from timing the stream out. */
const KEEPALIVE_MS = 20_000;

export class LiveEvents {
  readonly #clients = new Set<ServerResponse>();
  readonly #changed = new Map<string, StoredTrace>();
  #timer: NodeJS.Timeout | null = null;
  readonly #keepalive: NodeJS.Timeout;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly store: TraceStore,
    private readonly log: (line: string) => void,
  ) {
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
    res.write(`retry: 2000\nevent: traces\ndata: ${JSON.stringify(this.store.list())}\n\n`);
    this.#clients.add(res);
    req.on('close', () => this.#clients.delete(res));
  }

  #grew(t: StoredTrace): void {
    this.#changed.set(t.traceId, t);
    this.#timer ??= setTimeout(() => this.#flush(), FLUSH_MS);
  }

  #flush(): void {
    this.#timer = null;
    for (const trace of this.#changed.values()) {
      this.#send(`event: trace\ndata: ${JSON.stringify(trace)}\n\n`);
      // The root span's name is the sender's text: quoted, so it cannot drive the terminal.
      const root = trace.root === null ? '' : ` ${JSON.stringify(trace.root.slice(0, 80))}`;
      this.log(`received ${trace.file}: ${trace.spans} span(s) so far${root}`);
    }
    this.#changed.clear();
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
