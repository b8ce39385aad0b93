/**
 * Traces a `memtrace serve` on this page's origin received over OTLP, listed live (Server-
 * Sent Events) and imported like a dropped file (the same engine worker, validation and
 * warnings). The server marks the page it serves with `<meta name="memtrace-serve">`; on a
 * static deployment there is no tag, so nothing is requested and nothing shows.
 */
import type { ReceivedList, ReceivedTraceFile } from '../../core/receiver/index.ts';
import type { Page } from '../lib/table.ts';
import type { Importer } from './importer.svelte.ts';

type ReceiverState = 'connecting' | 'live' | 'lost';

/** Rows a page of the list shows (the server's event stream sends the first page). */
export const RECEIVED_PAGE = 100;

class ReceivedTraces {
  /** The receiver's list URL relative to the page, or null when the page was not served by one. */
  readonly api: string | null;
  /** The page shown: the first (live from the event stream) or one fetched from the list. */
  #traces = $state.raw<ReceivedTraceFile[]>([]);
  /** The shown page's first row's place in the whole list (newest first). */
  #offset = $state(0);
  /** How many traces the receiver has. */
  #total = $state(0);
  /** The first page as the event stream keeps it, shown again when the user comes back to it. */
  #live: ReceivedTraceFile[] = [];
  #state = $state<ReceiverState>('connecting');
  /** Per trace id: the graph_id it was stored as and its span count then (-1: it was stored already). */
  #imported = $state.raw<Record<string, { traceId: string; spans: number }>>({});
  #message = $state<string | null>(null);

  constructor(
    doc: Document,
    private readonly importer: Importer,
  ) {
    this.api = doc.querySelector('meta[name="memtrace-serve"]')?.getAttribute('content') ?? null;
  }

  get traces(): ReceivedTraceFile[] {
    return this.#traces;
  }
  /** The page shown, as the list's pager reads it. */
  get shown(): Page<ReceivedTraceFile> {
    const total = Math.max(this.#total, this.#offset + this.#traces.length);
    const page = Math.floor(this.#offset / RECEIVED_PAGE);
    const pages = Math.max(1, Math.ceil(total / RECEIVED_PAGE));
    return { rows: this.#traces, page, pages, first: this.#offset, total };
  }
  get state(): ReceiverState {
    return this.#state;
  }
  get message(): string | null {
    return this.#message;
  }
  /** The stored trace this received one was imported as (from this page), and its spans then. */
  imported(traceId: string): { traceId: string; spans: number } | undefined {
    return this.#imported[traceId];
  }

  /** Opens the event stream (the browser reconnects by itself after a drop). */
  start(): void {
    if (!this.api) return;
    const events = new EventSource(`${this.api}events`);
    events.addEventListener('traces', (e) => {
      this.#showLive(JSON.parse((e as MessageEvent<string>).data) as ReceivedTraceFile[]);
    });
    events.addEventListener('trace', (e) => {
      const t = JSON.parse((e as MessageEvent<string>).data) as ReceivedTraceFile;
      this.#showLive([t, ...this.#live.filter((x) => x.traceId !== t.traceId)].slice(0, RECEIVED_PAGE));
      // A later page keeps its rows in place; a row on it that grew shows its new counts.
      if (this.#offset > 0) this.#traces = this.#traces.map((x) => (x.traceId === t.traceId ? t : x));
    });
    events.addEventListener('count', (e) => {
      this.#total = (JSON.parse((e as MessageEvent<string>).data) as { total: number }).total;
    });
    events.onopen = () => (this.#state = 'live');
    events.onerror = () => (this.#state = events.readyState === EventSource.CLOSED ? 'lost' : 'connecting');
  }

  #showLive(first: ReceivedTraceFile[]): void {
    this.#live = first;
    if (this.#offset === 0) this.#traces = first;
  }

  /** Shows page `page` (0-based, clamped to the pages there are); the first page is the live one. */
  async showPage(page: number): Promise<void> {
    if (!this.api) return;
    const from = Math.max(0, Math.min(page, this.shown.pages - 1)) * RECEIVED_PAGE;
    if (from === 0) {
      this.#offset = 0;
      this.#traces = this.#live;
      return;
    }
    try {
      const res = await fetch(`${this.api}?offset=${from}&limit=${RECEIVED_PAGE}`, { cache: 'no-store' });
      if (!res.ok) throw new Error(`the receiver answered ${res.status}`);
      const list = (await res.json()) as ReceivedList;
      this.#offset = from;
      this.#traces = list.traces;
      this.#total = list.total;
      this.#message = null;
    } catch (e) {
      this.#message = `Could not fetch the list: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /**
   * Fetches the trace's file (its whole lines) and imports it as a drop would; a trace this
   * page imported before is replaced (it grew), one stored otherwise is asked about.
   */
  async import(t: ReceivedTraceFile): Promise<void> {
    if (!this.api || this.importer.running) return;
    this.#message = null;
    let blob: Blob;
    try {
      const res = await fetch(`${this.api}${t.file}`, { cache: 'no-store' });
      if (!res.ok) throw new Error(`the receiver answered ${res.status}`);
      blob = await res.blob();
    } catch (e) {
      this.#message = `Could not fetch ${t.file}: ${e instanceof Error ? e.message : String(e)}`;
      return;
    }
    const path = `received/${t.file}`;
    const spans = t.spans;
    await this.importer.start([{ blob, name: t.file, path }], { replace: !!this.#imported[t.traceId] });
    const result = this.importer.results.find((r) => r.path === path);
    if (!result?.traceId) return;
    // Stored, replaced, or already there (the import panel asks): a later click replaces it.
    const done = result.status === 'stored' || result.status === 'replaced';
    if (done || result.status === 'exists')
      this.#imported = {
        ...this.#imported,
        [t.traceId]: { traceId: result.traceId, spans: done ? spans : -1 },
      };
  }
}

let shared: ReceivedTraces | null = null;

/**
 * The page's one list of received traces, its event stream opened on first use and kept
 * for the page's life (the panel comes and goes with the route; the list and what was
 * imported from it stay).
 */
export function receivedTraces(doc: Document, importer: Importer): ReceivedTraces {
  if (!shared) {
    shared = new ReceivedTraces(doc, importer);
    shared.start();
  }
  return shared;
}
