/**
 * The loop both LLM agents share: one action per iteration (JSON action protocol or
 * native tool calls), token accounting (compression calls included), context
 * compression, validation of the final answer, abort, and a plain serialisable
 * checkpoint after every step from which a run resumes.
 */
import { z } from 'zod';
import type { TraceGraph } from '../../graph/graph.ts';
import { isSentinelOp } from '../../graph/graph.ts';
import { LlmError } from '../../llm/errors.ts';
import { type ActionSpec, completeAction } from '../../llm/structured.ts';
import { estimateTokens } from '../../llm/tokens.ts';
import type { ChatMessage, ChatModel, ChatResponse, Spent } from '../../llm/types.ts';
import { spentOfError, spentOfResponse, withSpent } from '../../llm/usage.ts';
import { ERROR_TYPES, type ErrorType, isErrorType } from '../../trace/types.ts';
import {
  type Attribution,
  type AttributionInput,
  type Candidate,
  type PathStep,
  type RunHooks,
  throwIfAborted,
} from '../types.ts';

export type AgentMethod = 'memtrace' | 'obs';

/**
 * Named budget sets. `paper` (the default) is the paper's released values: compress past 272k
 * tokens, summarise at most 1M, pages of 128k and windows of 32k characters, OBS blocks tied
 * on created_at ordered by op id. `window-scaled` fits a smaller model: compress at 80 % of its
 * context window, summarise at most 90 % of it, pages and windows at most ~30 % of it, OBS ties
 * in file order.
 */
export type AgentPreset = 'paper' | 'window-scaled';
export const AGENT_PRESETS: readonly AgentPreset[] = ['paper', 'window-scaled'];

/** Knobs of both agents: a preset (default `paper`), and any field set here overrides it. */
export interface AgentOptions {
  preset?: AgentPreset;
  /** Reasoning iterations (default 200). */
  maxSteps?: number;
  /** Sampling temperature (default 1.0). */
  temperature?: number;
  /** Context window in tokens; default the model's `capabilities.contextWindow`, else 272k. */
  contextWindow?: number;
  /** Compress when the conversation passes this many tokens (paper: 272k; window-scaled: 80 % of the window). */
  compressAt?: number;
  /** At most this many tokens of history are summarised in one call (paper: 1M; window-scaled: min(1M, 90 %)). */
  compressCap?: number;
  /** Characters per page of an explore view or value (paper: 128k; window-scaled: less on small windows). */
  pageChars?: number;
  /** OBS window size in characters (paper: 32k; window-scaled: less on small windows). */
  windowChars?: number;
  /** OBS blocks with the same created_at: by op id (paper) or in file order (window-scaled). */
  obsTies?: 'op_id' | 'file';
  /** Add the per-system prior text when the system is known (default true). */
  systemPriors?: boolean;
  /** How the model picks actions: `auto` uses native tools when the provider has them. */
  mode?: 'auto' | 'json' | 'tool';
}

export interface AgentUsage {
  input_tokens: number;
  output_tokens: number;
  llm_calls: number;
  seconds: number;
  /** Some counts were estimated from text (the provider reported none). */
  estimated: boolean;
}

export interface FrontierState {
  /** The variable being explored (full_node_id), or null. */
  current: string | null;
  /** The to-explore list, earliest first, without the current one. */
  list: string[];
  /** Variables whose exploration was finished, in order. */
  explored: string[];
}

/** Everything a run needs to continue: a plain JSON object. */
export interface AgentCheckpoint {
  version: 1;
  method: AgentMethod;
  query_id: string;
  prior: boolean;
  /** Iterations done. */
  step: number;
  messages: ChatMessage[];
  usage: AgentUsage;
  compressions: number;
  /** Rejected final answers so far. */
  invalid_answers: number;
  /** Consecutive replies that were no valid action. */
  bad_replies: number;
  /** MemTrace: the frontier. */
  frontier?: FrontierState;
  /** Op ids whose full content was shown to the model, in first-shown order. */
  shown_ops: string[];
  /** Prior mode: the evidence-flow candidates the run started from. */
  prior_candidates?: Candidate[];
  /** Set once the run has answered. */
  result?: Attribution;
}

export const DEFAULT_CONTEXT_WINDOW = 272_000;
/** The paper's compression threshold and summarisation cap, in tokens. */
export const PAPER_COMPRESS_AT = 272_000;
export const PAPER_COMPRESS_CAP = 1_000_000;
export const MAX_STEPS = 200;
export const MAX_BAD_REPLIES = 3;
export const KEEP_RECENT = 3;

export interface Budgets {
  preset: AgentPreset;
  maxSteps: number;
  temperature: number;
  window: number;
  compressAt: number;
  compressCap: number;
  pageChars: number;
  windowChars: number;
  systemPriors: boolean;
  mode: 'auto' | 'json' | 'tool';
  obsTies: 'op_id' | 'file';
}

/** The budgets of a run: the preset's values, with any field of `o` overriding them. */
export function budgetsOf(model: ChatModel, o: AgentOptions = {}): Budgets {
  const preset = o.preset ?? 'paper';
  if (!AGENT_PRESETS.includes(preset)) throw new RangeError(`unknown agent preset "${preset}"`);
  const window = o.contextWindow ?? model.capabilities.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  // ~4 characters per token; one view may take at most ~30 % of the window.
  const viewChars = Math.max(4_000, Math.floor(window * 4 * 0.3));
  const scaled = preset === 'window-scaled';
  return {
    preset,
    maxSteps: o.maxSteps ?? MAX_STEPS,
    temperature: o.temperature ?? 1.0,
    window,
    compressAt: o.compressAt ?? (scaled ? Math.floor(window * 0.8) : PAPER_COMPRESS_AT),
    compressCap:
      o.compressCap ?? (scaled ? Math.min(PAPER_COMPRESS_CAP, Math.floor(window * 0.9)) : PAPER_COMPRESS_CAP),
    pageChars: o.pageChars ?? (scaled ? Math.min(128_000, viewChars) : 128_000),
    windowChars: o.windowChars ?? (scaled ? Math.min(32_000, viewChars) : 32_000),
    systemPriors: o.systemPriors ?? true,
    mode: o.mode ?? 'auto',
    obsTies: o.obsTies ?? (scaled ? 'file' : 'op_id'),
  };
}

export const finalAnswerAction = {
  description:
    'Finish: name the decisive faulty operation. error_type is one of ExtractionError, UpdateError, DeletionError, RetrievalError, ResponseError; op_id is an op_id shown to you.',
  args: z.object({
    error_type: z.string().describe(`one of ${ERROR_TYPES.join(', ')}`),
    op_id: z.string(),
    reason: z.string(),
  }),
} satisfies ActionSpec;

export type FinalArgs = z.infer<typeof finalAnswerAction.args>;

/** What an agent's tools did with one action. */
export interface Observation {
  text: string;
  /** Op ids shown in full by this observation. */
  shown?: string[];
}

export interface AgentEnv {
  method: AgentMethod;
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
export function checkFinal(g: TraceGraph, a: FinalArgs): string | null {
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

const tokenCache = new WeakMap<ChatMessage, number>();

/** Estimated tokens of one message (cached per message object: histories are re-sent every step). */
export function messageTokens(m: ChatMessage): number {
  let n = tokenCache.get(m);
  if (n === undefined) {
    n = 4 + estimateTokens(m.content);
    if (m.role === 'assistant' && m.toolCalls)
      for (const c of m.toolCalls) n += estimateTokens(c.name) + estimateTokens(c.arguments);
    tokenCache.set(m, n);
  }
  return n;
}

/** Estimated tokens of a conversation (as `estimateMessageTokens`, but incremental). */
export function conversationTokens(messages: readonly ChatMessage[]): number {
  let n = 3;
  for (const m of messages) n += messageTokens(m);
  return n;
}

/** Adds what calls cost to the run's usage (every request that reached the endpoint). */
function charge(u: AgentUsage, s: Spent) {
  u.input_tokens += s.inputTokens;
  u.output_tokens += s.outputTokens;
  u.llm_calls += s.calls;
  u.estimated ||= s.estimated;
}

/** The run's usage so far as a `Spent` (noted on an error that ends the run). */
function spentSoFar(u: AgentUsage): Spent {
  return {
    calls: u.llm_calls,
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    estimated: u.estimated,
  };
}

function render(m: ChatMessage): string {
  if (m.role === 'assistant') {
    const calls = (m.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`).join(' ');
    return `ASSISTANT: ${m.content}${calls ? ` ${calls}` : ''}`;
  }
  return `${m.role.toUpperCase()}: ${m.content}`;
}

/** The history to summarise as text, at most `capTokens` (~4 chars each): the oldest part is cut first. */
export function transcriptOf(messages: ChatMessage[], capTokens: number): string {
  const text = messages.map(render).join('\n\n');
  const maxChars = capTokens * 4;
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.1);
  return `${text.slice(0, head)}\n[… ${text.length - maxChars} characters omitted …]\n${text.slice(text.length - (maxChars - head))}`;
}

const SUMMARY_SYSTEM =
  'You compress the working memory of an agent that attributes an error in an LLM memory system. Summarise the exploration so far so the agent can continue without the full history: which variables and operations were inspected (keep their exact ids), what each showed, which operations were judged correct and why, open suspicions, and what to check next. Be factual and keep every id exactly.';

interface RunArgs {
  input: AttributionInput;
  model: ChatModel;
  env: AgentEnv;
  cp: AgentCheckpoint;
  budgets: Budgets;
  hooks: RunHooks;
  /** Candidates to report after the answer (prior mode). */
  extraCandidates?: Candidate[];
}

function nowSeconds() {
  return Date.now() / 1000;
}

/** Summarise all but the most recent messages when the conversation is over the threshold. */
async function maybeCompress(a: RunArgs, tick: () => void): Promise<boolean> {
  const { cp, budgets, model, hooks } = a;
  if (conversationTokens(cp.messages) <= budgets.compressAt) return false;
  const [system, ...conv] = cp.messages;
  let keepFrom = Math.max(0, conv.length - KEEP_RECENT);
  while (keepFrom > 0 && conv[keepFrom].role === 'tool') keepFrom--;
  if (keepFrom <= 1) return false; // nothing worth summarising
  const old = conv.slice(0, keepFrom);
  const keep = conv.slice(keepFrom);
  let res: ChatResponse;
  try {
    res = await model.complete({
      messages: [
        { role: 'system', content: SUMMARY_SYSTEM },
        { role: 'user', content: `History to summarise:\n\n${transcriptOf(old, budgets.compressCap)}` },
      ],
      temperature: budgets.temperature,
      signal: hooks.signal,
    });
  } catch (e) {
    charge(cp.usage, spentOfError(e));
    throw e;
  }
  charge(cp.usage, spentOfResponse(res));
  cp.compressions++;
  const summary = `${a.env.caseText}\n\n# Summary of the exploration so far (history compressed ${cp.compressions}×)\n${res.text}`;
  const first = keep[0];
  cp.messages =
    first.role === 'user'
      ? [system, { role: 'user', content: `${summary}\n\n---\n${first.content}` }, ...keep.slice(1)]
      : [system, { role: 'user', content: summary }, ...keep];
  tick();
  hooks.onEvent?.({ type: 'step', step: cp.step, note: `context compressed (${cp.compressions})` });
  return true;
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
  const { input, model, env, cp, budgets, hooks } = a;
  const g = input.graph;
  if (cp.result) return cp.result;
  let mark = nowSeconds();
  const tick = () => {
    const t = nowSeconds();
    cp.usage.seconds += t - mark;
    mark = t;
  };
  const emitTokens = () =>
    hooks.onEvent?.({
      type: 'tokens',
      input_tokens: cp.usage.input_tokens,
      output_tokens: cp.usage.output_tokens,
    });
  const checkpoint = () => {
    if (hooks.onEvent) hooks.onEvent({ type: 'checkpoint', checkpoint: structuredClone(cp) });
  };
  const done = (r: Attribution) => {
    cp.result = r;
    checkpoint();
    hooks.onEvent?.({ type: 'done', result: r });
    return r;
  };

  while (cp.step < budgets.maxSteps) {
    throwIfAborted(hooks.signal);
    if (await maybeCompress(a, tick)) emitTokens();
    throwIfAborted(hooks.signal);
    const last = cp.step === budgets.maxSteps - 1;
    const actions = last ? { final_answer: finalAnswerAction } : env.actions;
    const messages = last
      ? [
          ...cp.messages,
          { role: 'user' as const, content: 'The iteration budget is used up. Give your final answer now.' },
        ]
      : cp.messages;
    let chosen: { action: string; args: unknown };
    let toolCallId: string | undefined;
    try {
      const r = await completeAction(
        model,
        { messages, temperature: budgets.temperature, signal: hooks.signal },
        actions,
        { mode: budgets.mode },
      );
      charge(cp.usage, { calls: r.calls, ...r.usage });
      chosen = r.value as { action: string; args: unknown };
      toolCallId = r.response.toolCalls?.[0]?.id;
    } catch (e) {
      charge(cp.usage, spentOfError(e)); // the replies that could not be used cost too
      if (!(e instanceof LlmError) || e.kind !== 'invalid-output') throw e;
      throwIfAborted(hooks.signal);
      cp.step++;
      cp.bad_replies++;
      tick();
      hooks.onEvent?.({ type: 'step', step: cp.step, note: 'the reply was no valid action' });
      if (cp.bad_replies >= MAX_BAD_REPLIES)
        return done(
          finish(a, cp, {
            error_type: null,
            op_id: null,
            reason: `The model gave no valid action ${cp.bad_replies} times in a row: ${e.message}`,
          }),
        );
      cp.messages.push({
        role: 'user',
        content: `Your reply was not a valid action (${e.message}). Choose one action.\n${env.status(cp)}`,
      });
      checkpoint();
      continue;
    }
    cp.step++;
    cp.bad_replies = 0;
    emitTokens();
    if (chosen.action === 'final_answer') {
      const f = chosen.args as FinalArgs;
      const problem = checkFinal(g, f);
      if (!problem) {
        tick();
        hooks.onEvent?.({ type: 'step', step: cp.step, note: `final answer: ${f.error_type} at ${f.op_id}` });
        return done(
          finish(a, cp, { error_type: f.error_type as ErrorType, op_id: f.op_id, reason: f.reason }),
        );
      }
      cp.invalid_answers++;
      pushTurn(cp, chosen, toolCallId, `Refused: ${problem}\n${env.status(cp)}`);
      tick();
      hooks.onEvent?.({ type: 'step', step: cp.step, note: `final answer refused (${cp.invalid_answers})` });
      checkpoint();
      continue;
    }
    const obs = env.execute(chosen, cp);
    for (const op of obs.shown ?? []) if (!cp.shown_ops.includes(op)) cp.shown_ops.push(op);
    pushTurn(cp, chosen, toolCallId, `${obs.text}\n\n${env.status(cp)}`);
    tick();
    hooks.onEvent?.({
      type: 'step',
      step: cp.step,
      note: `${chosen.action} ${JSON.stringify(chosen.args)}`.slice(0, 200),
    });
    checkpoint();
  }
  return done(
    finish(a, cp, {
      error_type: null,
      op_id: null,
      reason: `No final answer within ${budgets.maxSteps} iterations.`,
    }),
  );
}

export function newCheckpoint(
  method: AgentMethod,
  queryId: string,
  prior: boolean,
  messages: ChatMessage[],
): AgentCheckpoint {
  return {
    version: 1,
    method,
    query_id: queryId,
    prior,
    step: 0,
    messages,
    usage: { input_tokens: 0, output_tokens: 0, llm_calls: 0, seconds: 0, estimated: false },
    compressions: 0,
    invalid_answers: 0,
    bad_replies: 0,
    shown_ops: [],
  };
}

/** A checkpoint fit to resume this run, or an explanation why not. */
export function checkResume(cp: AgentCheckpoint, method: AgentMethod, queryId: string): AgentCheckpoint {
  if (cp.version !== 1 || cp.method !== method || cp.query_id !== queryId)
    throw new Error(
      `cannot resume: the checkpoint is of ${cp.method} on ${cp.query_id}, not ${method} on ${queryId}`,
    );
  return structuredClone(cp);
}
