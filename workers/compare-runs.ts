/**
 * Comparing two stored traces inside the engine worker (core/compare): one question at a
 * time, yielding to the worker's event loop between questions so an abort gets through,
 * with progress after each.
 */
import {
  type CompareProgress,
  compareMemoryAt,
  compareSteps,
  type MemoryComparison,
  pairQuestions,
  type QuestionComparison,
  type RunComparison,
} from '../src/core/compare/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import { yieldToMessages } from './abort-transfer.ts';

export type { CompareProgress, MemoryComparison, QuestionComparison, RunComparison };

export type CompareResult = { status: 'done'; comparison: RunComparison } | { status: 'cancelled' };

/** Comparisons of stored traces; the page aborts the older of two (its newest request wins). */
export class Comparer {
  constructor(private readonly open: (traceId: string) => Promise<TraceGraph>) {}

  /** Compares two traces; `cancelled` when `signal` aborts first. */
  async compare(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
    signal?: AbortSignal,
  ): Promise<CompareResult> {
    const [ga, gb] = [await this.open(traceA), await this.open(traceB)];
    const steps = compareSteps(ga, gb);
    let last = performance.now();
    for (;;) {
      if (signal?.aborted) return { status: 'cancelled' };
      const s = steps.next();
      if (s.done) return { status: 'done', comparison: s.value };
      if (performance.now() - last > 30) {
        onProgress(s.value);
        await yieldToMessages();
        last = performance.now();
      }
    }
  }

  /** The memory at one question's time in both traces (query ids of either side; null: absent there). */
  async memoryAt(
    traceA: string,
    traceB: string,
    queryA: string | null,
    queryB: string | null,
  ): Promise<MemoryComparison> {
    const [ga, gb] = [await this.open(traceA), await this.open(traceB)];
    const pair = pairQuestions(ga, gb).find(
      (p) => (queryA && p.a?.queryId === queryA) || (queryB && p.b?.queryId === queryB),
    );
    return compareMemoryAt(ga, gb, pair?.a ?? null, pair?.b ?? null);
  }
}
