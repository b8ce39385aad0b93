import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { cached, ScriptedChatModel } from '../../src/core/llm/index.ts';
import { IndexedDbCacheStore } from '../../src/db/llm-cache.ts';

describe('IndexedDbCacheStore (Dexie)', () => {
  it('persists responses across store instances and serves reruns for free', async () => {
    const req = { messages: [{ role: 'user' as const, content: 'Which op lost the fact?' }], temperature: 0 };
    const first = new ScriptedChatModel(['op 12']);
    const a = new IndexedDbCacheStore('llm-cache-test');
    expect((await cached(first, a).complete(req)).text).toBe('op 12');
    a.close();
    const b = new IndexedDbCacheStore('llm-cache-test');
    expect(await b.size()).toBe(1);
    const second = new ScriptedChatModel([]); // would fail if called
    const r = await cached(second, b).complete(req);
    expect(r).toMatchObject({ text: 'op 12', cached: true });
    expect(second.requests).toHaveLength(0);
    await b.clear();
    expect(await b.size()).toBe(0);
  });
});
