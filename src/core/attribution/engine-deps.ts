/**
 * What an attribution engine may use, and the engine shape itself: a leaf module, so the
 * engines (evidence-flow, the agents) and the table of engines (`engines.ts`) all import it
 * without importing each other.
 */
import type { ChatModel } from '../llm/index.ts';
import type { Embedder, RetrievalIndex } from '../retrieval/index.ts';
import type { AgentOptions } from './agents/budgets.ts';
import type { EvidenceFlowOptions } from './evidence-flow.ts';
import type { Attribution, AttributionInput, RunHooks } from './types.ts';

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
  /**
   * A clock in milliseconds (only differences count), for every engine's `cost.seconds`:
   * core never reads the clock itself, the CLI and the workers pass the real one. None: 0 s.
   * `evidenceFlow.now`, when set, wins for evidence-flow.
   */
  now?: () => number;
}

/** Every engine: one case of one graph in, one attribution out. */
export type AttributionEngine = (
  input: AttributionInput,
  deps: EngineDeps,
  hooks?: RunHooks,
) => Promise<Attribution>;
