/** The top-k search of a store of memory units (RAG chunks, Mem0 memories) for a question. */
import type { TracedVar } from '../sdk/tracer.ts';
import type { ContextItem, Provenance, RunEnv } from './env.ts';
import type { Scored } from './lexical.ts';
import type { Retrieved } from './system.ts';
import type { Question } from './types.ts';

export interface UnitStore {
  /** Ranks unit ids for a query (BM25, vectors, …). */
  index: { search(query: string, k: number): Scored<string>[] };
  prov: Provenance;
  topK: number;
  /** A unit as a context item (its text and the turns it carries) and its variable. */
  unit(id: string): { item: ContextItem; variable: TracedVar };
}

interface SearchOp {
  /** The op's name, e.g. `rag.search`. */
  name: string;
  /** What the units are called in comments, plural: `chunks`, `memories`. */
  noun: string;
  /** The category of the retrieved list, e.g. `retrieved_chunks`. */
  category: string;
  /**
   * A store the tracer does not see (a vector database): the op reads the query and this
   * configuration variable, not the units it returns.
   */
  untracedStore?: { config: TracedVar };
}

/**
 * The `top_k` units for the question, as one `retrieval` op from the query and the
 * picked units (or, for an untraced store, its configuration) to the list of their texts. A retrieval fault on the target question drops
 * the units carrying evidence; the ideal run adds every unit carrying it.
 */
export function searchUnits(
  env: RunEnv,
  q: Question,
  queryVar: TracedVar,
  store: UnitStore,
  search: SearchOp,
): Retrieved {
  const { prov, topK } = store;
  const target = env.isTarget(q.id);
  let hits = store.index.search(q.question, topK).map((h) => h.key);
  if (env.injecting('retrieval') && target)
    hits = hits.filter((id) => ![...prov.sources(id)].some((x) => env.isEvidence(x)));
  if (target && env.ideal(q.id, 'retrieval'))
    for (const id of prov.unitsCarrying(env.evidence)) if (!hits.includes(id)) hits.push(id);
  const units = hits.map((id) => store.unit(id));
  const items = units.map((u) => u.item);
  const inStore = q.evidence.filter((e) => prov.carried(e));
  const Noun = search.noun.charAt(0).toUpperCase() + search.noun.slice(1);
  return env.t.op(
    search.name,
    {
      category: 'retrieval',
      comment: `Retrieve the top-${topK} ${search.noun} for the question.`,
      metadata: { top_k: topK },
    },
    (op) => {
      op.input(queryVar);
      if (search.untracedStore) op.input(search.untracedStore.config);
      else for (const u of units) op.input(u.variable);
      const variable = op.output(
        items.map((i) => i.text),
        { category: search.category, comment: `${Noun} retrieved for the question.` },
      );
      if (env.injecting('retrieval') && target) env.faultOpId = op.opId;
      env.log({
        opId: op.opId,
        kind: 'retrieval',
        questionId: q.id,
        inStore,
        inContext: q.evidence.filter((e) => items.some((i) => i.sources.includes(e))),
      });
      return { items, variable };
    },
  );
}
