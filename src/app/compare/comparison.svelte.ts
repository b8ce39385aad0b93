/**
 * The comparison of two stored traces, run in the engine worker (core/compare via
 * `EngineApi.compareTraces`) with progress and cancel; the newest request wins.
 */
import * as Comlink from 'comlink';
import type { CompareProgress, RunComparison } from '../../../workers/api.ts';
import type { Services } from '../state/services.ts';

export class Comparison {
  #value = $state.raw<RunComparison | null>(null);
  #progress = $state.raw<CompareProgress | null>(null);
  #running = $state(false);
  #error = $state<string | null>(null);
  #cancelled = $state(false);
  #key = '';
  #request = 0;
  #abort: AbortController | null = null;

  constructor(private readonly services: Services) {}

  get value(): RunComparison | null {
    return this.#value;
  }
  get progress(): CompareProgress | null {
    return this.#progress;
  }
  get running(): boolean {
    return this.#running;
  }
  get error(): string | null {
    return this.#error;
  }
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Compares A with B unless that is what is shown (or running) already. */
  async load(a: string, b: string): Promise<void> {
    const key = JSON.stringify([a, b]);
    if (key === this.#key && (this.#value || this.#running)) return;
    this.#key = key;
    const id = ++this.#request;
    this.#value = null;
    this.#error = null;
    this.#cancelled = false;
    this.#progress = null;
    this.#running = true;
    this.#abort?.abort();
    this.#abort = new AbortController();
    try {
      const r = await this.services.analysis.compareTraces(
        a,
        b,
        Comlink.proxy((p: CompareProgress) => {
          if (id === this.#request) this.#progress = p;
        }),
        this.#abort.signal,
      );
      if (id !== this.#request) return;
      if (r.status === 'done') this.#value = r.comparison;
      else this.#cancelled = true;
    } catch (e) {
      if (id === this.#request) this.#error = e instanceof Error ? e.message : String(e);
    } finally {
      if (id === this.#request) this.#running = false;
    }
  }

  cancel(): void {
    if (!this.#running) return;
    this.#key = '';
    this.#abort?.abort();
  }
}
