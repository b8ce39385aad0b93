/**
 * How an agent method starts or resumes a run (MemTrace, MemTrace-OBS): resume from
 * `hooks.resume`, or start a checkpoint — prior candidates in prior mode, the method's
 * first message after its system prompt, a first checkpoint event — then the agent loop.
 */
import type { EngineDeps } from '../engine-deps.ts';
import type {
  AgentCheckpoint,
  AgentMethod,
  Attribution,
  AttributionInput,
  Candidate,
  RunHooks,
} from '../types.ts';
import { type Budgets, budgetsOf } from './budgets.ts';
import { checkResume, newCheckpoint } from './checkpoint.ts';
import { priorCandidates } from './prior.ts';
import { caseText } from './prompts.ts';
import { type AgentEnv, runAgent } from './runtime.ts';

interface AgentSetup {
  /** The method's environment (system prompt, actions, status line). */
  env(b: Budgets, text: string): AgentEnv;
  /**
   * Fills a new checkpoint (frontier, shown ops, prior candidates) and returns the first
   * user message; its status line is appended.
   */
  begin(cp: AgentCheckpoint, prior: Candidate[], b: Budgets, text: string): Promise<string> | string;
}

export async function startAgent(
  method: AgentMethod,
  input: AttributionInput,
  deps: EngineDeps,
  hooks: RunHooks,
  setup: AgentSetup,
): Promise<Attribution> {
  const model = deps.model;
  if (!model) throw new Error(`the ${method} method needs a chat model`);
  const b = budgetsOf(model, deps.agent);
  const text = caseText(input.case, input.system, b.systemPriors);
  const env = setup.env(b, text);
  let cp: AgentCheckpoint;
  if (hooks.resume) cp = checkResume(hooks.resume, method, input.case.queryId);
  else {
    const prior = deps.prior ? await priorCandidates(input, deps, hooks) : [];
    cp = newCheckpoint(method, input.case.queryId, prior.length > 0, []);
    const first = await setup.begin(cp, prior, b, text);
    cp.messages = [
      { role: 'system', content: env.system },
      { role: 'user', content: `${first}\n\n${env.status(cp)}` },
    ];
    if (hooks.onEvent) hooks.onEvent({ type: 'checkpoint', checkpoint: structuredClone(cp) });
  }
  return runAgent({
    input,
    model,
    env,
    cp,
    budgets: b,
    hooks,
    extraCandidates: cp.prior_candidates,
    now: deps.now,
  });
}
