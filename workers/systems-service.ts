/**
 * Runs a reference memory system (src/systems) over one conversation of a data set file,
 * in the **offline mode** (deterministic components, no model) or in **LLM mode** with the
 * page's chat model behind a port (keys stay in the page), traces it with the SDK
 * into memory (`MemorySink`), and hands the document with its smartcomment JSON bytes to the
 * engine's import path (the engine writes the database) — so the new trace is stored exactly like
 * an imported file whose bytes are that JSON. Runs inside the systems worker; a plain class so
 * Node tests can drive it with an ImportService on fake-indexeddb.
 */

import { metered, UsageMeter } from '../src/core/llm/index.ts';
import { smartcommentPieces } from '../src/core/trace/index.ts';
import { Tracer } from '../src/sdk/tracer.ts';
import { createSystem } from '../src/systems/factory.ts';
import { DATASET_LABEL, DATASETS, detectDataset, loadDataset } from '../src/systems/loaders/index.ts';
import { runSystem } from '../src/systems/run.ts';
import { type AnswerRecord, SPLIT_OF, SYSTEM_NAMES } from '../src/systems/system.ts';
import type { Conversation, DatasetName } from '../src/systems/types.ts';
import { yieldToMessages } from './abort-transfer.ts';
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

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export class SystemsService implements Omit<SystemsApi, 'optimize' | 'connectEngine'> {
  /** One run at a time (they share the worker and the import path). */
  #running = false;

  /** `importer` is the import path the trace is stored through: the engine's (in Node tests, an ImportService). */
  constructor(private readonly importer: Pick<ImportApi, 'importFiles'>) {}

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
    signal?: AbortSignal,
  ): Promise<SystemRunResult> {
    if (this.#running) throw new Error('A system is already running; wait for it or cancel it.');
    this.#running = true;
    const t = new RunTracker(request, onProgress);
    try {
      return await this.#runChecked(request, t, model, port, signal);
    } catch (e) {
      const p = t.progress;
      if (signal?.aborted)
        return t.finish({
          status: 'cancelled',
          sessions: p.sessionsDone,
          questions: p.questionsAnswered,
          correct: p.correct,
          failed: p.questionsAnswered - p.correct,
          message: 'Cancelled; nothing stored.',
        });
      return t.finish({
        status: 'failed',
        message: e instanceof RunInputError ? e.message : `The run stopped: ${errorText(e)}`,
      });
    } finally {
      this.#running = false;
    }
  }

  /** The run itself: checks, loads, runs the system traced, then exports and stores the trace. */
  async #runChecked(
    request: SystemRunRequest,
    t: RunTracker,
    model?: ModelInfo,
    port?: ModelPort,
    signal?: AbortSignal,
  ): Promise<SystemRunResult> {
    const max = checkRequest(request, model, port);
    // Every call (system and judge) is metered here: the run's cost is what the provider reported.
    const meter = new UsageMeter();
    const llm =
      request.mode === 'llm' && model && port
        ? metered(new PortChatModel(model, port), meter, { label: 'run a system' })
        : undefined;
    t.result.mode = request.mode === 'llm' ? 'llm' : 'offline';
    if (llm) t.result.model = llm.model;
    t.report({});
    const loaded = await this.#load(request.source);
    t.result.dataset = loaded.dataset;
    const conv = loaded.conversations.find((c) => c.id === request.conversationId);
    if (!conv)
      throw new RunInputError(`No conversation "${request.conversationId}" in ${request.source.name}.`);
    signal?.throwIfAborted();
    t.report({
      phase: 'running',
      sessionsTotal: sessionsToRun(conv, max),
      questionsTotal: conv.questions.length,
      label: 'starting',
    });
    const tracer = runTracer(request, loaded.dataset, conv, llm?.model, max);
    const run = await runSystem(createSystem(request.system), conv, {
      tracer,
      llm,
      maxSessions: max,
      signal,
      onProgress: t.onSystemProgress(),
    });
    signal?.throwIfAborted();
    await tracer.finish();
    const correct = run.answers.filter((a) => a.correct).length;
    Object.assign(t.result, {
      sessions: t.progress.sessionsDone,
      questions: run.answers.length,
      correct,
      failed: run.answers.length - correct,
      variables: tracer.counts.nodes,
      operations: tracer.counts.operations,
      edges: tracer.counts.edges,
    });
    if (llm) {
      const u = meter.totals();
      Object.assign(t.result, {
        llmCalls: u.calls,
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
      });
    }
    const file = `${request.system}-${conv.id}-${max ? `${max}-sessions-` : ''}${llm ? 'llm' : 'offline'}.json`;
    return this.#store(tracer, file, t, signal);
  }

  /** Exports the traced run and stores it through the import path, like a file of those bytes. */
  async #store(tracer: Tracer, file: string, t: RunTracker, signal?: AbortSignal): Promise<SystemRunResult> {
    t.report({ phase: 'exporting', label: 'writing the execution graph' });
    await yieldToMessages();
    const document = tracer.document();
    const blob = blobOf(smartcommentPieces(document), 'application/json');
    t.result.bytes = blob.size;
    signal?.throwIfAborted();

    t.report({ phase: 'storing', label: `storing ${file}` });
    const [stored] = await this.importer.importFiles(
      // The run's document is handed over as it is: its bytes are stored, not parsed back.
      [{ blob, name: file, path: file, document }],
      {},
      undefined,
      signal,
    );
    if (stored.status === 'cancelled' || signal?.aborted)
      return t.finish({
        status: 'cancelled',
        message: 'Cancelled before the trace was stored; nothing kept.',
      });
    if (stored.status !== 'stored' && stored.status !== 'replaced')
      return t.finish({
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
    t.report({ phase: 'done', label: 'stored' });
    return t.finish({
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

/** A run's progress (reported as it changes) and its result (timed when it finishes). */
class RunTracker {
  readonly #started = now();
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
    Object.assign(this.result, changes, { seconds: (now() - this.#started) / 1000 });
    return { ...this.result };
  }

  /** runSystem's progress callback: counts sessions and answers, and yields so a cancel gets through. */
  onSystemProgress(): (done: number, total: number, label: string, answer?: AnswerRecord) => Promise<void> {
    let lastYield = now();
    return async (_done, _total, label, answer) => {
      if (answer)
        this.report({
          questionsAnswered: this.progress.questionsAnswered + 1,
          correct: this.progress.correct + (answer.correct ? 1 : 0),
          label,
        });
      else this.report({ sessionsDone: this.progress.sessionsDone + 1, label });
      if (now() - lastYield > 12) {
        await yieldToMessages();
        lastYield = now();
      }
    };
  }
}

/** The session limit of a valid request; throws a RunInputError naming what is wrong. */
function checkRequest(request: SystemRunRequest, model?: ModelInfo, port?: ModelPort): number | undefined {
  if (!SYSTEM_NAMES.includes(request.system))
    throw new RunInputError(`Unknown system "${request.system}" (one of ${SYSTEM_NAMES.join(', ')}).`);
  const max = request.maxSessions;
  if (max !== undefined && !(Number.isInteger(max) && max > 0))
    throw new RunInputError('The session limit must be a positive whole number.');
  if (request.mode === 'llm' && !(model && port))
    throw new RunInputError('LLM mode needs a model: set up a provider profile in Settings.');
  return max;
}

/** What runSystem will do: the first S sessions, stopping after the last one a question needs. */
function sessionsToRun(conv: Conversation, max: number | undefined): number {
  const S = Math.min(conv.sessions.length, max ?? Number.POSITIVE_INFINITY);
  const lastNeeded = conv.questions.reduce((m, q) => Math.max(m, Math.min(q.askedBefore, S + 1)), 0);
  return Math.min(S, Math.max(0, lastNeeded - 1));
}

/** The tracer of a run, its metadata saying what ran on what (`llmModel` undefined: offline mode). */
function runTracer(
  request: SystemRunRequest,
  dataset: DatasetName,
  conv: Conversation,
  llmModel: string | undefined,
  max: number | undefined,
): Tracer {
  return new Tracer({
    filename: `memtrace-${request.system}`,
    metadata: {
      system: SPLIT_OF[request.system],
      dataset,
      conversation: conv.id,
      mode: llmModel !== undefined ? 'llm' : 'offline',
      llm_model: llmModel ?? 'offline-deterministic',
      source_file: request.source.name,
      max_sessions: max ?? null,
      description:
        `${request.system} (${llmModel !== undefined ? `LLM mode, model ${llmModel}` : 'offline mode: deterministic components, no model'}) on ${conv.id} of ` +
        `${request.source.name}, run in MemTrace Workbench.`,
    },
  });
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** A blob of text pieces, made a few MB at a time: the file's whole text is never one string beside its document. */
function blobOf(pieces: Iterable<string>, type: string): Blob {
  let blob = new Blob([], { type });
  let batch: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    batch.push(piece);
    chars += piece.length;
    if (chars < 4_000_000) continue;
    blob = new Blob([blob, ...batch], { type });
    batch = [];
    chars = 0;
  }
  return new Blob([blob, ...batch], { type });
}
