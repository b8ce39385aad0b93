/**
 * LLM agent runs of cases (MemTrace, MemTrace-OBS), app-wide so a run goes on while
 * the person looks elsewhere. The loop runs in the engine worker (EngineApi.runAgent),
 * which writes the run's `runs` row (checkpoint after every step); the chat model stays
 * in this page (settings.chatModel → a comlink proxy of `modelPort`), so keys never
 * leave it. A row left `running` by a closed page shows as interrupted and can be
 * resumed from its checkpoint; a result can be accepted or corrected as a label
 * (`label_source: 'agent'`, a record of its own next to the case's other labels).
 */
import * as Comlink from 'comlink';
import type { AgentRunEvent } from '../../../workers/api.ts';
import { AGENT_METHODS, type AgentMethod, MAX_STEPS } from '../../core/attribution/index.light.ts';
import { AGENT_SOURCE, type OpKind } from '../../core/labels/index.ts';
import {
  type AgentModelInfo,
  type AgentProgress,
  type AgentRunRow,
  getAgentRun,
  listAgentRuns,
} from '../../db/agent-runs.ts';
import type { LabelRow } from '../../db/schema.ts';
import { useLlm } from '../llm/context.ts';
import type { LlmSettings } from '../llm/settings.svelte.ts';
import { type Services, useServices } from '../state/services.ts';
import { modelInfo, modelPort } from './model-port.ts';
import { applyEvent } from './progress.ts';

const AGENT_LABEL_SOURCE = AGENT_SOURCE;
const METHOD_LABEL: Record<AgentMethod, string> = { memtrace: 'MemTrace', obs: 'MemTrace-OBS' };
export const METHODS: { id: AgentMethod; label: string }[] = AGENT_METHODS.map((id) => ({
  id,
  label: METHOD_LABEL[id],
}));
/** The paper's iteration budget (what the agents use when no other is asked for). */
export const DEFAULT_MAX_STEPS = MAX_STEPS;

interface StartOptions {
  traceId: string;
  queryId: string;
  method: AgentMethod;
  prior: boolean;
  maxSteps: number;
  /** Settings profile id (default: the active profile). */
  profileId?: string;
}

/** One run as shown: the stored row, plus live progress while this page runs it. */
export class AgentRunView {
  row = $state.raw<AgentRunRow>() as AgentRunRow;
  progress = $state.raw<AgentProgress>() as AgentProgress;
  /** True while this page runs (or resumes) it. */
  live = $state(false);
  /** Step of the last checkpoint written to the row. */
  savedStep = $state(0);
  /** When the current segment started (ms since epoch), and the seconds before it. */
  segmentStart = $state(0);
  baseSeconds = $state(0);
  error = $state<string | null>(null);
  cancelling = $state(false);
  /** Aborts the segment this page runs (its signal went to the worker with it). */
  abort: AbortController | null = null;

  constructor(row: AgentRunRow) {
    this.#set(row);
  }

  get id(): number {
    return this.row.id as number;
  }
  get status() {
    return this.row.status;
  }
  /** Left `running` by a page that closed: resumable from its checkpoint. */
  get interrupted(): boolean {
    return !this.live && this.row.status === 'running';
  }
  get resumable(): boolean {
    return !this.live && (this.row.status === 'running' || this.row.status === 'failed');
  }
  /** Seconds of work so far (all segments), at `now`. */
  elapsed(now: number): number {
    if (this.row.result) return this.row.result.seconds;
    if (!this.live) return this.progress.seconds;
    return this.baseSeconds + Math.max(0, now - this.segmentStart) / 1000;
  }

  #set(row: AgentRunRow) {
    this.row = row;
    this.progress = row.progress;
    this.savedStep = row.progress.step;
    this.error = row.error;
  }

  /** Replace with the stored row (after the worker finished it). */
  update(row: AgentRunRow) {
    this.#set(row);
  }

  event(e: AgentRunEvent) {
    this.progress = applyEvent(this.progress, e);
    if (e.type === 'saved') this.savedStep = e.progress.step;
  }
}

class AgentRuns {
  readonly #views = new Map<number, AgentRunView>();

  constructor(
    private readonly services: Services,
    private readonly settings: LlmSettings,
  ) {}

  #view(row: AgentRunRow): AgentRunView {
    const id = row.id as number;
    let v = this.#views.get(id);
    if (!v) {
      v = new AgentRunView(row);
      this.#views.set(id, v);
    } else if (!v.live) v.update(row);
    return v;
  }

  /** A case's runs, newest first (live ones as this page sees them). */
  async list(traceId: string, queryId: string): Promise<AgentRunView[]> {
    const rows = await listAgentRuns(this.services.db, traceId, queryId);
    return rows.map((r) => this.#view(r));
  }

  /** Starts a run: stores its row, then runs it in the worker. Returns its view at once. */
  async start(o: StartOptions): Promise<AgentRunView> {
    const model = this.settings.chatModel(o.profileId, `${o.method} ${o.queryId}`);
    const id = await this.services.engine.addAgentRun(
      $state.snapshot({
        traceId: o.traceId,
        queryId: o.queryId,
        method: o.method,
        parameters: { prior: o.prior, maxSteps: o.maxSteps },
        model: this.#describe(o.profileId, model.provider, model.model),
      }),
    );
    const row = await getAgentRun(this.services.db, id);
    if (!row) throw new Error('the run was not stored');
    const v = this.#view(row);
    void this.#drive(v, model);
    return v;
  }

  /** Continues an interrupted (or failed) run from its stored checkpoint, with its profile if it still exists. */
  async resume(v: AgentRunView, profileId?: string): Promise<void> {
    if (v.live) return;
    const known = this.settings.profiles.some((p) => p.id === v.row.model.profileId);
    const pid = profileId ?? (known ? v.row.model.profileId : undefined);
    const model = this.settings.chatModel(pid, `${v.row.method} ${v.row.queryId} (resumed)`);
    await this.services.engine.reopenAgentRun(
      v.id,
      $state.snapshot(this.#describe(pid, model.provider, model.model)),
    );
    const row = await getAgentRun(this.services.db, v.id);
    if (row) v.update(row);
    void this.#drive(v, model);
  }

  cancel(v: AgentRunView): void {
    if (!v.live || !v.abort) return;
    v.cancelling = true;
    v.abort.abort();
  }

  /** Stores the run's result (accepted) or a correction as a label of the case, by `annotator`. */
  async label(
    v: AgentRunView,
    decision: 'accepted' | 'corrected',
    correction: { errorType: string; opId: string; reason: string } | undefined,
    annotator: string,
    /** The stored op's name and kind: a type it cannot cause is refused. */
    opKind?: OpKind,
  ): Promise<LabelRow> {
    const r = v.row.result;
    if (!r) throw new Error('the run has no result');
    const errorType = decision === 'accepted' ? r.predicted_type : correction?.errorType;
    const opId = decision === 'accepted' ? r.predicted_op : correction?.opId;
    if (!errorType || !opId) throw new Error('nothing to store: pick an error type and an op');
    // A plain copy crosses to the worker (state proxies cannot be cloned).
    return this.services.engine.saveLabel(
      $state.snapshot({
        traceId: v.row.traceId,
        queryId: v.row.queryId,
        errorType,
        opId,
        reason:
          decision === 'accepted'
            ? r.reason
            : correction?.reason ||
              `Corrected from ${r.predicted_type ?? 'none'} at ${r.predicted_op ?? '—'} (${r.method}).`,
        decision,
        method: r.method,
        source: AGENT_LABEL_SOURCE,
        annotator,
        opKind,
      }),
    );
  }

  #describe(profileId: string | undefined, provider: string, model: string): AgentModelInfo {
    const p = profileId ? this.settings.profiles.find((x) => x.id === profileId) : this.settings.active;
    return { profileId: p?.id ?? '', profileName: p?.name ?? provider, provider, model };
  }

  async #drive(v: AgentRunView, model: ReturnType<LlmSettings['chatModel']>): Promise<void> {
    v.live = true;
    v.cancelling = false;
    v.error = null;
    v.segmentStart = Date.now();
    v.baseSeconds = v.row.progress.seconds;
    v.abort = new AbortController();
    const port = Comlink.proxy(modelPort(model));
    const onEvent = Comlink.proxy((e: AgentRunEvent) => v.event(e));
    try {
      const row = await this.services.analysis.runAgent(
        v.id,
        modelInfo(model),
        port,
        onEvent,
        v.abort.signal,
      );
      v.live = false;
      v.update(row);
    } catch (e) {
      v.live = false;
      const row = await getAgentRun(this.services.db, v.id);
      if (row) v.update(row);
      v.error = e instanceof Error ? e.message : String(e);
    } finally {
      v.live = false;
      v.cancelling = false;
      v.abort = null;
    }
  }
}

const stores = new WeakMap<Services, AgentRuns>();
/**
 * The page's agent runs (one store per app, made on first use, so runs outlive the
 * case workspace that started them). Call during component setup.
 */
export function useAgentRuns(): AgentRuns {
  const services = useServices();
  let s = stores.get(services);
  if (!s) {
    s = new AgentRuns(services, useLlm().settings);
    stores.set(services, s);
  }
  return s;
}
