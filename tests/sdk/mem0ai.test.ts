import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { seededIds, steppingClock, Tracer } from '../../src/sdk/index.ts';
import { type Mem0MemoryLike, traceMem0 } from '../../src/sdk/mem0ai.ts';
import { stubMem0aiPeers } from '../helpers/mem0ai-peers.ts';

// mem0ai/oss imports every provider SDK; the ones this test does not use are stubbed
// (the LLM is scripted, the embedder deterministic, the vector store is mem0's own SQLite one).
stubMem0aiPeers();

/** A deterministic 8-dimensional embedder (word hashes) standing in for a real one. */
const embedder = {
  async embed(text: string) {
    const v = new Array(8).fill(0);
    for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) v[w.length % 8] += 1;
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  },
  async embedBatch(texts: string[]) {
    return Promise.all(texts.map((t) => this.embed(t)));
  },
};

describe('traceMem0 (mem0ai 2.4 Memory, real in-memory SQLite store, scripted LLM)', () => {
  it('traces add (extraction, update decisions, ADD/UPDATE/DELETE) and search into a clean graph', async () => {
    const { Memory } = await import('mem0ai/oss');
    const real = new Memory({
      disableHistory: true,
      embedder: { provider: 'openai', config: { apiKey: 'unused', embeddingDims: 8 } },
      vectorStore: {
        provider: 'memory',
        config: { collectionName: 'test', dimension: 8, dbPath: ':memory:' },
      },
      llm: { provider: 'openai', config: { apiKey: 'unused' } },
    });
    // The test swaps in a scripted LLM and embedder (fields mem0ai declares private).
    const memory = real as unknown as Mem0MemoryLike;
    // The scripted LLM answers by the prompt it receives, as the real one would be asked.
    let round = 0;
    memory.llm = {
      async generateResponse(messages: { role: string; content: string }[]) {
        const all = messages.map((m) => m.content).join('\n');
        if (/smart memory manager/i.test(all)) {
          round++;
          if (round === 1) return JSON.stringify({ memory: [{ id: '0', text: 'Likes tea', event: 'ADD' }] });
          if (round === 2)
            return JSON.stringify({
              memory: [{ id: '0', text: 'Likes green tea', event: 'UPDATE', old_memory: 'Likes tea' }],
            });
          return JSON.stringify({ memory: [{ id: '0', text: 'Likes green tea', event: 'DELETE' }] });
        }
        if (round === 0) return JSON.stringify({ facts: ['Likes tea'] });
        if (round === 1) return JSON.stringify({ facts: ['Likes green tea'] });
        return JSON.stringify({ facts: ['Does not like tea any more'] });
      },
    } as Mem0MemoryLike['llm'];
    memory.embedder = embedder;
    const tracer = new Tracer({ clock: steppingClock(Date.UTC(2026, 0, 1), 1), ids: seededIds(3) });
    traceMem0(real, tracer, { model: 'scripted' });

    await real.add('I like tea.', { userId: 'u1' });
    await real.add('Actually, green tea.', { userId: 'u1' });
    await real.add('I stopped drinking tea.', { userId: 'u1' });
    await real.add('I like coffee.', { userId: 'u1' }); // the script says DELETE with nothing to delete
    const found = (await real.search('What do I drink?', { userId: 'u1' })) as { results: unknown[] };
    expect(Array.isArray(found.results)).toBe(true);

    const doc = tracer.document();
    const ops = doc.data.operations.map((o) => o.op_name);
    expect(ops).toContain('fact-extraction');
    expect(ops).toContain('memory-update-decision');
    expect(ops.filter((n) => n === 'memory-update')).toHaveLength(2); // ADD then UPDATE
    expect(ops).toContain('memory-delete');
    const unit = doc.data.nodes.filter((n) => n.category === 'memory_entry');
    expect(unit.map((n) => [n.version, n.value])).toEqual([
      [1, "'Likes tea'"],
      [2, "'Likes green tea'"],
      [3, 'None'],
    ]);
    expect(new Set(unit.map((n) => n.name)).size).toBe(1);
    expect(doc.data.nodes.filter((n) => n.category === 'message')).toHaveLength(4);
    expect(doc.data.nodes.some((n) => n.class_name === 'query')).toBe(true);
    expect(
      doc.data.nodes.some((n) => n.name === 'fact-extraction-system-prompt' && n.category === 'prompt'),
    ).toBe(true);
    expect(openTrace(JSON.stringify(doc), { file: 'mem0ai.json' }).issues).toEqual([]);
  });
});
