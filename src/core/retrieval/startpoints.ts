/**
 * The paper's start points for a failed question: documents = variables of category
 * `message`; query = question + "\n" + golden answer; BM25 and dense each return 2×
 * the wanted count, fused by RRF; keep max_frontier / 2.
 */
import type { TraceCase } from '../cases/index.ts';
import type { Embedder } from './embedder.ts';
import type { RetrievalIndex, SearchHit, SearchMethod } from './retrieval-index.ts';

/**
 * Start points kept per question: the paper's max_frontier / 2, with max_frontier = 16 (the agents'
 * `MAX_FRONTIER`, which lives with them in core/attribution: retrieval sits below attribution and
 * must not import it; tests/retrieval/index.test.ts keeps the two in step).
 */
export const START_POINTS = 8;

/** question + "\n" + golden answer (several golden answers are joined by "\n"). */
export function startPointQuery(question: string, goldenAnswers: readonly string[]): string {
  return goldenAnswers.length ? `${question}\n${goldenAnswers.join('\n')}` : question;
}

/** Options of `startPoints`: how many, the method, the embedder and cancellation. */
export interface StartPointOptions {
  k?: number;
  /** Default: hybrid when the index has dense vectors and an embedder is given, else bm25. */
  method?: SearchMethod;
  embedder?: Embedder | null;
  signal?: AbortSignal;
}

/**
 * The paper's start points of a question: the messages index searched for question + golden answer (hybrid
 * when it has vectors and an embedder is given). Throws for an index of another scope.
 */
export async function startPoints(
  index: RetrievalIndex,
  c: Pick<TraceCase, 'question' | 'goldenAnswers'>,
  options: StartPointOptions = {},
): Promise<SearchHit[]> {
  if (index.scope !== 'messages') throw new Error('start points are searched over message variables only');
  const method = options.method ?? (index.dense && options.embedder ? 'hybrid' : 'bm25');
  return index.search(startPointQuery(c.question, c.goldenAnswers), {
    method,
    k: options.k ?? START_POINTS,
    embedder: options.embedder,
    signal: options.signal,
  });
}
