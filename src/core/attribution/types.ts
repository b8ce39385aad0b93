/** The one result shape every attribution engine returns, and the events it reports while it works. */
import type { TraceCase } from '../cases/cases.ts';
import type { TraceGraph } from '../graph/graph.ts';
import type { ErrorType } from '../trace/types.ts';
import type { AgentCheckpoint } from './agents/runtime.ts';

export type AttributionMethod = 'evidence' | 'memtrace' | 'obs';

export interface PathStep {
  op_id?: string;
  var_id?: string;
  note: string;
}

export interface Candidate {
  op_id: string;
  error_type: ErrorType;
  /** Higher is more likely; comparable within one result. */
  score: number;
  reason: string;
}

export interface AttributionCost {
  input_tokens: number;
  output_tokens: number;
  seconds: number;
  llm_calls: number;
}

export interface Attribution {
  query_id: string;
  method: AttributionMethod;
  /** null: no decisive memory error found (e.g. the prediction looks acceptable). */
  error_type: ErrorType | null;
  op_id: string | null;
  reason: string;
  /** How the evidence travelled, up to where it was lost. */
  path: PathStep[];
  /** Ranked candidate ops (the first is the answer); agents in prior mode start here. */
  candidates: Candidate[];
  cost: AttributionCost;
  /** Agents: the budget preset the run used (`agents/runtime.ts` AGENT_PRESETS). */
  preset?: 'paper' | 'window-scaled';
}

export type AttributionEvent =
  | { type: 'step'; step: number; note: string }
  | { type: 'explore'; var_id: string }
  | { type: 'frontier'; var_ids: string[] }
  | { type: 'tokens'; input_tokens: number; output_tokens: number }
  | { type: 'done'; result: Attribution }
  /** Agents: the whole run state after every step (plain JSON); pass it back as `RunHooks.resume`. */
  | { type: 'checkpoint'; checkpoint: AgentCheckpoint };

export interface RunHooks {
  signal?: AbortSignal;
  onEvent?: (e: AttributionEvent) => void;
  /** Agents: continue the run this checkpoint was taken from (same method and case). */
  resume?: AgentCheckpoint;
}

export interface AttributionInput {
  graph: TraceGraph;
  case: TraceCase;
  /** Memory system kind (rag, mem0, evermemos, long_context, …) when known. */
  system?: string | null;
}

export const ZERO_COST: AttributionCost = { input_tokens: 0, output_tokens: 0, seconds: 0, llm_calls: 0 };

export function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError');
}
