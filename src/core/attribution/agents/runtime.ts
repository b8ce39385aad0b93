/**
 * The loop both LLM agents share: one action per iteration (JSON action protocol or
 * native tool calls), token accounting (compression calls included), validation of the
 * final answer, abort, and a checkpoint event after every step. Budgets: `budgets.ts`;
 * compression: `compress.ts`; starting and resuming a checkpoint: `checkpoint.ts`.
 */
import { z } from 'zod';
import { isSentinelOp, type TraceGraph } from '../../graph/index.ts';
import {
  type ActionSpec,
  type ChatModel,
  completeAction,
  LlmError,
  spentOfError,
  withSpent,
} from '../../llm/index.ts';
import { ERROR_TYPES, type ErrorType, isErrorType } from '../../trace/index.ts';
import {
  type AgentCheckpoint,
  type AgentMethod,
  type Attribution,
  type AttributionInput,
  type Candidate,
  type PathStep,
  type RunHooks,
  throwIfAborted,
} from '../types.ts';
import type { Budgets } from './budgets.ts';
import { charge, spentSoFar } from './checkpoint.ts';
import { maybeCompress } from './compress.ts';
import { type AgentStopKind, AgentStoppedError } from './stopped.ts';

/** Consecutive replies that are no valid action before the run gives up. */
export const MAX_BAD_REPLIES = 3;

/** The action that ends a run: the decisive faulty op and its error type. */
export const finalAnswerAction = {
  description:
    'Finish: name the decisive faulty operation. error_type is one of ExtractionError, UpdateError, DeletionError, RetrievalError, ResponseError; op_id is an op_id shown to you.',
  args: z.object({
    error_type: z.string().describe(`one of ${ERROR_TYPES.join(', ')}`),
    op_id: z.string(),
    reason: z.string(),
  }),
} satisfies ActionSpec;

/** The arguments of a final answer, as the model sent them (checked by `checkFinal`). */
export type FinalArgs = z.infer<typeof finalAnswerAction.args>;

/** What an agent's tools did with one action. */
export interface Observation {
  text: string;
  /** Op ids shown in full by this observation. */
  shown?: string[];
}

/** What a method (MemTrace, MemTrace-OBS) gives the loop: its prompt, actions and tools. */
export interface AgentEnv {
  method: AgentMethod;
  /** The system prompt. */
  system: string;
  actions: Record<string, ActionSpec>;
  /** Runs a non-final action against the checkpoint (mutating it) and describes the outcome. */
  execute(action: { action: string; args: unknown }, cp: AgentCheckpoint): Observation;
  /** A short state line appended to every observation. */
  status(cp: AgentCheckpoint): string;
  /** The case statement (repeated after compression). */
  caseText: string;
  /** The path reported with the result. */
  path(cp: AgentCheckpoint): PathStep[];
}

/** Why a final answer is refused, or null when it is acceptable. */
function checkFinal(g: TraceGraph, a: FinalArgs): string | null {
  const problems: string[] = [];
  if (!isErrorType(a.error_type))
    problems.push(`error_type "${a.error_type}" is not one of ${ERROR_TYPES.join(', ')}`);
  const op = g.opIndex.get(a.op_id);
  if (op === undefined) problems.push(`op_id "${a.op_id}" is not an operation of this graph`);
  else if (isSentinelOp(g, op))
    problems.push(`op_id "${a.op_id}" is a sentinel, not an operation of the system`);
  return problems.length
    ? `${problems.join('; ')}. Give the final answer again, with a valid error_type and an op_id shown to you.`
    : null;
}

/** One run of the loop: the case, the model, the method's environment and the state to continue. */
export interface RunArgs {
  input: AttributionInput;
  model: ChatModel;
  env: AgentEnv;
  cp: AgentCheckpoint;
  budgets: Budgets;
  hooks: RunHooks;
  /** Candidates to report after the answer (prior mode). */
  extraCandidates?: Candidate[];
  /** A clock in milliseconds, for `cost.seconds` (injected so core never reads the clock; none: 0 s). */
  now?: () => number;
}

function pushTurn(
  cp: AgentCheckpoint,
  action: { action: string; args: unknown },
  toolCallId: string | undefined,
  observation: string,
) {
  if (toolCallId) {
    cp.messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: toolCallId, name: action.action, arguments: JSON.stringify(action.args) }],
    });
    cp.messages.push({ role: 'tool', toolCallId, name: action.action, content: observation });
  } else {
    cp.messages.push({ role: 'assistant', content: JSON.stringify(action) });
    cp.messages.push({ role: 'user', content: observation });
  }
}

function finish(
  a: RunArgs,
  cp: AgentCheckpoint,
  fields: { error_type: ErrorType | null; op_id: string | null; reason: string },
): Attribution {
  const candidates: Candidate[] = [];
  if (fields.op_id && fields.error_type)
    candidates.push({ op_id: fields.op_id, error_type: fields.error_type, score: 1, reason: fields.reason });
  for (const [i, c] of (a.extraCandidates ?? []).entries())
    if (!candidates.some((x) => x.op_id === c.op_id)) candidates.push({ ...c, score: 0.5 / (i + 1) });
  const { estimated: _e, ...cost } = cp.usage;
  return {
    query_id: a.input.case.queryId,
    method: a.env.method,
    ...fields,
    path: [...a.env.path(cp), ...(fields.op_id ? [{ op_id: fields.op_id, note: 'decisive error' }] : [])],
    candidates,
    cost,
    preset: a.budgets.preset,
  };
}

/**
 * Runs (or resumes) an agent until it answers, the budget ends, or the signal aborts. An
 * LlmError that ends the run notes (`spent`) everything the run cost up to it.
 */
export async function runAgent(a: RunArgs): Promise<Attribution> {
  try {
    return await loop(a);
  } catch (e) {
    throw withSpent(e, spentSoFar(a.cp.usage));
  }
}

async function loop(a: RunArgs): Promise<Attribution> {
  if (a.cp.result) return a.cp.result;
  const run = new AgentRun(a);
  while (a.cp.step < a.budgets.maxSteps) {
    const result = await run.step();
    if (result) return result;
  }
  const refused = a.cp.invalid_answers ? ` (${a.cp.invalid_answers} final answer(s) refused)` : '';
  stop(
    a.cp,
    'budget-exhausted',
    `no acceptable final answer within ${a.budgets.maxSteps} iterations${refused}`,
  );
}

/** An action the model chose, and the id of its tool call (none in JSON mode). */
interface Reply {
  chosen: { action: string; args: unknown };
  toolCallId: string | undefined;
}

/** One run of the loop, step by step: the time it took and the events it reports. */
class AgentRun {
  private readonly now: () => number;
  private mark: number;

  constructor(private readonly a: RunArgs) {
    this.now = a.now ?? (() => 0);
    this.mark = this.nowSeconds();
  }

  private nowSeconds(): number {
    return this.now() / 1000;
  }

  /** Adds the time since the last tick to the run's cost. */
  private readonly tick = () => {
    const t = this.nowSeconds();
    this.a.cp.usage.seconds += t - this.mark;
    this.mark = t;
  };

  private emitTokens() {
    const { cp, hooks } = this.a;
    hooks.onEvent?.({
      type: 'tokens',
      input_tokens: cp.usage.input_tokens,
      output_tokens: cp.usage.output_tokens,
    });
  }

  private checkpoint() {
    const { cp, hooks } = this.a;
    if (hooks.onEvent) hooks.onEvent({ type: 'checkpoint', checkpoint: structuredClone(cp) });
  }

  private done(r: Attribution): Attribution {
    this.a.cp.result = r;
    this.checkpoint();
    this.a.hooks.onEvent?.({ type: 'done', result: r });
    return r;
  }

  /** One iteration: compress if needed, ask for an action, answer or act; the result once there is one. */
  async step(): Promise<Attribution | undefined> {
    const { cp, budgets, model, hooks, env } = this.a;
    throwIfAborted(hooks.signal);
    if (await maybeCompress({ cp, budgets, model, hooks, caseText: env.caseText }, this.tick))
      this.emitTokens();
    throwIfAborted(hooks.signal);
    const reply = await this.ask();
    if (!reply) return undefined;
    cp.step++;
    cp.bad_replies = 0;
    this.emitTokens();
    if (reply.chosen.action === 'final_answer') return this.answer(reply);
    this.act(reply);
    return undefined;
  }

  /** The model's next action (only the final answer at the last step); null after a reply that was none. */
  private async ask(): Promise<Reply | null> {
    const { cp, budgets, model, hooks, env } = this.a;
    const last = cp.step === budgets.maxSteps - 1;
    const actions = last ? { final_answer: finalAnswerAction } : env.actions;
    const messages = last
      ? [
          ...cp.messages,
          { role: 'user' as const, content: 'The iteration budget is used up. Give your final answer now.' },
        ]
      : cp.messages;
    try {
      const r = await completeAction(
        model,
        { messages, temperature: budgets.temperature, signal: hooks.signal },
        actions,
        { mode: budgets.mode },
      );
      charge(cp.usage, { calls: r.calls, ...r.usage });
      return { chosen: r.value as Reply['chosen'], toolCallId: r.response.toolCalls?.[0]?.id };
    } catch (e) {
      charge(cp.usage, spentOfError(e)); // the replies that could not be used cost too
      if (!(e instanceof LlmError) || e.kind !== 'invalid-output') throw e;
      this.badReply(e);
      return null;
    }
  }

  /** A reply that was no valid action: counted as a step, the model told why; too many in a row stop the run. */
  private badReply(e: LlmError) {
    const { cp, hooks, env } = this.a;
    throwIfAborted(hooks.signal);
    cp.step++;
    cp.bad_replies++;
    this.tick();
    hooks.onEvent?.({ type: 'step', step: cp.step, note: 'the reply was no valid action' });
    if (cp.bad_replies >= MAX_BAD_REPLIES)
      stop(
        cp,
        'no-valid-action',
        `the model gave no valid action ${cp.bad_replies} times in a row: ${e.message}`,
      );
    cp.messages.push({
      role: 'user',
      content: `Your reply was not a valid action (${e.message}). Choose one action.\n${env.status(cp)}`,
    });
    this.checkpoint();
  }

  /** A final answer: the result when it names a valid type and op, else refused and the run goes on. */
  private answer({ chosen, toolCallId }: Reply): Attribution | undefined {
    const { input, cp, hooks, env } = this.a;
    const f = chosen.args as FinalArgs;
    const problem = checkFinal(input.graph, f);
    if (!problem) {
      this.tick();
      hooks.onEvent?.({ type: 'step', step: cp.step, note: `final answer: ${f.error_type} at ${f.op_id}` });
      return this.done(
        finish(this.a, cp, { error_type: f.error_type as ErrorType, op_id: f.op_id, reason: f.reason }),
      );
    }
    cp.invalid_answers++;
    pushTurn(cp, chosen, toolCallId, `Refused: ${problem}\n${env.status(cp)}`);
    this.tick();
    hooks.onEvent?.({ type: 'step', step: cp.step, note: `final answer refused (${cp.invalid_answers})` });
    this.checkpoint();
    return undefined;
  }

  /** Any other action: run by the method's environment, its observation added to the conversation. */
  private act({ chosen, toolCallId }: Reply) {
    const { cp, hooks, env } = this.a;
    const obs = env.execute(chosen, cp);
    for (const op of obs.shown ?? []) if (!cp.shown_ops.includes(op)) cp.shown_ops.push(op);
    pushTurn(cp, chosen, toolCallId, `${obs.text}\n\n${env.status(cp)}`);
    this.tick();
    hooks.onEvent?.({
      type: 'step',
      step: cp.step,
      note: `${chosen.action} ${JSON.stringify(chosen.args)}`.slice(0, 200),
    });
    this.checkpoint();
  }
}

/**
 * Ends a run that has no verdict: a failed case with its reason, never a "no decisive error"
 * result. The checkpoint keeps its state (no result), so the run is not mistaken for an answered one.
 */
function stop(cp: AgentCheckpoint, kind: AgentStopKind, message: string): never {
  throw new AgentStoppedError(kind, `${message} (after ${cp.step} step(s))`);
}
