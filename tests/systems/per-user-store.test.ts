import { describe, expect, it } from 'vitest';
import { parseValue, type TraceDocument } from '../../src/core/trace/index.ts';
import { Tracer } from '../../src/sdk/index.ts';
import {
  type Conversation,
  contradicts,
  PerUserStore,
  type PerUserStoreOptions,
  runSystem,
  type Turn,
} from '../../src/systems/index.ts';

/** A turn whose recorded memory is `fact` (the `recorded` mode replays it). */
const turn = (id: string, speaker: string, text: string, fact: string): Turn => ({
  id,
  speaker,
  role: speaker === 'Alice' ? 'user' : 'assistant',
  text,
  recorded: [{ text: fact, sources: [id], kind: 'observation' }],
});

/** Bob's dog, then two facts of Alice; later Bob gives the dog away. */
const conv: Conversation = {
  dataset: 'locomo',
  id: 'hand',
  speakers: ['Alice', 'Bob'],
  sessions: [
    {
      index: 1,
      id: 's1',
      dateTime: '1:00 pm on 8 May, 2023',
      turns: [
        turn('D1:1', 'Bob', 'My dog Rex loves the beach.', 'Bob has a dog named Rex.'),
        turn(
          'D1:2',
          'Alice',
          'I work nights at the hospital in Boston.',
          'Alice works as a nurse in Boston.',
        ),
        turn('D1:3', 'Alice', 'We hiked up Mount Tam on Sunday.', 'Alice loves hiking in the mountains.'),
      ],
    },
    {
      index: 2,
      id: 's2',
      dateTime: '2:00 pm on 20 May, 2023',
      turns: [turn('D2:1', 'Bob', 'Rex lives with my sister now.', 'Bob no longer has a dog named Rex.')],
    },
  ],
  questions: [
    {
      id: 'q-dog',
      question: "What is Bob's dog called?",
      answers: ['Rex'],
      evidence: ['D1:1'],
      category: 'single-hop',
      askedBefore: 2,
    },
  ],
};

async function traced(o: PerUserStoreOptions, c: Conversation = conv) {
  const t = new Tracer();
  const result = await runSystem(new PerUserStore(o), c, { tracer: t, memories: 'recorded' });
  return { doc: t.document(), result };
}

/** Each op's output values (parsed) by op name, in execution order. */
function outputs(doc: TraceDocument, opName: string): unknown[][] {
  const nodes = new Map(doc.data.nodes.map((n) => [n.full_node_id, n]));
  return doc.data.operations
    .filter((o) => o.op_name === opName)
    .map((o) =>
      doc.data.edges
        .filter((e) => e.op_id === o.op_id)
        .map((e) => e.target_full_node_id)
        .filter((id, i, all) => all.indexOf(id) === i)
        .map((id) => parseValue(String(nodes.get(id)?.value ?? ''))),
    );
}

describe('per-user store', () => {
  it('every fact of a message goes into both speakers’ stores: two units hold it', async () => {
    const { doc } = await traced({ capacity: 10 });
    const inserted = outputs(doc, 'user-store.insert').flat() as { memory: string; user_id: string }[];
    const dog = inserted.filter((r) => r.memory === 'Bob has a dog named Rex.');
    expect(dog.map((r) => r.user_id).sort()).toEqual(['Alice', 'Bob']);
    expect(inserted.length).toBe(3 * 2); // the first session's 3 facts, in 2 stores (the question comes before session 2)
  });

  it('expiry in one store leaves the copy in the other, and the answer still finds it', async () => {
    // Capacity 2: after Alice's second fact each store holds 3 units. Alice's store expires the
    // oldest unit about Bob (the dog); Bob's store the oldest about Alice (the nurse).
    const { doc, result } = await traced({ capacity: 2 });
    const expired = doc.data.operations.filter((o) => o.op_name === 'user-store.expire');
    expect(expired.map((o) => (o.metadata as { user_id: string }).user_id).sort()).toEqual(['Alice', 'Bob']);
    const dogUnits = doc.data.nodes.filter((n) => String(n.value).includes('Bob has a dog named Rex.'));
    const gone = doc.data.nodes.filter(
      (n) => n.value === 'None' && dogUnits.some((d) => d.name === n.name) && n.version > 1,
    );
    expect(gone.length).toBe(1); // one copy expired…
    expect(result.answers[0].correct).toBe(true); // …the other answered the question
    const [context] = outputs(doc, 'rerank')[0] as string[][];
    expect(context.some((line) => line.includes('Bob has a dog named Rex.'))).toBe(true);
  });

  it('a contradicting fact deletes the unit in the store that holds it, not its copy elsewhere', async () => {
    expect(contradicts('Bob has a dog named Rex.', 'Bob no longer has a dog named Rex.')).toBe(true);
    expect(contradicts('Bob has a dog named Rex.', 'Bob has a big dog named Rex.')).toBe(false);
    expect(contradicts("Bob doesn't drink coffee.", 'Bob drinks coffee again.')).toBe(true);
    // Capacity 2 as above: only Bob's store still holds the dog when Bob gives it away (the
    // question is asked at the end, so both sessions are added).
    const late = { ...conv, questions: [{ ...conv.questions[0], askedBefore: 3 }] };
    const { doc } = await traced({ capacity: 2 }, late);
    const deleted = doc.data.operations.filter((o) => o.op_name === 'user-store.invalidate');
    expect(deleted.map((o) => (o.metadata as { user_id: string }).user_id)).toEqual(['Bob']);
    expect(deleted[0].category).toBe('memory-removal');
  });

  it('the reranker orders by BM25 of the question first, recency second (copies tie on BM25)', async () => {
    // Capacity 10: nothing expires; the dog fact is in both stores, Alice's copy written first.
    const c: Conversation = { ...conv, sessions: conv.sessions.slice(0, 1) };
    const { doc } = await traced({ capacity: 10, perStore: 10, topK: 3 }, c);
    const [candidates] = outputs(doc, 'user-store.lookup')[0] as string[][];
    const [reranked] = outputs(doc, 'rerank')[0] as string[][];
    expect(candidates.length).toBe(6); // 3 facts × 2 stores
    // The two copies of the dog fact hold the question's words "bob" and "dog" (BM25 scaled to 1);
    // Alice's facts hold none of its words (at most 0.2 of recency): the copies come first.
    expect(reranked.slice(0, 2).every((l) => l.includes('Bob has a dog named Rex.'))).toBe(true);
    const store = new PerUserStore({ capacity: 10 });
    await runSystem(store, c, { tracer: new Tracer(), memories: 'recorded' });
    // mem-1 (Alice's copy) and mem-2 (Bob's copy) of the dog fact; mem-6 is the newest, about
    // hiking. Recency is scaled over the three: touched 1, 2, 6 → 0, 1/5, 1.
    const [alice, bob, hiking] = store.rerankScores("What is Bob's dog called?", ['mem-1', 'mem-2', 'mem-6']);
    expect(bob).toBeGreaterThan(alice); // same BM25, Bob's copy newer
    expect(bob - alice).toBeCloseTo(0.2 * ((2 - 1) / (6 - 1)), 10); // recency weight × normalised gap
    expect(alice).toBeGreaterThan(hiking); // BM25 1.0 beats at most 0.2 of recency
    expect(hiking).toBeCloseTo(0.2, 10); // no shared word, the newest: recency only
  });
});
