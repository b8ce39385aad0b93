/**
 * Comparing two stored traces inside the analysis worker (core/compare): one question at a
 * time, yielding to the worker's event loop between questions so `cancel()` gets through,
 * with progress after each.
 */
import {
  type CompareProgress,
  compareMemoryAt,
  compareSteps,
  type QuestionComparison,
  type RunComparison,
} from '../src/core/compare/compare.ts';
import type { MemoryComparison } from '../src/core/compare/memory.ts';
import { pairQuestions } from '../src/core/compare/questions.ts';
import type { TraceGraph } from '../src/core/graph/graph.ts';

export type { CompareProgress, MemoryComparison, QuestionComparison, RunComparison };

export type CompareResult = { status: 'done'; comparison: RunComparison } | { status: 'cancelled' };

const yieldToMessages = () => new Promise<void>((r) => setTimeout(r, 0));

/** Comparisons, newest first: starting one cancels the one running. */
export class Comparer {
  #run = 0;
  #cancelled = new Set<number>();

  constructor(private readonly open: (traceId: string) => Promise<TraceGraph>) {}

  cancel(): void {
    this.#cancelled.add(this.#run);
  }

  async compare(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
  ): Promise<CompareResult> {
    const id = ++this.#run;
    this.#cancelled.delete(id);
    try {
      const [ga, gb] = [await this.open(traceA), await this.open(traceB)];
      const steps = compareSteps(ga, gb);
      let last = performance.now();
      for (;;) {
        const s = steps.next();
        if (s.done) return { status: 'done', comparison: s.value };
        if (performance.now() - last > 30) {
          onProgress(s.value);
          await yieldToMessages();
          last = performance.now();
          if (this.#cancelled.has(id) || id !== this.#run) return { status: 'cancelled' };
        }
      }
    } finally {
      this.#cancelled.delete(id);
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
