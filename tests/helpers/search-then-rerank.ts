/**
 * A failed question whose context went through a search and then a rerank: one message
 * extracted into memories, a search that reads the memories it chose, a rerank that reads only
 * the search's list and writes what the answer op reads, a wrong answer judged wrong.
 */
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { DocBuilder } from './doc-builder.ts';
import { py, pyList } from './llm-memory-graph.ts';

export interface SearchThenRerank {
  /** The message the memories were extracted from (default: the memories joined). */
  message?: string;
  memories: string[];
  /** Indices into `memories`: what the search read and listed. */
  chosen: number[];
  /** Indices into `chosen`: what the rerank kept for the answer op. */
  kept: number[];
  question: string;
  golden: string;
  /** Records written first (e.g. earlier judged questions, so the judge can be learned). */
  before?: (b: DocBuilder) => void;
}

/** The graph, its one failed case (evidence: the message) and the search and rerank op ids. */
export function searchThenRerank(o: SearchThenRerank) {
  const b = new DocBuilder();
  o.before?.(b);
  const msg = b.variable('D1:1', py(o.message ?? o.memories.join(' ')), {
    category: 'message',
    metadata: { timestamp: '4 May, 2023' },
  });
  const facts = b.variable('facts', pyList(o.memories), { category: 'facts' });
  b.op('extract_facts', 'extraction', [msg], [facts]);
  const mems = o.memories.map((m, i) => {
    const v = b.variable(`mem-${i}`, py(m), { category: 'memory_entry' });
    b.op('add_memory', 'update', [facts], [v]);
    return v;
  });
  const query = b.variable('qa-1', py(o.question), { className: 'query', category: 'message & query' });
  const listed = o.chosen.map((i) => o.memories[i]);
  const candidates = b.variable('candidates', pyList(listed), { category: 'retrieved_memories' });
  const search = b.op('lookup', 'retrieval', [query, ...o.chosen.map((i) => mems[i])], [candidates]);
  const context = b.variable('reranked', pyList(o.kept.map((i) => listed[i])), {
    category: 'retrieved_memories',
  });
  const rerank = b.op('rerank', 'reranking', [candidates, query], [context]);
  const pred = b.variable('pred-1', py('I do not know.'), { className: 'prediction', category: 'answer' });
  b.op('answer', 'generation', [query, context], [pred]);
  const gold = b.variable('gold-1', pyList([o.golden]), { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [query, pred, gold], [score]);
  const g = buildGraph(b.doc);
  const c = listCases(g).find((x) => x.queryId.includes('qa-1'));
  if (!c) throw new Error('no case qa-1');
  return { g, c: { ...c, evidenceIds: ['D1:1@1'] }, search, rerank };
}
