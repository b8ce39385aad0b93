/**
 * Runs a reference memory system (src/systems) over one conversation of a data set file,
 * in the **offline mode** (deterministic components, no model) or in **LLM mode** with the
 * page's chat model behind a port (keys stay in the page), traces it with the SDK
 * into memory (`MemorySink`), and hands the exported smartcomment JSON to the import path
 * — so the new trace is stored exactly like an imported file whose bytes are that JSON.
 * Runs inside the systems worker; a plain class so Node tests can drive it on fake-indexeddb.
 */

import { type ChatModel, metered, UsageMeter } from '../src/core/llm/index.ts';
import { exportSmartcomment } from '../src/core/trace/index.ts';
import { Tracer } from '../src/sdk/tracer.ts';
import { createSystem } from '../src/systems/factory.ts';
import { DATASET_LABEL, DATASETS, detectDataset, loadDataset } from '../src/systems/loaders/index.ts';
import { runSystem } from '../src/systems/run.ts';
import { SPLIT_OF, SYSTEM_NAMES } from '../src/systems/system.ts';
import type { Conversation, DatasetName } from '../src/systems/types.ts';
import {
  type DatasetInfo,
  type DatasetSource,
  emptyRunResult,
  type ImportApi,
  type ModelInfo,
  type ModelPort,
  type SystemRunProgress,
  type SystemRunRequest,
  type SystemRunResult,
  type SystemsApi,
} from './api.ts';
import { PortChatModel } from './model-port.ts';

/** Thrown by `run` on bad input (shown to people as is). */
class RunInputError extends Error {}

/** Lets the worker take messages (a cancel) between steps; a macrotask, not a microtask. */
function yieldToEvents(): Promise<void> {
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof s?.yield === 'function') return s.yield();
  return new Promise((r) => setTimeout(r, 0));
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** One run's progress and result as they fill in; each change of progress goes to the page. */
class RunRecord {
  readonly started = now();
  readonly result: SystemRunResult;
  readonly progress: SystemRunProgress;

  constructor(
    request: SystemRunRequest,
    private readonly onProgress: (p: SystemRunProgress) => void,
  ) {
    this.result = emptyRunResult({
      system: request.system,
      dataset: 'locomo',
      conversationId: request.conversationId,
    });
    this.progress = {
      phase: 'reading',
      sessionsDone: 0,
      sessionsTotal: 0,
      questionsAnswered: 0,
      questionsTotal: 0,
      correct: 0,
      label: `reading ${request.source.name}`,
    };
  }

  report(changes: Partial<SystemRunProgress>): void {
    Object.assign(this.progress, changes);
    this.onProgress({ ...this.progress });
  }

  finish(changes: Partial<SystemRunResult>): SystemRunResult {
    Object.assign(this.result, changes, { seconds: (now() - this.started) / 1000 });
    return { ...this.result };
  }

  /** A run that stopped: cancelled (with what it had done), or failed with its reason. */
  stopped(e: unknown, cancelled: boolean): SystemRunResult {
    const p = this.progress;
    if (cancelled)
      return this.finish({
        status: 'cancelled',
        sessions: p.sessionsDone,
        questions: p.questionsAnswered,
        correct: p.correct,
        failed: p.questionsAnswered - p.correct,
        message: 'Cancelled; nothing stored.',
      });
    return this.finish({
      status: 'failed',
      message: e instanceof RunInputError ? e.message : `The run stopped: ${errorText(e)}`,
    });
  }
}

/** The request's session limit and, in LLM mode, the page's model metered by `meter` (bad input throws). */
function checkRequest(request: SystemRunRequest, meter: UsageMeter, model?: ModelInfo, port?: ModelPort) {
  if (!SYSTEM_NAMES.includes(request.system))
    throw new RunInputError(`Unknown system "${request.system}" (one of ${SYSTEM_NAMES.join(', ')}).`);
  const max = request.maxSessions;
  if (max !== undefined && !(Number.isInteger(max) && max > 0))
    throw new RunInputError('The session limit must be a positive whole number.');
  const llmMode = request.mode === 'llm';
  if (llmMode && !(model && port))
    throw new RunInputError('LLM mode needs a model: set up a provider profile in Settings.');
  // Every call (system and judge) is metered: the run's cost is what the provider reported.
  const llm =
    llmMode && model && port
      ? metered(new PortChatModel(model, port), meter, { label: 'run a system' })
      : undefined;
  return { max, llmMode, llm };
}

/** What runSystem will do: the first S sessions, stopping after the last one a question needs. */
function sessionsToRun(conv: Conversation, max: number | undefined): number {
  const S = Math.min(conv.sessions.length, max ?? Number.POSITIVE_INFINITY);
  const lastNeeded = conv.questions.reduce((m, q) => Math.max(m, Math.min(q.askedBefore, S + 1)), 0);
  return Math.min(S, Math.max(0, lastNeeded - 1));
}

/** What one run is: the request, its conversation, the model (LLM mode) and the session limit. */
interface RunPlan {
  request: SystemRunRequest;
  dataset: DatasetName;
  conv: Conversation;
  llm: ChatModel | undefined;
  max: number | undefined;
}

/** A tracer whose graph's metadata says what ran, on what, and how. */
function runTracer({ request, dataset, conv, llm, max }: RunPlan): Tracer {
  return new Tracer({
    filename: `memtrace-${request.system}`,
    metadata: {
      system: SPLIT_OF[request.system],
      dataset,
      conversation: conv.id,
      mode: llm ? 'llm' : 'offline',
      llm_model: llm ? llm.model : 'offline-deterministic',
      source_file: request.source.name,
      max_sessions: max ?? null,
      description:
        `${request.system} (${llm ? `LLM mode, model ${llm.model}` : 'offline mode: deterministic components, no model'}) on ${conv.id} of ` +
        `${request.source.name}, run in MemTrace Workbench.`,
    },
  });
}

/** Runs the system over the conversation into `tracer`, reporting each session and answer. */
async function runTraced(rec: RunRecord, plan: RunPlan, tracer: Tracer, signal: AbortSignal) {
  let lastYield = now();
  return runSystem(createSystem(plan.request.system), plan.conv, {
    tracer,
    llm: plan.llm,
    maxSessions: plan.max,
    signal,
    onProgress: async (_done, _total, label, answer) => {
      if (answer)
        rec.report({
          questionsAnswered: rec.progress.questionsAnswered + 1,
          correct: rec.progress.correct + (answer.correct ? 1 : 0),
          label,
        });
      else rec.report({ sessionsDone: rec.progress.sessionsDone + 1, label });
      if (now() - lastYield > 12) {
        await yieldToEvents();
        lastYield = now();
      }
    },
  });
}

/** The run's counts: sessions, answers, graph size and (LLM mode) what the provider reported. */
function countRun(rec: RunRecord, tracer: Tracer, answers: { correct: boolean }[], meter: UsageMeter | null) {
  const correct = answers.filter((a) => a.correct).length;
  Object.assign(rec.result, {
    sessions: rec.progress.sessionsDone,
    questions: answers.length,
    correct,
    failed: answers.length - correct,
    variables: tracer.counts.nodes,
    operations: tracer.counts.operations,
    edges: tracer.counts.edges,
  });
  if (meter) {
    const t = meter.totals();
    Object.assign(rec.result, {
      llmCalls: t.calls,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
    });
  }
}

export class SystemsService implements Omit<SystemsApi, 'optimize' | 'cancelOptimize'> {
  #abort: AbortController | null = null;

  /** `importer` is the import path the trace is stored through (ImportService on the same database). */
  constructor(private readonly importer: ImportApi) {}

  cancel(): void {
    if (!this.#abort) return;
    this.#abort.abort();
  }

  async inspect(source: DatasetSource): Promise<DatasetInfo> {
    const { dataset, layout, detected, conversations } = await this.#load(source);
    return {
      name: source.name,
      dataset,
      layout,
      detected,
      conversations: conversations.map((c) => ({
        id: c.id,
        sessions: c.sessions.length,
        questions: c.questions.length,
        speakers: c.speakers,
      })),
    };
  }

  async run(
    request: SystemRunRequest,
    onProgress: (p: SystemRunProgress) => void = () => {},
    model?: ModelInfo,
    port?: ModelPort,
  ): Promise<SystemRunResult> {
    if (this.#abort) throw new Error('A system is already running; wait for it or cancel it.');
    const abort = new AbortController();
    this.#abort = abort;
    const rec = new RunRecord(request, onProgress);
    try {
      const meter = new UsageMeter();
      const { max, llmMode, llm } = checkRequest(request, meter, model, port);
      rec.result.mode = llmMode ? 'llm' : 'offline';
      if (llm) rec.result.model = llm.model;
      rec.report({});
      const loaded = await this.#load(request.source);
      rec.result.dataset = loaded.dataset;
      const conv = loaded.conversations.find((c) => c.id === request.conversationId);
      if (!conv)
        throw new RunInputError(`No conversation "${request.conversationId}" in ${request.source.name}.`);
      abort.signal.throwIfAborted();
      rec.report({
        phase: 'running',
        sessionsTotal: sessionsToRun(conv, max),
        questionsTotal: conv.questions.length,
        label: 'starting',
      });

      const plan: RunPlan = { request, dataset: loaded.dataset, conv, llm, max };
      const tracer = runTracer(plan);
      const run = await runTraced(rec, plan, tracer, abort.signal);
      abort.signal.throwIfAborted();
      await tracer.finish();
      countRun(rec, tracer, run.answers, llm ? meter : null);
      return await this.#store(rec, plan, tracer, abort.signal);
    } catch (e) {
      return rec.stopped(e, abort.signal.aborted);
    } finally {
      this.#abort = null;
    }
  }

  /** Exports the run's graph and stores it through the import path, as an imported file would be. */
  async #store(rec: RunRecord, plan: RunPlan, tracer: Tracer, signal: AbortSignal): Promise<SystemRunResult> {
    const { request, conv, llm, max } = plan;
    rec.report({ phase: 'exporting', label: 'writing the execution graph' });
    await yieldToEvents();
    const text = exportSmartcomment(tracer.document());
    const file = `${request.system}-${conv.id}-${max ? `${max}-sessions-` : ''}${llm ? 'llm' : 'offline'}.json`;
    const blob = new Blob([text], { type: 'application/json' });
    rec.result.bytes = blob.size;
    signal.throwIfAborted();

    rec.report({ phase: 'storing', label: `storing ${file}` });
    const [stored] = await this.importer.importFiles(
      [{ blob, name: file, path: file }],
      {},
      () => {},
      signal,
    );
    if (stored.status === 'cancelled' || signal.aborted)
      return rec.finish({
        status: 'cancelled',
        message: 'Cancelled before the trace was stored; nothing kept.',
      });
    if (stored.status !== 'stored' && stored.status !== 'replaced')
      return rec.finish({
        status: 'failed',
        file,
        importStatus: stored.status,
        warningCount: stored.warningCount,
        message:
          stored.message ??
          `The produced graph did not import (${stored.status}): ${stored.issues
            .slice(0, 3)
            .map((i) => i.message)
            .join('; ')}`,
      });
    rec.report({ phase: 'done', label: 'stored' });
    return rec.finish({
      status: 'done',
      traceId: stored.traceId,
      file,
      importStatus: stored.status,
      warningCount: stored.warningCount,
    });
  }

  async #load(
    source: DatasetSource,
  ): Promise<{ dataset: DatasetName; layout: string; detected: boolean; conversations: Conversation[] }> {
    let data: unknown;
    try {
      data = JSON.parse(await source.blob.text());
    } catch (e) {
      throw new RunInputError(`${source.name} is not JSON (${errorText(e)}).`);
    }
    const found = detectDataset(data);
    const choice = source.dataset ?? 'auto';
    let dataset: DatasetName;
    let layout: string;
    if (choice === 'auto') {
      if (!found)
        throw new RunInputError(
          `${source.name} does not look like LoCoMo, RealMem or LongMemEval; choose the data set to read it as.`,
        );
      ({ dataset, layout } = found);
    } else {
      if (!DATASETS.includes(choice)) throw new RunInputError(`Unknown data set "${choice}".`);
      dataset = choice;
      layout = found?.dataset === choice ? found.layout : DATASET_LABEL[choice];
    }
    let conversations: Conversation[];
    try {
      conversations = loadDataset(dataset, data, source.name);
    } catch (e) {
      throw new RunInputError(
        `${source.name} as ${DATASET_LABEL[dataset]}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    if (!conversations.length) throw new RunInputError(`${source.name}: no conversations found.`);
    return { dataset, layout, detected: choice === 'auto', conversations };
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
