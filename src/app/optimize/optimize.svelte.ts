/**
 * The Optimise view's state: a data set file, the loop's options, and one run at a time in
 * the systems worker with the active Settings profile in every role (the model stays in
 * this page). Runs are `runs` rows of kind `optimize` (state saved after every round), so
 * the newest shows after a reload and an interrupted one can resume.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type { DatasetInfo, OptimizeEvent, OptimizeRun, OptimizeState } from '../../../workers/api.ts';
import { modelInfo, modelPort } from '../attribution/model-port.ts';
import type { LlmSettings } from '../llm/settings.svelte.ts';
import type { Services } from '../state/services.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

class OptimizeRunState {
  #file = $state.raw<File | null>(null);
  #info = $state.raw<DatasetInfo | null>(null);
  #runs = $state.raw<OptimizeRun[]>([]);
  #live = $state.raw<OptimizeState | null>(null);
  #running = $state(false);
  /** Aborts the running optimisation (its signal went to the worker with it). */
  #abort: AbortController | null = null;
  #log = $state.raw<string[]>([]);
  #error = $state<string | null>(null);
  system = $state<'mem0' | 'rag' | 'long-context' | 'evermemos'>('mem0');
  train = $state<string[]>([]);
  heldOut = $state<string[]>([]);
  rounds = $state(3);
  sessions = $state<number | null>(3);
  questions = $state<number | null>(10);
  maxTokens = $state<number | null>(null);

  constructor(private readonly services: Services) {}

  get file() {
    return this.#file;
  }
  get info() {
    return this.#info;
  }
  get runs() {
    return this.#runs;
  }
  get running() {
    return this.#running;
  }
  get log() {
    return this.#log;
  }
  get error() {
    return this.#error;
  }
  /** The run shown: the live one, else the newest stored. */
  get state(): OptimizeState | null {
    return this.#live ?? this.#runs[0]?.state ?? null;
  }
  get latest(): OptimizeRun | null {
    return this.#runs[0] ?? null;
  }

  async load(): Promise<void> {
    if (this.#running) return;
    const rows = (await this.services.db.runs
      .where('traceId')
      .equals('*optimize')
      .toArray()) as OptimizeRun[];
    this.#runs = rows.sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
  }

  async pick(file: File | null): Promise<void> {
    this.#file = file;
    this.#info = null;
    this.#error = null;
    if (!file) return;
    try {
      this.#info = await this.services.systems.inspect({ blob: file, name: file.name });
      const ids = this.#info.conversations.map((c) => c.id);
      this.train = ids.slice(0, 1);
      this.heldOut = ids.slice(1, 2);
    } catch (e) {
      this.#error = message(e);
    }
  }

  /** Starts a run, or resumes the newest stored one (`resume`), with the active profile of `settings`. */
  async start(settings: LlmSettings, resume = false): Promise<void> {
    const file = this.#file;
    if (this.#running || !file || !settings.active) return;
    this.#running = true;
    this.#error = null;
    this.#log = [];
    this.#live = resume ? (this.latest?.state ?? null) : null;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const model = settings.chatModel(undefined, 'optimise prompts');
      const row = await this.services.systems.optimize(
        {
          source: { blob: file, name: file.name },
          system: this.system,
          train: [...this.train],
          heldOut: [...this.heldOut],
          rounds: this.rounds,
          maxSessions: this.sessions ?? undefined,
          trainQuestions: this.questions ?? undefined,
          heldOutQuestions: this.questions ?? undefined,
          maxTokens: this.maxTokens ?? undefined,
        },
        modelInfo(model),
        Comlink.proxy(modelPort(model)),
        Comlink.proxy((e: OptimizeEvent) => {
          if (e.type === 'round') this.#live = e.state;
          else this.#log = [...this.#log.slice(-30), e.message];
        }),
        resume ? this.latest?.id : undefined,
        abort.signal,
      );
      this.#live = null;
      this.#runs = [row, ...this.#runs.filter((r) => r.id !== row.id)];
    } catch (e) {
      this.#error = message(e);
    } finally {
      this.#running = false;
      this.#abort = null;
    }
  }

  /** Stops the running optimisation at its next model call (the rounds done are kept). */
  cancel(): void {
    this.#abort?.abort();
  }
}

const KEY = Symbol('optimize');
export function setupOptimize(services: Services): OptimizeRunState {
  return setContext(KEY, new OptimizeRunState(services));
}
export function useOptimize(): OptimizeRunState {
  return getContext<OptimizeRunState>(KEY);
}
