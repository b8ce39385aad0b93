/**
 * The closed prompt-optimisation loop (src/systems/optimize) in the systems worker, with
 * the page's chat model behind a port in every role (keys stay in the page). The loop's
 * state is a `runs` row of kind `optimize`, saved after every round, so a run left by a
 * closed page resumes from its last round; aborting the run's signal stops it at the next call.
 * The rows are kept by the engine, the database's one writer (`OptimizeRunStore`, over the port
 * the page connects the two workers by; workers/optimize-runs.ts).
 */

import type { RunRow } from '../src/db/schema.ts';
import { detectDataset, loadDataset } from '../src/systems/loaders/index.ts';
import { type OptimizeState, optimizePrompts, referenceTarget } from '../src/systems/optimize/index.ts';
import type { SystemName } from '../src/systems/system.ts';
import type { DatasetName } from '../src/systems/types.ts';
import type { DatasetSource } from './dataset-source.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';

export interface OptimizeRequest {
  source: DatasetSource;
  system: SystemName;
  train: string[];
  heldOut: string[];
  rounds: number;
  trainQuestions?: number;
  heldOutQuestions?: number;
  maxSessions?: number;
  prompts?: string[];
  maxTokens?: number;
}

export interface OptimizeRun extends RunRow {
  kind: 'optimize';
  request: Omit<OptimizeRequest, 'source'> & { file: string; dataset: DatasetName };
  state: OptimizeState | null;
}

export type OptimizeEvent = { type: 'progress'; message: string } | { type: 'round'; state: OptimizeState };

/** Where the loop's runs are kept: by the engine, which writes the database (workers/optimize-runs.ts). */
export interface OptimizeRunStore {
  /** The stored optimisation run `id` (undefined: there is none). */
  optimizeRun(id: number): Promise<OptimizeRun | undefined>;
  /** Stores a new run of `request` (status `running`, no state yet) and returns its row. */
  startOptimizeRun(request: OptimizeRun['request']): Promise<OptimizeRun>;
  /** Saves a run's state after a round; the row's status follows the state's. */
  saveOptimizeState(id: number, state: OptimizeState): Promise<void>;
}

export class OptimizeService {
  #running = false;

  constructor(private readonly runs: OptimizeRunStore) {}

  /**
   * Starts a new run (no `runId`) or resumes a stored one with the same request; resolves with
   * the final row. Aborting `signal` stops it at its next model call (the rounds done are kept).
   */
  async optimize(
    request: OptimizeRequest,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: OptimizeEvent) => void,
    runId?: number,
    signal?: AbortSignal,
  ): Promise<OptimizeRun> {
    if (this.#running) throw new Error('an optimisation is already running');
    this.#running = true;
    try {
      let data: unknown;
      try {
        data = JSON.parse(await request.source.blob.text());
      } catch (e) {
        throw new Error(`${request.source.name} is not JSON (${(e as Error).message})`);
      }
      const choice = request.source.dataset ?? 'auto';
      const dataset = choice === 'auto' ? detectDataset(data)?.dataset : choice;
      if (!dataset)
        throw new Error(`${request.source.name} does not look like LoCoMo, RealMem or LongMemEval`);
      const convs = loadDataset(dataset, data, request.source.name);
      const pick = (ids: string[]) =>
        ids.map((id) => {
          const c = convs.find((x) => x.id === id);
          if (!c) throw new Error(`no conversation "${id}" in ${request.source.name}`);
          return c;
        });
      const { source: _source, ...rest } = request;
      const found = runId === undefined ? undefined : await this.runs.optimizeRun(runId);
      if (runId !== undefined && !found) throw new Error(`no optimisation run ${runId}`);
      const row =
        found ?? (await this.runs.startOptimizeRun({ ...rest, file: request.source.name, dataset }));
      const id = row.id as number;
      const m = new PortChatModel(model, port);
      const store = {
        load: async () => (await this.runs.optimizeRun(id))?.state ?? null,
        save: (state: OptimizeState) => this.runs.saveOptimizeState(id, state),
      };
      await optimizePrompts(
        referenceTarget(request.system),
        {
          train: pick(request.train),
          heldOut: pick(request.heldOut),
          rounds: request.rounds,
          trainQuestions: request.trainQuestions,
          heldOutQuestions: request.heldOutQuestions,
          maxSessions: request.maxSessions,
          prompts: request.prompts,
          budget: { maxTokens: request.maxTokens },
          models: { qa: m, judge: m, optimizer: m },
          signal,
        },
        store,
        {
          onProgress: (message) => onEvent({ type: 'progress', message }),
          onRound: (_r, state) => onEvent({ type: 'round', state: structuredClone(state) }),
        },
      ).catch(() => undefined); // failures are in the saved state (status failed, message)
      return (await this.runs.optimizeRun(id)) as OptimizeRun;
    } finally {
      this.#running = false;
    }
  }
}
