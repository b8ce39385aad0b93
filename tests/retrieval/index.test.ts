import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FRONTIER } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  corpusFromGraph,
  EmbedderHost,
  HashedNgramEmbedder,
  type IndexStore,
  indexKey,
  RetrievalIndex,
  START_POINTS,
  startPointQuery,
  startPoints,
  TraceRetrieval,
} from '../../src/core/retrieval/index.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const FILE = join(SMARTCOMMENT_DIR, 'conv-26-fault-3.json');
const TEXT = readFileSync(FILE, 'utf8');

function graphOf(text: string) {
  const r = openTrace(text, { file: 'x.json' });
  if (!r.ok) throw new Error('fixture did not load');
  return r.graph;
}

/** The trace with one message's content replaced. */
function withMessage(name: string, content: string): string {
  const doc = JSON.parse(TEXT);
  const node = doc.data.nodes.find((n: { name: string }) => n.name === name);
  node.value = `'${JSON.stringify({ content, name: 'Caroline', role: 'user' })}'`;
  return JSON.stringify(doc);
}

function memoryStore(): IndexStore & { puts: number } {
  const m = new Map<string, Uint8Array>();
  return {
    puts: 0,
    async get(slot) {
      return m.get(slot);
    },
    async put(slot, bytes) {
      this.puts++;
      m.set(slot, bytes);
    },
  };
}

describe('documents and index keys', () => {
  it('messages are the variables of category message, as unquoted text', () => {
    const g = graphOf(TEXT);
    const c = corpusFromGraph(g, 'messages');
    expect(c.ids).toHaveLength(76);
    expect(c.ids[0]).toBe('conv-26:D1:1@1');
    expect(c.texts[0]).toBe(
      '{"content": "Hey Mel! Good to see you! How have you been?", "name": "Caroline", "role": "user", "timestamp": "1:56 pm on 8 May, 2023"}',
    );
    const all = corpusFromGraph(g, 'all');
    expect(all.ids.length).toBeGreaterThan(300);
  });

  it('the key changes with a message, the scope or the model, not with other variables', () => {
    const base = corpusFromGraph(graphOf(TEXT), 'messages');
    const k = indexKey(base, null);
    expect(indexKey(corpusFromGraph(graphOf(TEXT), 'messages'), null)).toBe(k);
    expect(
      indexKey(corpusFromGraph(graphOf(withMessage('conv-26:D1:3', 'changed')), 'messages'), null),
    ).not.toBe(k);
    expect(indexKey(base, 'fallback:hashed-char-ngrams-v1:d256')).not.toBe(k);
    expect(indexKey(corpusFromGraph(graphOf(TEXT), 'all'), null)).not.toBe(k);
    // A judge response is not a message: the messages index stays valid.
    const doc = JSON.parse(TEXT);
    const judge = doc.data.nodes.find((n: { class_name: string }) => n.class_name === 'judge_response');
    judge.value = "'edited'";
    expect(indexKey(corpusFromGraph(graphOf(JSON.stringify(doc)), 'messages'), null)).toBe(k);
  });

  it('a serialised index reads back with the same key and results (BM25, dense, hybrid)', async () => {
    const embedder = new HashedNgramEmbedder();
    const ix = await RetrievalIndex.build(corpusFromGraph(graphOf(TEXT), 'messages'), { embedder });
    const back = RetrievalIndex.deserialize(ix.serialize());
    expect(back.key).toBe(ix.key);
    for (const method of ['bm25', 'dense', 'hybrid'] as const) {
      const q = { method, k: 8, embedder };
      expect(await back.search('adoption agencies LGBTQ', q)).toEqual(
        await ix.search('adoption agencies LGBTQ', q),
      );
    }
    await expect(
      back.search('x', { method: 'dense', embedder: new HashedNgramEmbedder(128) }),
    ).rejects.toThrow(/rebuild/);
  });
});

describe('start points (paper: messages, question + "\\n" + golden answer, top 8)', () => {
  it("keeps the paper's max_frontier / 2, the agents' to-explore limit halved", () => {
    expect(START_POINTS).toBe(MAX_FRONTIER / 2);
  });

  it('ranks messages for every failed question of a real trace', async () => {
    const g = graphOf(TEXT);
    const ix = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
    const cases = listCases(g);
    expect(cases.length).toBeGreaterThan(0);
    const c = cases[0];
    expect(startPointQuery(c.question, c.goldenAnswers)).toBe(`${c.question}\n${c.goldenAnswers.join('\n')}`);
    const hits = await startPoints(ix, c);
    expect(hits).toHaveLength(START_POINTS);
    expect(hits.every((h) => h.full_node_id.startsWith('conv-26:D'))).toBe(true);
    // The bm25 ranking is the index's bm25 ranking of that exact query.
    const direct = ix.bm25.search(startPointQuery(c.question, c.goldenAnswers), 8);
    expect(hits.map((h) => h.doc)).toEqual(direct.map((h) => h.doc));
  });
});

describe('TraceRetrieval and EmbedderHost (what the engine and the embedder worker hold)', () => {
  it('stores the index, reuses it, and rebuilds it when the trace changes', async () => {
    const store = memoryStore();
    const host = new EmbedderHost();
    expect((await host.setEmbedding({ kind: 'fallback' })).label).toContain('not a neural model');
    const opened = openTrace(TEXT, { file: 'conv.json' });
    if (!opened.ok) throw new Error('the test trace does not open');
    const s = new TraceRetrieval(opened.graph, 'conv.json', { store });
    const first = await s.buildIndex('messages', host.embedder);
    expect(first.fromStore).toBe(false);
    expect(first.docs).toBe(76);
    const again = await s.buildIndex('messages', host.embedder);
    expect(again.fromStore).toBe(true);
    expect(again.key).toBe(first.key);
    const before = await s.search('LGBTQ support group', { method: 'bm25', k: 3 });
    expect(before[0].full_node_id).toBe('conv-26:D1:3@1');

    // Same name, changed message: the stored index no longer matches and is rebuilt.
    const edited = openTrace(withMessage('conv-26:D1:3', 'We baked bread all afternoon.'), {
      file: 'conv.json',
    });
    if (!edited.ok) throw new Error('the edited trace does not open');
    const t = new TraceRetrieval(edited.graph, 'conv.json', { store });
    const changed = await t.buildIndex('messages', host.embedder);
    expect(changed.fromStore).toBe(false);
    expect(changed.key).not.toBe(first.key);
    expect(store.puts).toBe(2);
    const after = await t.search('LGBTQ support group', { method: 'bm25', k: 3 });
    expect(after.map((h) => h.full_node_id)).not.toContain('conv-26:D1:3@1');

    // Another model: another index (the dense half belongs to the model).
    await host.setEmbedding({ kind: 'none' });
    expect(host.embedderInfo().kind).toBe('none');
    expect((await t.buildIndex('messages', host.embedder)).modelId).toBeNull();
    await expect(t.search('x', { method: 'hybrid' })).rejects.toThrow();
  });

  it('gives start points of a failed question by id', async () => {
    const host = new EmbedderHost();
    await host.setEmbedding({ kind: 'fallback' });
    const opened = openTrace(TEXT, { file: 'conv.json' });
    if (!opened.ok) throw new Error('the test trace does not open');
    const s = new TraceRetrieval(opened.graph, 'conv.json');
    await s.buildIndex('messages', host.embedder);
    const [c] = s.cases();
    const hits = await s.startPoints(c.queryId, host.embedder);
    expect(hits).toHaveLength(8);
    expect(hits[0].bm25Rank !== undefined).toBe(true); // hybrid with an embedder
  });
});
