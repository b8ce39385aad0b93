/** The systems worker's API: reference memory systems run offline or with the page's model (`SystemsApi`). */
import type { SystemName } from '../src/systems/system.ts';
import type { DatasetName } from '../src/systems/types.ts';
import type { DatasetSource } from './dataset-source.ts';
import type { FileStatus } from './engine-api.ts';
import type { ModelInfo, ModelPort } from './model-port.ts';
import type { OptimizeEvent, OptimizeRequest, OptimizeRun } from './optimize-service.ts';

export type { DatasetSource } from './dataset-source.ts';
export type { DatasetName, SystemName };

export interface DatasetConversation {
  id: string;
  sessions: number;
  questions: number;
  speakers: string[];
}

export interface DatasetInfo {
  name: string;
  dataset: DatasetName;
  /** The layout in words (`LoCoMo, canonical list of samples`, …). */
  layout: string;
  /** True when the data set was detected rather than chosen. */
  detected: boolean;
  conversations: DatasetConversation[];
}

export interface SystemRunRequest {
  source: DatasetSource;
  conversationId: string;
  system: SystemName;
  /** Use only the first N sessions (questions asked later are answered after them). */
  maxSessions?: number;
  /** `offline` (default): deterministic components; `llm`: the page's model (passed to `run`) in every model role. */
  mode?: 'offline' | 'llm';
}

export type SystemRunPhase = 'reading' | 'running' | 'exporting' | 'storing' | 'done';

export interface SystemRunProgress {
  phase: SystemRunPhase;
  sessionsDone: number;
  sessionsTotal: number;
  questionsAnswered: number;
  questionsTotal: number;
  /** Answers the offline judge scored correct so far. */
  correct: number;
  /** The last step, in words. */
  label: string;
}

export interface SystemRunResult {
  status: 'done' | 'cancelled' | 'failed';
  /** `offline`: deterministic components, no model; `llm`: the page's model. */
  mode: 'offline' | 'llm';
  /** The model of an LLM-mode run. */
  model?: string;
  /** Model calls of an LLM-mode run (system and judge), and their tokens as the provider reported them. */
  llmCalls?: number;
  inputTokens?: number;
  outputTokens?: number;
  system: SystemName;
  dataset: DatasetName;
  conversationId: string;
  /** What went wrong or what was kept, in words for people. */
  message?: string;
  /** The stored trace (graph_id), when the run finished and was stored. */
  traceId?: string;
  /** File name the trace is stored under. */
  file?: string;
  /** How the import path took it (`stored`, or `invalid` / `failed` with issues). */
  importStatus?: FileStatus;
  sessions: number;
  questions: number;
  correct: number;
  /** Questions judged wrong: the trace's failed cases. */
  failed: number;
  variables: number;
  operations: number;
  edges: number;
  bytes: number;
  warningCount: number;
  seconds: number;
}

/** A run that produced nothing (yet): counts at zero, status `failed` until the run says otherwise. */
export function emptyRunResult(
  fields: Pick<SystemRunResult, 'system' | 'dataset' | 'conversationId'> & { message?: string },
): SystemRunResult {
  return {
    status: 'failed',
    mode: 'offline',
    ...fields,
    sessions: 0,
    questions: 0,
    correct: 0,
    failed: 0,
    variables: 0,
    operations: 0,
    edges: 0,
    bytes: 0,
    warningCount: 0,
    seconds: 0,
  };
}

/**
 * Runs the reference memory systems (src/systems) in a worker, offline or with the page's
 * model, and stores the execution graph through the engine's import path (as if the exported
 * JSON had been imported, without parsing it back).
 */
export interface SystemsApi {
  /**
   * The engine's port (the page connects the two once, `EngineApi.connectSystems`): the worker
   * writes no database itself; a run's trace and the optimisation runs are stored by the engine.
   */
  connectEngine(port: MessagePort): void;
  /** Reads a data set file: which data set and layout it is and its conversations. */
  inspect(source: DatasetSource): Promise<DatasetInfo>;
  /**
   * Runs one system over one conversation; progress after every session and question. LLM
   * mode needs the page's model: what the worker knows of it, and its port (a comlink proxy,
   * passed as its own argument so comlink proxies it; keys stay in the page). Aborting
   * `signal` stops the run before its next session or question (`cancelled`; nothing is stored).
   */
  run(
    request: SystemRunRequest,
    onProgress: (p: SystemRunProgress) => void,
    model?: ModelInfo,
    port?: ModelPort,
    signal?: AbortSignal,
  ): Promise<SystemRunResult>;
  /**
   * The closed prompt-optimisation loop with the page's model in every role; the state is a
   * `runs` row of kind `optimize`, saved after every round; pass `runId` to resume it.
   * Aborting `signal` stops it at its next model call (the rounds done are kept).
   */
  optimize(
    request: OptimizeRequest,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: OptimizeEvent) => void,
    runId?: number,
    signal?: AbortSignal,
  ): Promise<OptimizeRun>;
}
