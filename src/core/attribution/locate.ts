/**
 * Evidence for a question that names none: the paper's start points (messages
 * ranked for question + golden answer, hybrid BM25 + dense when an embedder is
 * given), narrowed to the ones that state the answer.
 */
import type { TraceCase } from '../cases/index.ts';
import { type TraceGraph, varMetadata } from '../graph/index.ts';
import { type Embedder, type RetrievalIndex, START_POINTS, startPoints } from '../retrieval/index.ts';
import { type CriticalOptions, criticalInfo } from './critical.ts';
import { contentTokens } from './evidence-match.ts';
import { readMessage } from './said.ts';
import type { MatchLayer } from './types.ts';

/** Options of `startPointLocator`. */
export interface LocateOptions {
  /** A messages index of this graph (built once per trace by the caller). */
  index: RetrievalIndex;
  embedder?: Embedder | null;
  /** Start points to consider (default `START_POINTS`). */
  k?: number;
  /**
   * How "states the answer" is read: `lexical` — every content word of a golden answer
   * is in the message; otherwise the critical information (lemmas, relative dates
   * against the message's day, word vectors when given).
   */
  layer?: MatchLayer;
  similar?: CriticalOptions['similar'];
}

/**
 * Keeps start points that state a golden answer; when none does (answers that need
 * inference), keeps the best-ranked one.
 */
export function startPointLocator(options: LocateOptions) {
  return async (g: TraceGraph, c: TraceCase): Promise<number[]> => {
    const hits = await startPoints(options.index, c, {
      k: options.k ?? START_POINTS,
      embedder: options.embedder ?? null,
    });
    const vars = hits.map((h) => g.varIndex.get(h.full_node_id)).filter((v): v is number => v !== undefined);
    const golden = c.goldenAnswers.map((a) => contentTokens(a)).filter((t) => t.length > 0);
    const lexical = options.layer === 'lexical';
    const similar = options.layer === 'vectors' ? (options.similar ?? null) : null;
    const bearing = vars.filter((v) => {
      const said = readMessage(g.varValue[v], varMetadata(g, v));
      if (!lexical) return criticalInfo(said, c.question, c.goldenAnswers, { similar }).supported;
      const words = new Set(contentTokens(said.text));
      return golden.some((t) => t.every((w) => words.has(w)));
    });
    return bearing.length ? bearing : vars.slice(0, 1);
  };
}
