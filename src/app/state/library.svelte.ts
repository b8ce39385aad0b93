/** The stored traces as the views see them; refreshed after imports and deletions. */
import { getContext, setContext } from 'svelte';
import { deleteTrace, listTraces } from '../../db/repo.ts';
import type { TraceMeta } from '../../db/schema.ts';
import type { Services } from './services.ts';

export class Library {
  #traces = $state.raw<TraceMeta[]>([]);
  #loaded = $state(false);
  #error = $state<string | null>(null);
  /** Bumped on every change so views re-read what they show. */
  #version = $state(0);

  constructor(private readonly services: Services) {}

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
    await deleteTrace(this.services.db, id);
    await this.services.analysis.forget(id);
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
