/**
 * Why an agent ended without a verdict. A run that never gave an acceptable final answer
 * is a failed case, not a "no decisive error" result: the caller records `{kind, message}`
 * and exits non-zero. (A leaf module, so the CLI can tell this error apart without loading
 * the agents.)
 */

/** The model gave no valid action several times in a row, or the iteration budget ran out. */
export type AgentStopKind = 'no-valid-action' | 'budget-exhausted';

/** Thrown by an agent run that ended without an accepted final answer; `spent` notes what it cost. */
export class AgentStoppedError extends Error {
  override name = 'AgentStoppedError';
  constructor(
    readonly kind: AgentStopKind,
    message: string,
  ) {
    super(message);
  }
}

/** Whether a thrown value is an `AgentStoppedError`. */
export function isAgentStopped(e: unknown): e is AgentStoppedError {
  return e instanceof AgentStoppedError;
}
