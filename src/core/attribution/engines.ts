/**
 * One interface over every attribution engine, so the CLI, the bench runner and
 * the analysis worker call them alike. Engines that need a model get it here.
 */
import type { ChatModel } from '../llm/types.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import type { RetrievalIndex } from '../retrieval/retrieval-index.ts';
import { attributeMemTrace } from './agents/memtrace.ts';
import { attributeObs } from './agents/obs.ts';
import type { AgentOptions } from './agents/runtime.ts';
import { attributeEvidenceFlow, type EvidenceFlowOptions } from './evidence-flow.ts';
import { startPointLocator } from './locate.ts';
import type { Attribution, AttributionInput, AttributionMethod, RunHooks } from './types.ts';

/** What an engine may use, prepared once per graph by the caller. */
export interface EngineDeps {
  /** A messages index of the graph (start points, evidence location). */
  index?: RetrievalIndex;
  embedder?: Embedder | null;
  /** The LLM for agent engines. */
  model?: ChatModel;
  /** Agents start from the evidence-flow attributor's ranked candidates. */
  prior?: boolean;
  evidenceFlow?: EvidenceFlowOptions;
  /** Budgets and knobs of the agent engines (defaults: the paper's). */
  agent?: AgentOptions;
}

export type AttributionEngine = (
  input: AttributionInput,
  deps: EngineDeps,
  hooks?: RunHooks,
) => Promise<Attribution>;

export function evidenceFlowEngine(input: AttributionInput, deps: EngineDeps, hooks: RunHooks = {}) {
  const locateEvidence = deps.index
    ? startPointLocator({
        index: deps.index,
        embedder: deps.embedder,
        layer: deps.evidenceFlow?.layer,
        similar: deps.evidenceFlow?.similar,
      })
    : undefined;
  return attributeEvidenceFlow(input, { locateEvidence, ...deps.evidenceFlow }, hooks);
}

/** Engines by method name. */
export const ENGINES: Partial<Record<AttributionMethod, AttributionEngine>> = {
  evidence: evidenceFlowEngine,
  memtrace: attributeMemTrace,
  obs: attributeObs,
};

export function engineFor(method: AttributionMethod): AttributionEngine {
  const engine = ENGINES[method];
  if (!engine) throw new Error(`attribution method "${method}" is not available`);
  return engine;
}

/** Methods that need a chat model. */
export const NEEDS_MODEL: ReadonlySet<AttributionMethod> = new Set(['memtrace', 'obs']);
