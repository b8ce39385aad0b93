/**
 * LLM agent runs (MemTrace, MemTrace-OBS) of one case, kept as `runs` rows of kind
 * `agent`. The row is created `running` by the page, then written by the one runner
 * that owns its current segment (the engine worker): the agent's checkpoint and a
 * small progress summary after every step, and the result or the outcome at the end.
 * A page closed mid-run leaves the row `running` (shown as interrupted); resuming opens
 * a new segment, so a runner left over from an older segment can no longer write.
 * Rows never hold API keys: the model is described by its profile's id, name, kind and
 * model name only.
 */
import type { AgentCheckpoint, AgentMethod } from '../core/attribution/index.ts';
import type { EvaluatedCase, RunStatus } from './runs.ts';
import type { MemtraceDb, RunRow } from './schema.ts';

/** Step notes kept in a row for display after a reload (the most recent). */
export const MAX_NOTES = 300;

export interface AgentModelInfo {
  /** The settings profile the run used (so a resume can pick it again). */
  profileId: string;
  profileName: string;
  /** openai | anthropic | webllm | scripted */
  provider: string;
  model: string;
}

interface AgentParameters {
  prior: boolean;
  maxSteps: number;
}

export interface StepNote {
  step: number;
  note: string;
}

/** What the run panel shows, kept small: no messages. */
export interface AgentProgress {
  step: number;
  input_tokens: number;
  output_tokens: number;
  llm_calls: number;
  /** Wall time of all segments up to the last checkpoint. */
  seconds: number;
  estimated: boolean;
  notes: StepNote[];
  /** MemTrace: finished variables, the one being explored and the to-explore list. */
  explored: string[];
  current: string | null;
  frontier: string[];
  /** Ops whose full content the model has seen (OBS: blocks read). */
  read_ops: string[];
}

export interface AgentRunRow extends RunRow {
  kind: 'agent';
  method: AgentMethod;
  status: RunStatus;
  parameters: AgentParameters;
  model: AgentModelInfo;
  /** Incremented by every start and resume; only the runner of the current segment writes. */
  segment: number;
  checkpoint: AgentCheckpoint | null;
  progress: AgentProgress;
  updatedAt: number;
  finishedAt: number | null;
  result: EvaluatedCase | null;
  error: string | null;
}

export const EMPTY_PROGRESS: AgentProgress = {
  step: 0,
  input_tokens: 0,
  output_tokens: 0,
  llm_calls: 0,
  seconds: 0,
  estimated: false,
  notes: [],
  explored: [],
  current: null,
  frontier: [],
  read_ops: [],
};

/** The progress summary of a checkpoint, with the step notes seen so far. */
export function progressOf(cp: AgentCheckpoint, notes: readonly StepNote[]): AgentProgress {
  return {
    step: cp.step,
    input_tokens: cp.usage.input_tokens,
    output_tokens: cp.usage.output_tokens,
    llm_calls: cp.usage.llm_calls,
    seconds: cp.usage.seconds,
    estimated: cp.usage.estimated,
    notes: notes.slice(-MAX_NOTES),
    explored: cp.frontier ? [...cp.frontier.explored] : [],
    current: cp.frontier?.current ?? null,
    frontier: cp.frontier ? [...cp.frontier.list] : [],
    read_ops: [...cp.shown_ops],
  };
}

function isAgentRun(r: RunRow | undefined): r is AgentRunRow {
  return !!r && r.kind === 'agent';
}

/** What a new agent run is started with. */
export interface AgentRunInit {
  traceId: string;
  queryId: string;
  method: AgentMethod;
  parameters: AgentParameters;
  model: AgentModelInfo;
}

export async function addAgentRun(db: MemtraceDb, init: AgentRunInit): Promise<number> {
  const now = Date.now();
  const row: AgentRunRow = {
    traceId: init.traceId,
    queryId: init.queryId,
    kind: 'agent',
    method: init.method,
    status: 'running',
    createdAt: now,
    parameters: { ...init.parameters },
    model: {
      profileId: init.model.profileId,
      profileName: init.model.profileName,
      provider: init.model.provider,
      model: init.model.model,
    },
    segment: 1,
    checkpoint: null,
    progress: { ...EMPTY_PROGRESS },
    updatedAt: now,
    finishedAt: null,
    result: null,
    error: null,
  };
  return (await db.runs.add(row)) as number;
}

export async function getAgentRun(db: MemtraceDb, id: number): Promise<AgentRunRow | undefined> {
  const r = await db.runs.get(id);
  return isAgentRun(r) ? r : undefined;
}

/** A case's agent runs, newest first. */
export async function listAgentRuns(
  db: MemtraceDb,
  traceId: string,
  queryId: string,
): Promise<AgentRunRow[]> {
  const rows = await db.runs.where('[traceId+queryId]').equals([traceId, queryId]).toArray();
  return rows.filter(isAgentRun).sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
}

/**
 * Opens a new segment of an interrupted or failed run (status back to `running`) and
 * returns its number; the run continues from its stored checkpoint. Done and cancelled
 * runs are not reopened.
 */
export async function reopenAgentRun(db: MemtraceDb, id: number, model?: AgentModelInfo): Promise<number> {
  return db.transaction('rw', db.runs, async () => {
    const r = await getAgentRun(db, id);
    if (!r) throw new Error(`no agent run ${id}`);
    if (r.status === 'done' || r.status === 'cancelled') throw new Error(`agent run ${id} is ${r.status}`);
    const segment = r.segment + 1;
    await db.runs.update(id, {
      status: 'running',
      segment,
      error: null,
      finishedAt: null,
      updatedAt: Date.now(),
      ...(model ? { model: { ...model } } : {}),
    });
    return segment;
  });
}

/** Applies changes when `segment` is still the run's current one; false when it is not. */
export async function writeAgentRun(
  db: MemtraceDb,
  id: number,
  segment: number,
  changes: Partial<
    Pick<AgentRunRow, 'checkpoint' | 'progress' | 'status' | 'result' | 'error' | 'finishedAt'>
  >,
): Promise<boolean> {
  const n = await db.runs
    .where('id')
    .equals(id)
    .and((r) => isAgentRun(r) && r.segment === segment && r.status === 'running')
    .modify({ ...changes, updatedAt: Date.now() });
  return n > 0;
}
