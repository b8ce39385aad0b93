/**
 * Traces a `memtrace serve` on this page's origin received over OTLP, listed live (Server-
 * Sent Events) and imported like a dropped file (the same engine worker, validation and
 * warnings). The server marks the page it serves with `<meta name="memtrace-serve">`; on a
 * static deployment there is no tag, so nothing is requested and nothing shows.
 */
import type { ReceivedTraceFile } from '../../core/receiver/index.ts';
import type { Importer } from './importer.svelte.ts';

type ReceiverState = 'connecting' | 'live' | 'lost';

class ReceivedTraces {
  /** The receiver's list URL relative to the page, or null when the page was not served by one. */
  readonly api: string | null;
  #traces = $state.raw<ReceivedTraceFile[]>([]);
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
      this.#traces = JSON.parse((e as MessageEvent<string>).data) as ReceivedTraceFile[];
    });
    events.addEventListener('trace', (e) => {
      const t = JSON.parse((e as MessageEvent<string>).data) as ReceivedTraceFile;
      this.#traces = [t, ...this.#traces.filter((x) => x.traceId !== t.traceId)];
    });
    events.onopen = () => (this.#state = 'live');
    events.onerror = () => (this.#state = events.readyState === EventSource.CLOSED ? 'lost' : 'connecting');
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
