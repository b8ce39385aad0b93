/**
 * The one result shape every attribution engine returns, the events it reports while it
 * works, and the agents' checkpoint those events carry (a checkpoint holds the result and
 * an event holds the checkpoint, so they live in one leaf module).
 */
import type { TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import type { ChatMessage } from '../llm/index.ts';
import type { ErrorType } from '../trace/index.ts';
import type { AgentPreset } from './agents/budgets.ts';

/** The attribution engines: deterministic evidence flow and the two LLM agents. */
export type AttributionMethod = 'evidence' | 'memtrace' | 'obs';

/** One step of an attribution's path: an op or variable and what happened there. */
export interface PathStep {
  op_id?: string;
  var_id?: string;
  note: string;
}

/** An op an engine suspects, with the error type it would be and why. */
export interface Candidate {
  op_id: string;
  error_type: ErrorType;
  /** Higher is more likely; comparable within one result. */
  score: number;
  reason: string;
}

/** What one attribution spent: model tokens and calls, and wall-clock seconds. */
export interface AttributionCost {
  input_tokens: number;
  output_tokens: number;
  seconds: number;
  llm_calls: number;
}

/**
 * An engine's verdict on one failed case: the error type and decisive op (or null), why, the path, ranked
 * candidates and the cost.
 */
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
  /** Agents: the budget preset the run used. */
  preset?: AgentPreset;
  /** Why the case cannot be traced (then `error_type` and `op_id` are null); absent or null otherwise. */
  not_attributable?: NotAttributable | null;
  /** Evidence-flow: the test of "this text gives the answer" it applied, and where it came from. */
  answer_rule?: AnswerRuleUsed;
  /**
   * Evidence-flow: the rule accepts the prediction although the trace's judge rejected it — a
   * candidate judge error (the attribution still names where the memory lost the answer, if it did).
   */
  judge_disagrees?: boolean;
  /** Evidence-flow: how much of the answer each op on the evidence's way conveyed, before and after it. */
  support?: SupportStep[];
  /** Evidence-flow: the texts the verdict rests on. */
  verdict_evidence?: VerdictEvidence | null;
  /**
   * Evidence-flow: how sure the verdict is, 0–1 — how well the carrying test reproduces the trace's
   * judge, how clearly the answer was lost at the op (support before and after), and whether other
   * ops were suspected too, calibrated on development data (calibration.ts): verdicts at 0.8 were
   * right about 80 % of the time there.
   */
  confidence?: number;
  /** Evidence: the calibration keys `confidence` was read from, coarse to fine (calibration.ts). */
  calibration_keys?: string[];
  /** Evidence: the ids of the decision rules that fired (`STAGE_RULES`), in the order they applied. */
  rules?: string[];
  /** Evidence: the confidence is below `UNCERTAIN_BELOW`; `candidates` holds the two leading verdicts. */
  uncertain?: boolean;
  /** The attributor (and its version) that made the verdict; a stored verdict of another version is stale. */
  attributor_version?: string;
}

/** A unit quoted as the ground of a verdict, with the words of the answer (or the question) it matched. */
export interface QuotedUnit {
  var_id: string;
  text: string;
  matched: string[];
  /** How much of the answer it conveys, 0–1 (see `SupportStep`). */
  support: number;
}

/** The last text that still held the answer, and what came after it (a later version, an output, the context). */
export interface VerdictEvidence {
  held: QuotedUnit | null;
  after: QuotedUnit | null;
}

/** Why a failed case has no decisive op: the trace cannot say where the answer was lost. */
export type NotAttributableReason =
  /** The golden answer is empty or says the conversation does not answer it (adversarial questions). */
  | 'no-golden-answer'
  /** The answer is only in an image the conversation shared (its caption), not in any text. */
  | 'answer-in-image'
  /** No evidence message states the answer: it has to be inferred, and no memory holds it. */
  | 'inferred'
  /** No evidence could be located. */
  | 'no-evidence'
  /** The question names its evidence, but none of it is in the trace (a run shorter than the conversation). */
  | 'evidence-not-in-trace'
  /** No op wrote the prediction. */
  | 'no-answer-op';

/** A case that cannot be traced, and why (one sentence for people). */
export interface NotAttributable {
  reason: NotAttributableReason;
  detail: string;
}

/** The carrying test an evidence-flow result used (`answer-rule.ts`). */
export interface AnswerRuleUsed {
  /**
   * `fitted` from the trace's verdicts; `pooled`: fitted from the verdicts of the same judge in
   * the traces opened with it (`JudgePool`), the trace's own being too few; the documented
   * `prior`; or `given` by the caller.
   */
  source: 'fitted' | 'pooled' | 'prior' | 'given';
  description: string;
  /** Share of the trace's verdicts the rule reproduces (null: no verdicts, or given). */
  agreement: number | null;
  passed: number;
  failed: number;
}

/** One op on the evidence's way to the answer: the best support (0–1) among what it read and what it wrote. */
export interface SupportStep {
  op_id: string;
  before: number;
  after: number;
}

/** The LLM agents (the paper's MemTrace and MemTrace-OBS). */
export type AgentMethod = 'memtrace' | 'obs';

/** What an agent run has spent so far. */
export interface AgentUsage {
  input_tokens: number;
  output_tokens: number;
  llm_calls: number;
  seconds: number;
  /** Some counts were estimated from text (the provider reported none). */
  estimated: boolean;
}

/** The MemTrace agent's to-explore list (`agents/frontier.ts`). */
export interface FrontierState {
  /** The variable being explored (full_node_id), or null. */
  current: string | null;
  /** The to-explore list, earliest first, without the current one. */
  list: string[];
  /** Variables whose exploration was finished, in order. */
  explored: string[];
}

/** Everything an agent run needs to continue: a plain JSON object. */
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

/** What an engine reports while it works (`RunHooks.onEvent`). */
export type AttributionEvent =
  | { type: 'step'; step: number; note: string }
  | { type: 'explore'; var_id: string }
  | { type: 'frontier'; var_ids: string[] }
  | { type: 'tokens'; input_tokens: number; output_tokens: number }
  | { type: 'done'; result: Attribution }
  /** Agents: the whole run state after every step (plain JSON); pass it back as `RunHooks.resume`. */
  | { type: 'checkpoint'; checkpoint: AgentCheckpoint };

/**
 * What a caller passes to an engine run: an abort signal, an event listener, and an agent checkpoint to
 * resume from.
 */
export interface RunHooks {
  signal?: AbortSignal;
  onEvent?: (e: AttributionEvent) => void;
  /** Agents: continue the run this checkpoint was taken from (same method and case). */
  resume?: AgentCheckpoint;
}

/** One case to attribute: the graph, the case and, when known, the memory system kind. */
export interface AttributionInput {
  graph: TraceGraph;
  case: TraceCase;
  /** Memory system kind (rag, mem0, evermemos, long_context, …) when known. */
  system?: string | null;
}

/** A cost with nothing spent; copy it before adding to it. */
export const ZERO_COST: AttributionCost = { input_tokens: 0, output_tokens: 0, seconds: 0, llm_calls: 0 };

/** Throws the signal's reason (or an `AbortError`) once it is aborted; engines call it between steps. */
export function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError');
}

/** The LLM agents, in the order the CLI and the app offer them. */
export const AGENT_METHODS: readonly AgentMethod[] = ['memtrace', 'obs'];

/** Every attribution method: the deterministic evidence-flow attributor, then the agents. */
export const ATTRIBUTION_METHODS: readonly AttributionMethod[] = ['evidence', ...AGENT_METHODS];

/** Methods that need a chat model. */
export const NEEDS_MODEL: ReadonlySet<AttributionMethod> = new Set(AGENT_METHODS);

/** How evidence-flow compares memory units with the evidence (see evidence-match.ts). */
export type MatchLayer = 'lexical' | 'normalised' | 'vectors';
/** Every match layer, weakest first (for options and CLI choices). */
export const MATCH_LAYERS: readonly MatchLayer[] = ['lexical', 'normalised', 'vectors'];

/** The layer used when none is asked for (CLI `--match`, the app, the core): word vectors. */
export const DEFAULT_MATCH_LAYER: MatchLayer = 'vectors';

/**
 * The layer that runs: the one asked for (else {@link DEFAULT_MATCH_LAYER}), one down to
 * `normalised` when `vectors` is asked for and no word vectors are at hand.
 */
export function effectiveMatchLayer(asked: MatchLayer | undefined, hasVectors: boolean): MatchLayer {
  const layer = asked ?? DEFAULT_MATCH_LAYER;
  return layer === 'vectors' && !hasVectors ? 'normalised' : layer;
}
