/**
 * A trace's judge fit (`traceJudgeFit`: its judge learned from its verdicts — seconds of
 * language work on a large trace) is worked out once per trace, not once per session: stored
 * with the trace (the `indexes` table, kind `judge-fit`, deleted with the trace or when it is
 * replaced) under the build that computed it and the word vectors it matched with, and given
 * back to the graph (`adoptJudgeFit`) in later sessions of the same build.
 */
import {
  type AnswerRuleFit,
  adoptJudgeFit,
  type JudgeFitSetup,
  judgeFitMatching,
  judgeFitSteps,
} from '../src/core/attribution/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';

/** The `indexes` row of a stored fit. */
interface StoredFit {
  /** Build, word vectors and matching the fit was learned with: it is reused only for the same. */
  stamp: string;
  fit: AnswerRuleFit;
}

const KIND = 'judge-fit';

/** Longest run of fitting between two looks at the worker's waiting messages. */
const SLICE_MS = 20;

/**
 * The fit worked out in slices: between them the worker answers what waits for it (a search,
 * a case opened), which would otherwise wait for seconds behind a large trace's fit.
 */
async function fitInSlices(g: TraceGraph, setup: JudgeFitSetup): Promise<AnswerRuleFit> {
  const steps = judgeFitSteps(g, setup);
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToMessages();
      sliceStart = performance.now();
    }
  }
}

/**
 * The build's own name when it has one that changes with its code (a hashed file name, as the
 * production build gives the engine worker's bundle), else null: then nothing is stored (the
 * dev server serves changing code under one name).
 */
export function buildStamp(moduleUrl: string): string | null {
  const name = moduleUrl.split(/[?#]/)[0].split('/').pop() ?? '';
  return /-[\w-]{8,}\.js$/.test(name) ? name : null;
}

/** The judge fits of the engine's traces: read back when stored by this build, else computed and stored. */
export class JudgeFits {
  readonly #ready = new WeakMap<TraceGraph, Map<string, Promise<void>>>();

  /** `build`: `buildStamp` of the running code (null: compute each session, store nothing). */
  constructor(
    private readonly db: MemtraceDb,
    private readonly build: string | null,
  ) {}

  /**
   * Resolves when `g` holds its judge fit for `setup` (`vectors`: the matcher's `identity`).
   * Once per graph and setup; a failed read or write only means the fit is computed here.
   */
  ready(traceId: string, g: TraceGraph, setup: JudgeFitSetup, vectors: string): Promise<void> {
    const matching = judgeFitMatching(setup);
    let byMatching = this.#ready.get(g);
    if (!byMatching) {
      byMatching = new Map();
      this.#ready.set(g, byMatching);
    }
    let p = byMatching.get(matching);
    if (!p) {
      p = this.#load(traceId, g, setup, `${this.build}|${vectors}|${matching}`);
      byMatching.set(matching, p);
    }
    return p;
  }

  async #load(traceId: string, g: TraceGraph, setup: JudgeFitSetup, stamp: string): Promise<void> {
    if (this.build === null) {
      await fitInSlices(g, setup);
      return;
    }
    const key: [string, string] = [traceId, `${KIND}:${judgeFitMatching(setup)}`];
    const row = await this.db.indexes.get(key).catch(() => undefined);
    const stored = row?.data as StoredFit | undefined;
    if (stored?.stamp === stamp) {
      adoptJudgeFit(g, setup, stored.fit);
      return;
    }
    const fit = await fitInSlices(g, setup);
    const data: StoredFit = { stamp, fit };
    // Only while the trace is stored: a trace deleted meanwhile leaves no row behind.
    await this.db
      .transaction('rw', [this.db.traces, this.db.indexes], async () => {
        if (await this.db.traces.get(traceId)) await this.db.indexes.put({ traceId, kind: key[1], data });
      })
      .catch(() => {});
  }
}
