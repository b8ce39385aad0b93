/**
 * Evidence for a question that names none: the paper's start points (messages
 * ranked for question + golden answer), narrowed to the ones that bear the answer.
 */
import type { TraceCase } from '../cases/cases.ts';
import type { TraceGraph } from '../graph/graph.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import type { RetrievalIndex } from '../retrieval/retrieval-index.ts';
import { startPoints } from '../retrieval/startpoints.ts';
import { contentTokens, evidenceText } from './evidence-match.ts';

export interface LocateOptions {
  /** A messages index of this graph (built once per trace by the caller). */
  index: RetrievalIndex;
  embedder?: Embedder | null;
  /** Start points to consider (default 8). */
  k?: number;
}

/**
 * Keeps start points whose text holds every content word of a golden answer; when
 * none does (answers that need inference, such as dates from "yesterday"), keeps the
 * best-ranked one.
 */
export function startPointLocator(options: LocateOptions) {
  return async (g: TraceGraph, c: TraceCase): Promise<number[]> => {
    const hits = await startPoints(options.index, c, {
      k: options.k ?? 8,
      embedder: options.embedder ?? null,
    });
    const vars = hits.map((h) => g.varIndex.get(h.full_node_id)).filter((v): v is number => v !== undefined);
    const golden = c.goldenAnswers.map((a) => contentTokens(a)).filter((t) => t.length > 0);
    const bearing = vars.filter((v) => {
      const words = new Set(contentTokens(evidenceText(g.varValue[v])));
      return golden.some((t) => t.every((w) => words.has(w)));
    });
    return bearing.length ? bearing : vars.slice(0, 1);
  };
}
