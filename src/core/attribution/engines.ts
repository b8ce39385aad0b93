/**
 * One interface over every attribution engine, so the CLI, the bench runner and
 * the engine worker call them alike. Engines that need a model get it here.
 */
import { attributeMemTrace } from './agents/memtrace.ts';
import { attributeObs } from './agents/obs.ts';
import type { AttributionEngine, EngineDeps } from './engine-deps.ts';
import { startPointLocator } from './locate.ts';
import type { AttributionInput, AttributionMethod, RunHooks } from './types.ts';
import { attributeStageWalk } from './walk-engine.ts';

export type { AttributionEngine, EngineDeps } from './engine-deps.ts';

/** The deterministic attributor (the stage walk) as an engine (start points from `deps.index` when given). */
export function evidenceFlowEngine(input: AttributionInput, deps: EngineDeps, hooks: RunHooks = {}) {
  const locateEvidence = deps.index
    ? startPointLocator({
        index: deps.index,
        embedder: deps.embedder,
        layer: deps.evidenceFlow?.layer,
        similar: deps.evidenceFlow?.similar,
      })
    : undefined;
  return attributeStageWalk(input, { locateEvidence, now: deps.now, ...deps.evidenceFlow }, hooks);
}

/** Engines by method name. */
export const ENGINES: Partial<Record<AttributionMethod, AttributionEngine>> = {
  evidence: evidenceFlowEngine,
  memtrace: attributeMemTrace,
  obs: attributeObs,
};

/** The engine of a method; throws for a method no engine implements. */
export function engineFor(method: AttributionMethod): AttributionEngine {
  const engine = ENGINES[method];
  if (!engine) throw new Error(`attribution method "${method}" is not available`);
  return engine;
}
