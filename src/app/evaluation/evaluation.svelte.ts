/**
 * Evaluation state: the latest evaluation run (stored in `runs`, so it survives
 * reloads) and the live one. Running, scoring and storing the run happen in the engine worker
 * (the database's writer); this class starts, follows and cancels it.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type { EvalProgress, MatcherProgress } from '../../../workers/api.ts';
import { FILE_CHOICE } from '../../core/labels/index.ts';
import { type EvaluationRun, listEvaluationRuns } from '../../db/runs.ts';
import type { Services } from '../state/services.ts';

const ENGINE = 'evidence-flow';

class Evaluation {
  #run = $state.raw<EvaluationRun | null>(null);
  #progress = $state.raw<EvalProgress | null>(null);
  /** The matcher's word vectors while they load (the first run of a worker). */
  #matcherLoading = $state.raw<MatcherProgress | null>(null);
  #running = $state(false);
  /** Aborts the running evaluation (its signal went to the worker with it). */
  #abort: AbortController | null = null;
  #loaded = $state(false);
  #error = $state<string | null>(null);
  /** Trace ids the person chose to evaluate, and when (null: not chosen yet, the default applies). */
  #chosen = $state.raw<{ ids: ReadonlySet<string>; at: number } | null>(null);

  constructor(
    private readonly services: Services,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The traces an evaluation covers, among `labelled` (traces with labelled cases): the
   * person's choice, else the last run's traces, else every labelled trace (the demo too) —
   * plus, with a choice or a run, every trace imported after it, so a new trace is never left out.
   */
  selection(labelled: { id: string; importedAt: number }[]): Set<string> {
    const base =
      this.#chosen ??
      (this.#run ? { ids: new Set(this.#run.parameters.traceIds), at: this.#run.createdAt } : null);
    if (!base) return new Set(labelled.map((t) => t.id));
    return new Set(labelled.filter((t) => base.ids.has(t.id) || t.importedAt > base.at).map((t) => t.id));
  }

  /** Sets which traces the next evaluation covers. */
  choose(ids: Iterable<string>): void {
    this.#chosen = { ids: new Set(ids), at: this.now() };
  }

  /** The newest run (finished, cancelled, failed or running). */
  get run(): EvaluationRun | null {
    return this.#run;
  }
  get progress(): EvalProgress | null {
    return this.#progress;
  }
  get matcherLoading(): MatcherProgress | null {
    return this.#matcherLoading;
  }
  /** True while this page runs an evaluation. */
  get running(): boolean {
    return this.#running;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get error(): string | null {
    return this.#error;
  }
  /** A stored run left `running` by an earlier page (closed or reloaded mid-run). */
  get interrupted(): boolean {
    return !this.#running && this.#run?.status === 'running';
  }

  async load(): Promise<void> {
    if (this.#running) return;
    try {
      this.#run = (await listEvaluationRuns(this.services.db))[0] ?? null;
      this.#error = null;
    } catch (e) {
      this.#error = message(e);
    }
    this.#loaded = true;
  }

  /** Evaluates every case of these traces labelled under `labelChoice` (default: the file's own) and stores the run. */
  async start(traceIds: string[], labelChoice: string = FILE_CHOICE): Promise<void> {
    if (this.#running) return;
    const { db, analysis } = this.services;
    this.#running = true;
    this.#error = null;
    this.#progress = null;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      // The same matcher as the case workspace's and the CLI's default (word vectors, loaded once).
      const matcher = await analysis.loadMatcher(
        Comlink.proxy((p: MatcherProgress) => {
          this.#matcherLoading = p;
        }),
      );
      this.#matcherLoading = null;
      const parameters = { traceIds: [...traceIds], engine: ENGINE, labelChoice, matcher: matcher.layer };
      this.#run = await analysis.runEvaluation(
        parameters,
        Comlink.proxy((row: EvaluationRun) => {
          this.#run = row;
        }),
        Comlink.proxy((p: EvalProgress) => {
          this.#progress = p;
        }),
        abort.signal,
      );
    } catch (e) {
      this.#error = message(e);
      // The engine stored the run as failed: show that row.
      this.#run = (await listEvaluationRuns(db))[0] ?? this.#run;
    } finally {
      this.#running = false;
      this.#abort = null;
    }
  }

  /** Stops the running evaluation after its current case (the cases done are kept, as `cancelled`). */
  cancel(): void {
    this.#abort?.abort();
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const KEY = Symbol('evaluation');
export function setupEvaluation(services: Services): Evaluation {
  return setContext(KEY, new Evaluation(services));
}
export function useEvaluation(): Evaluation {
  return getContext<Evaluation>(KEY);
}
