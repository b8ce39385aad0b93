/**
 * The closed prompt-optimisation loop (src/systems/optimize) in the systems worker, with
 * the page's chat model behind a port in every role (keys stay in the page). The loop's
 * state is a `runs` row of kind `optimize`, saved after every round, so a run left by a
 * closed page resumes from its last round; aborting the run's signal stops it at the next call.
 */

import type { MemtraceDb, RunRow } from '../src/db/schema.ts';
import { detectDataset, loadDataset } from '../src/systems/loaders/index.ts';
import { type OptimizeState, optimizePrompts, referenceTarget } from '../src/systems/optimize/index.ts';
import type { SystemName } from '../src/systems/system.ts';
import type { DatasetName } from '../src/systems/types.ts';
import type { DatasetSource } from './dataset-source.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';

const OPTIMIZE_RUNS = '*optimize';

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

export class OptimizeService {
  #running = false;

  constructor(private readonly db: MemtraceDb) {}

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
      let row: OptimizeRun | undefined =
        runId === undefined ? undefined : ((await this.db.runs.get(runId)) as OptimizeRun | undefined);
      if (runId !== undefined && !row) throw new Error(`no optimisation run ${runId}`);
      if (!row) {
        row = {
          traceId: OPTIMIZE_RUNS,
          queryId: '',
          kind: 'optimize',
          method: 'evidence',
          status: 'running',
          createdAt: Date.now(),
          request: { ...rest, file: request.source.name, dataset },
          state: null,
        };
        row.id = (await this.db.runs.add(row)) as number;
      }
      const id = row.id as number;
      const m = new PortChatModel(model, port);
      const store = {
        load: async () => ((await this.db.runs.get(id)) as OptimizeRun | undefined)?.state ?? null,
        save: async (state: OptimizeState) => {
          await this.db.runs.update(id, { state, status: state.status });
        },
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
      return (await this.db.runs.get(id)) as OptimizeRun;
    } finally {
      this.#running = false;
    }
  }
}
