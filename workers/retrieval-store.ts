/**
 * Where the retrieval worker keeps serialised indexes: one IndexedDB object store,
 * one value per slot (trace name | scope | model); the value carries its content key,
 * so a stale one is detected and overwritten. (A plain IndexedDB database of its own,
 * `memtrace-retrieval`, so this worker needs nothing from src/db; the db owner can
 * swap in the Dexie `indexes` table by implementing `IndexStore`.)
 */
import type { IndexStore } from '../src/core/retrieval/index.ts';

const DB = 'memtrace-retrieval';
const STORE = 'indexes';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

export function idbIndexStore(idb: IDBFactory = indexedDB): IndexStore {
  let db: Promise<IDBDatabase> | null = null;
  const open = () => {
    if (!db) {
      const r = idb.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      db = request(r);
    }
    return db;
  };
  return {
    async get(slot) {
      const d = await open();
      const v = await request(d.transaction(STORE, 'readonly').objectStore(STORE).get(slot));
      return v instanceof ArrayBuffer ? new Uint8Array(v) : v instanceof Uint8Array ? v : undefined;
    },
    async put(slot, bytes) {
      const d = await open();
      const t = d.transaction(STORE, 'readwrite');
      t.objectStore(STORE).put(bytes.slice().buffer, slot);
      await new Promise<void>((resolve, reject) => {
        t.oncomplete = () => resolve();
        t.onerror = () => reject(t.error);
        t.onabort = () => reject(t.error ?? new Error('IndexedDB write aborted'));
      });
    },
  };
}
