/**
 * The light face of core/attribution: the names the app's start chunk needs, without the
 * attributors (whose NLP libraries would load with them; tests/e2e/bundle-size.test.ts).
 */

export { MAX_STEPS } from './agents/budgets.ts';
export { ruleTest } from './rules.ts';
export { AGENT_METHODS, type AgentMethod } from './types.ts';
export { ATTRIBUTOR_VERSION } from './version.ts';
