/** The attribution agents (MemTrace, MemTrace-OBS): budgets, frontier, oracles, priors, the agent loop. */

export { AGENT_PRESETS, type AgentOptions, budgetsOf } from './budgets.ts';
export {
  addToFrontier,
  finishCurrent,
  initialFrontier,
  MAX_FRONTIER,
  removeFromFrontier,
} from './frontier.ts';
export { attributeMemTrace } from './memtrace.ts';
export { attributeObs, GREP_MAX, obsLogOf } from './obs.ts';
export { memtraceOracle, obsOracle } from './oracle.ts';
export { SYSTEM_PRIORS, systemPrior } from './prompts.ts';
export { MAX_BAD_REPLIES } from './runtime.ts';
export { AgentStoppedError, isAgentStopped } from './stopped.ts';
