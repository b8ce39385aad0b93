/** The response cache in a folder (CLI): one JSON file per request key, written atomically. */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CacheEntry, CacheStore } from './cache.ts';

export class FolderCacheStore implements CacheStore {
  constructor(readonly dir: string) {}

  private file(key: string) {
    if (!/^[0-9a-f]{16,128}$/.test(key)) throw new Error(`bad cache key ${key}`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8')) as CacheEntry;
    } catch {
      return undefined;
    }
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const f = this.file(key);
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    const tmp = `${f}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, JSON.stringify(entry));
    await rename(tmp, f);
  }

  async size(): Promise<number> {
    let n = 0;
    try {
      for (const d of await readdir(this.dir))
        n += (await readdir(join(this.dir, d))).filter((f) => f.endsWith('.json')).length;
    } catch {
      /* no folder yet */
    }
    return n;
  }

  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
