/**
 * The browser storage the workbench keeps traces in: space used and available
 * (`navigator.storage.estimate`) and whether the browser may evict it
 * (`navigator.storage.persist`, asked at the first import). `setup…/use…` context pair.
 */
import { getContext, setContext } from 'svelte';

/** The part of `navigator.storage` used here (absent in old browsers and some contexts). */
interface StorageManagerLike {
  estimate(): Promise<{ usage?: number; quota?: number }>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

export class StorageInfo {
  #usage = $state<number | null>(null);
  #quota = $state<number | null>(null);
  #persisted = $state<boolean | null>(null);
  #asked = false;

  constructor(private readonly storage: StorageManagerLike | undefined) {}

  /** Bytes used by this site, null when unknown. */
  get usage(): number | null {
    return this.#usage;
  }
  /** Bytes this site may use in all, null when unknown. */
  get quota(): number | null {
    return this.#quota;
  }
  /** True: the browser keeps the data under storage pressure; false: it may evict it; null: unknown. */
  get persisted(): boolean | null {
    return this.#persisted;
  }
  get supported(): boolean {
    return !!this.storage;
  }

  async refresh(): Promise<void> {
    if (!this.storage) return;
    try {
      const e = await this.storage.estimate();
      this.#usage = e.usage ?? null;
      this.#quota = e.quota ?? null;
      if (this.storage.persisted) this.#persisted = await this.storage.persisted();
    } catch {
      // estimate can fail in some private modes: keep the figures unknown
    }
  }

  /**
   * Asks for persistent storage — once unless `again` (a person's click); the browser may
   * say no (headless Chromium does): the answer is shown.
   */
  async persist(again = false): Promise<boolean | null> {
    if (!this.storage?.persist || (this.#asked && !again) || this.#persisted) return this.#persisted;
    this.#asked = true;
    try {
      this.#persisted = await this.storage.persist();
    } catch {
      this.#persisted = false;
    }
    return this.#persisted;
  }
}

const KEY = Symbol('storage');
export function setupStorage(storage: StorageManagerLike | undefined): StorageInfo {
  return setContext(KEY, new StorageInfo(storage));
}
export function useStorage(): StorageInfo {
  return getContext<StorageInfo>(KEY);
}
