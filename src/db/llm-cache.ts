/**
 * The LLM response cache in IndexedDB (its own small database, `memtrace-llm-cache`, so it
 * can be cleared without touching traces). Implements core's `CacheStore`.
 */
import Dexie, { type EntityTable } from 'dexie';
import type { CacheEntry, CacheStore } from '../core/llm/index.ts';

interface Row extends CacheEntry {
  key: string;
}

class LlmCacheDb extends Dexie {
  entries!: EntityTable<Row, 'key'>;
  constructor(name: string) {
    super(name);
    this.version(1).stores({ entries: 'key, createdAt' });
  }
}

export class IndexedDbCacheStore implements CacheStore {
  private readonly db: LlmCacheDb;
  constructor(name = 'memtrace-llm-cache') {
    this.db = new LlmCacheDb(name);
  }
  async get(key: string): Promise<CacheEntry | undefined> {
    const row = await this.db.entries.get(key);
    if (!row) return undefined;
    const { key: _k, ...entry } = row;
    return entry;
  }
  async set(key: string, entry: CacheEntry): Promise<void> {
    await this.db.entries.put({ key, ...entry });
  }
  async size(): Promise<number> {
    return this.db.entries.count();
  }
  async clear(): Promise<void> {
    await this.db.entries.clear();
  }
  close() {
    this.db.close();
  }
}
