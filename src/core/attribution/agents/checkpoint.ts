/**
 * Resume: a run's whole state is a plain JSON checkpoint (`AgentCheckpoint`, in
 * `../types.ts` with the events that carry it). This module starts one, checks one handed
 * back for resuming, and keeps its usage counts.
 */
import type { ChatMessage, Spent } from '../../llm/index.ts';
import type { AgentCheckpoint, AgentMethod, AgentUsage } from '../types.ts';

/** A fresh checkpoint: step 0, nothing spent. */
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

/** Adds what calls cost to the run's usage (every request that reached the endpoint). */
export function charge(u: AgentUsage, s: Spent) {
  u.input_tokens += s.inputTokens;
  u.output_tokens += s.outputTokens;
  u.llm_calls += s.calls;
  u.estimated ||= s.estimated;
}

/** The run's usage so far as a `Spent` (noted on an error that ends the run). */
export function spentSoFar(u: AgentUsage): Spent {
  return {
    calls: u.llm_calls,
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    estimated: u.estimated,
  };
}
