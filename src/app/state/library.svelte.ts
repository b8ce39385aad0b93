/**
 * The stored traces as the views see them; refreshed after imports and deletions. Their labelled
 * case counts follow the database live (a Dexie live query over cases and labels), so a label
 * saved anywhere — a case, the queue, a correction, an annotations file, by this page or a
 * worker — counts at once in every view that shows them.
 */
import { liveQuery } from 'dexie';
import { getContext, setContext } from 'svelte';
import { labelledCounts, listTraces } from '../../db/repo.ts';
import type { TraceMeta } from '../../db/schema.ts';
import type { Services } from './services.ts';

export class Library {
  #traces = $state.raw<TraceMeta[]>([]);
  #loaded = $state(false);
  #error = $state<string | null>(null);
  /** Bumped on every change so views re-read what they show. */
  #version = $state(0);
  /** Labelled cases per trace (null until first read). */
  #labelled = $state.raw<Map<string, number> | null>(null);

  constructor(private readonly services: Services) {
    // Lives as long as the page (the library is the app's).
    liveQuery(() => labelledCounts(services.db)).subscribe({
      next: (counts) => {
        this.#labelled = counts;
      },
      error: (e: unknown) => {
        this.#error = `Could not count the labelled cases: ${e instanceof Error ? e.message : String(e)}`;
      },
    });
  }

  get traces(): TraceMeta[] {
    return this.#traces;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string | null {
    return this.#error;
  }
  get version(): number {
    return this.#version;
  }
  /** A trace's labelled cases (by the file or any live label); the file's count until the first read. */
  labelled(t: TraceMeta): number {
    return this.#labelled ? (this.#labelled.get(t.id) ?? 0) : t.labelledCount;
  }
  /** Changes whenever any case's labels change (views listing labels re-read on it). */
  get labels(): ReadonlyMap<string, number> | null {
    return this.#labelled;
  }
  byId(id: string): TraceMeta | undefined {
    return this.#traces.find((t) => t.id === id);
  }
  get systems(): string[] {
    return [...new Set(this.#traces.map((t) => t.system).filter((s): s is string => !!s))].sort();
  }

  async refresh(): Promise<void> {
    try {
      this.#traces = await listTraces(this.services.db);
      this.#error = null;
    } catch (e) {
      this.#error = `Could not read the stored traces: ${e instanceof Error ? e.message : String(e)}`;
    }
    this.#loaded = true;
    this.#version++;
  }

  async remove(id: string): Promise<void> {
    await this.services.engine.deleteTrace(id);
    await this.refresh();
  }
}

const KEY = Symbol('library');
export function setupLibrary(services: Services): Library {
  return setContext(KEY, new Library(services));
}
export function useLibrary(): Library {
  return getContext<Library>(KEY);
}
