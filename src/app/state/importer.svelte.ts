/** One import at a time: progress, per-file results, and the "replace?" question. */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type { FileResult, ImportInput, ImportProgress } from '../../../workers/api.ts';
import { refreshSpanTable } from '../spans/cache.ts';
import type { Library } from './library.svelte.ts';
import type { Services } from './services.ts';
import type { StorageInfo } from './storage.svelte.ts';

export class Importer {
  #running = $state(false);
  #progress = $state.raw<ImportProgress | null>(null);
  #results = $state.raw<FileResult[]>([]);
  /** Files whose graph_id is already stored, waiting for the person's answer. */
  #pending = $state.raw<{ input: ImportInput; result: FileResult }[]>([]);
  #cancelling = $state(false);
  #abort: AbortController | null = null;
  /** Files of the last pick or drop left out because they are not `.json` files. */
  #skipped = $state.raw<string[]>([]);

  constructor(
    private readonly services: Services,
    private readonly library: Library,
    /** Asked to keep the data (persistent storage) at the first import; refreshed after each. */
    private readonly storage?: StorageInfo,
  ) {}

  get running(): boolean {
    return this.#running;
  }
  get progress(): ImportProgress | null {
    return this.#progress;
  }
  get results(): FileResult[] {
    return this.#results;
  }
  get pending(): { input: ImportInput; result: FileResult }[] {
    return this.#pending;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get skipped(): string[] {
    return this.#skipped;
  }
  /** 0..1 */
  get fraction(): number {
    const p = this.#progress;
    return p && p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 0;
  }

  /** The imports asked for, one after another (the import worker runs one at a time). */
  #queue: Promise<void> = Promise.resolve();

  /**
   * Imports files. `replace`: replace stored traces with the same graph_id; `skipped`:
   * files of the same pick left out (not `.json`), reported with the results. A pick made
   * while another import runs (the first-run demo, an earlier drop) waits for it: it is
   * never dropped.
   */
  start(inputs: ImportInput[], options: { replace?: boolean; skipped?: string[] } = {}): Promise<void> {
    const run = this.#queue.then(() => this.#import(inputs, options));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #import(inputs: ImportInput[], options: { replace?: boolean; skipped?: string[] }): Promise<void> {
    const replace = options.replace ?? false;
    if (!replace) {
      this.#skipped = options.skipped ?? [];
      this.#results = [];
    }
    if (inputs.length === 0) return;
    this.#running = true;
    this.#cancelling = false;
    this.#progress = null;
    this.#abort = new AbortController();
    void this.storage?.persist();
    // The first case opened after the import needs the matcher's vectors: they download meanwhile.
    this.services.downloadWordVectors();
    try {
      const results = await this.services.engine.importFiles(
        inputs,
        { replace },
        Comlink.proxy((p: ImportProgress) => {
          this.#progress = p;
        }),
        this.#abort.signal,
      );
      const waiting = results.flatMap((result, i) =>
        result.status === 'exists' ? [{ input: inputs[i], result }] : [],
      );
      this.#pending = waiting;
      // The span rows of what was stored are asked for now, before the engine's attribution warm-up.
      for (const r of results
        .filter((x) => x.status === 'stored' || x.status === 'replaced' || x.status === 'questions')
        .slice(-2))
        if (r.traceId) refreshSpanTable(this.services.engine, r.traceId);
      // A replaced trace's engine already holds the new graph (the engine adopts what it stores).
      this.#results = [...this.#results.filter((r) => !results.some((x) => x.path === r.path)), ...results];
    } catch (e) {
      this.#results = [
        ...this.#results,
        {
          name: 'import',
          path: '',
          status: 'failed',
          issues: [],
          errorCount: 1,
          warningCount: 0,
          message: `The import stopped unexpectedly: ${e instanceof Error ? e.message : String(e)}`,
        },
      ];
    } finally {
      this.#running = false;
      this.#cancelling = false;
      this.#progress = null;
      await this.library.refresh();
      void this.storage?.refresh();
    }
  }

  cancel(): void {
    if (!this.#running) return;
    this.#cancelling = true;
    this.#abort?.abort();
  }

  /** Answers the replace question for the waiting files. */
  async answer(replace: boolean): Promise<void> {
    const waiting = this.#pending;
    this.#pending = [];
    if (replace)
      await this.start(
        waiting.map((w) => w.input),
        { replace: true },
      );
    else
      this.#results = this.#results.map((r) =>
        waiting.some((w) => w.result.path === r.path) ? { ...r, message: 'Kept the stored trace.' } : r,
      );
  }

  dismiss(): void {
    if (this.#running) return;
    this.#results = [];
    this.#skipped = [];
  }
}

const KEY = Symbol('importer');
export function setupImporter(services: Services, library: Library, storage?: StorageInfo): Importer {
  return setContext(KEY, new Importer(services, library, storage));
}
export function useImporter(): Importer {
  return getContext<Importer>(KEY);
}
