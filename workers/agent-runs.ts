/**
 * LLM agent runs inside the analysis worker: the MemTrace / MemTrace-OBS loop (core)
 * runs here, off the page's main thread; the chat model stays in the page and is called
 * through a `ModelPort` (comlink proxy), so API keys, the WebLLM engine, the response
 * cache and the session's token meter stay where the settings live. Each checkpoint is
 * written to the run's row before the next step is reported as saved; the row's
 * segment guards against a stale runner writing over a resumed run.
 */
import { type AttributionEvent, engineFor } from '../src/core/attribution/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import {
  type AgentProgress,
  type AgentRunRow,
  getAgentRun,
  progressOf,
  type StepNote,
  writeAgentRun,
} from '../src/db/agent-runs.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { depsOf, evaluatedCase, findCase } from './evaluation.ts';
import type { Matching } from './matcher.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';

/** Live events of an agent run (the checkpoints themselves stay in the worker and the row). */
export type AgentRunEvent =
  | { type: 'step'; step: number; note: string }
  | { type: 'explore'; var_id: string }
  | { type: 'frontier'; var_ids: string[] }
  | { type: 'tokens'; input_tokens: number; output_tokens: number }
  /** A checkpoint was written to the row. */
  | { type: 'saved'; progress: AgentProgress };

export class AgentRunner {
  /** Runs going on in this worker: one runner per run (a second would write the same segment). */
  readonly #live = new Set<number>();

  constructor(
    private readonly db: MemtraceDb,
    private readonly open: (traceId: string) => Promise<TraceGraph>,
    /** The evidence-flow matcher the prior uses (the same as the attribution panel's). */
    private readonly matching?: Matching,
  ) {}

  /**
   * Runs the current segment of a `running` agent row to its end (see AnalysisApi.runAgent);
   * aborting `signal` stops it at its next step or model call and marks the row cancelled.
   */
  async run(
    runId: number,
    info: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
    signal?: AbortSignal,
  ): Promise<AgentRunRow> {
    if (this.#live.has(runId)) throw new Error(`agent run ${runId} is already running`);
    this.#live.add(runId);
    let writes: Promise<unknown> = Promise.resolve();
    try {
      const row = await getAgentRun(this.db, runId);
      if (!row) throw new Error(`no agent run ${runId}`);
      if (row.status !== 'running') throw new Error(`agent run ${runId} is ${row.status}`);
      const { segment } = row;
      let outcome: Partial<AgentRunRow>;
      try {
        outcome = await this.#segment(row, info, port, onEvent, signal, (w) => {
          writes = writes.then(w).catch(() => undefined);
        });
      } catch (e) {
        outcome = signal?.aborted
          ? { status: 'cancelled', error: null }
          : { status: 'failed', error: e instanceof Error ? e.message : String(e) };
      }
      await writes.catch(() => undefined);
      await writeAgentRun(this.db, runId, segment, { ...outcome, finishedAt: Date.now() });
    } finally {
      this.#live.delete(runId);
    }
    const final = await getAgentRun(this.db, runId);
    if (!final) throw new Error(`agent run ${runId} was deleted`);
    return final;
  }

  /** One segment: the engine from the row's checkpoint (if any) to its answer. */
  async #segment(
    row: AgentRunRow,
    info: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
    signal: AbortSignal | undefined,
    queue: (write: () => Promise<unknown>) => void,
  ): Promise<Partial<AgentRunRow>> {
    const runId = row.id as number;
    const { segment } = row;
    const g = await this.open(row.traceId);
    const c = findCase(g, row.queryId);
    if (!c) throw new Error(`no question ${row.queryId} in trace ${row.traceId}`);
    const caseRow = await this.db.cases.get([row.traceId, row.queryId]);
    const system = caseRow?.system ?? null;
    const deps = {
      // Agents start from the paper's hybrid start points (BM25 + dense).
      ...(await depsOf(g, this.matching, true)),
      model: new PortChatModel(info, port),
      prior: row.parameters.prior,
      agent: { maxSteps: row.parameters.maxSteps },
      now: () => performance.now(),
    };
    const notes: StepNote[] = [...row.progress.notes];
    const send = (e: AgentRunEvent) => {
      // A page that went away does not stop the run: it goes on to its next checkpoint or its end.
      try {
        void Promise.resolve(onEvent(e)).catch(() => undefined);
      } catch {
        // same
      }
    };
    const hook = (e: AttributionEvent) => {
      switch (e.type) {
        case 'step':
          notes.push({ step: e.step, note: e.note });
          send(e);
          break;
        case 'explore':
        case 'frontier':
        case 'tokens':
          send(e);
          break;
        case 'checkpoint': {
          const progress = progressOf(e.checkpoint, notes);
          queue(async () => {
            if (await writeAgentRun(this.db, runId, segment, { checkpoint: e.checkpoint, progress }))
              send({ type: 'saved', progress });
          });
          break;
        }
        case 'done':
          break;
      }
    };
    const a = await engineFor(row.method)({ graph: g, case: c, system }, deps, {
      signal,
      onEvent: hook,
      resume: row.checkpoint ?? undefined,
    });
    const result = evaluatedCase(
      a,
      row.traceId,
      c,
      system,
      caseRow ? { type: caseRow.errorType ?? '', op: caseRow.labelOpId ?? null } : null,
      g,
    );
    return { status: 'done', result, error: null };
  }
}
