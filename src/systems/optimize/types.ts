/** Shapes of the closed prompt-optimisation loop: options, rounds, the resumable state. */
import type { AttributionMethod } from '../../core/attribution/index.ts';
import type { ChatModel, UsageTotals } from '../../core/llm/index.ts';
import type { PromptRegistry } from '../prompts.ts';
import type { Conversation } from '../types.ts';

/** The models per role (the paper: QA GPT-4.1-mini, judge Claude Opus 4.5, attribution and optimiser GPT-5.4). */
export interface RoleModels {
  /** The memory system's own model (extraction, updates, answers). */
  qa: ChatModel;
  judge: ChatModel;
  /** Writes feedback, aggregates it and rewrites prompts. */
  optimizer: ChatModel;
  /** Only for the agent attribution methods (memtrace, obs). */
  attribution?: ChatModel;
}

export type Role = keyof RoleModels;
export const ROLES: readonly Role[] = ['qa', 'judge', 'attribution', 'optimizer'];

export interface Budget {
  /** Tokens (input + output, every role) for the whole run; the loop stops before the call that would start past it. */
  maxTokens?: number;
  /** Tokens per round. */
  maxRoundTokens?: number;
}

export interface OptimizeOptions {
  /** Conversations whose failures give the feedback; round r uses train[(r − 1) mod n]. */
  train: Conversation[];
  /** Conversations never used for feedback: the acceptance test. */
  heldOut: Conversation[];
  rounds: number;
  /** Questions sampled per training conversation (all when unset). */
  trainQuestions?: number;
  /** Questions sampled per held-out conversation (all when unset). */
  heldOutQuestions?: number;
  /** Feed only the first N sessions (questions whose evidence lies later are not sampled). */
  maxSessions?: number;
  /** Prompt names the loop may rewrite (default: every prompt of the target). */
  prompts?: string[];
  /** Attribution engine for the failures (default evidence: no model). */
  method?: AttributionMethod;
  /** Feedback items per aggregation call (the paper's 8). */
  aggregationBatch?: number;
  budget?: Budget;
  seed?: number;
  models: RoleModels;
  signal?: AbortSignal;
}

/** One question's verdict before and after the candidate prompts. */
export interface PairedOutcome {
  conversation: string;
  question_id: string;
  question: string;
  before: boolean;
  after: boolean;
}

export interface Score {
  correct: number;
  total: number;
  /** correct / total (0 when no question). */
  score: number;
}

export interface PromptChange {
  prompt: string;
  /** The paper's key (`fact-extraction-system-prompt@1`). */
  prompt_id: string;
  before: string;
  after: string;
  /** Line diff (`  ` same, `- ` removed, `+ ` added). */
  diff: string[];
  /** Failures whose feedback went into the rewrite. */
  failures: number;
  feedback: string[];
  aggregated_feedback: string;
}

export interface RoundAttribution {
  query_id: string;
  error_type: string | null;
  op_id: string | null;
  op_name: string | null;
  prompt: string | null;
  reason: string;
}

export type RoundDecision = 'accepted' | 'rejected' | 'skipped' | 'stopped';

export interface RoundRecord {
  round: number;
  conversation: string;
  decision: RoundDecision;
  /** Why, in words (the numbers that decided it). */
  reason: string;
  prompts_before: PromptRegistry;
  prompts_after: PromptRegistry;
  changes: PromptChange[];
  /** Rewrites dropped before the test (e.g. a placeholder lost), with why. */
  invalid_rewrites: { prompt: string; reason: string }[];
  failures: number;
  attributions: RoundAttribution[];
  /** Failures no prompt explains, and failures of prompts the run may not change. */
  not_optimisable: number;
  not_allowed: number;
  train_before: Score;
  train_after: Score | null;
  held_out_before: Score;
  held_out_after: Score | null;
  /** Questions whose verdict changed with the candidate prompts. */
  flipped: { train: PairedOutcome[]; held_out: PairedOutcome[] };
  paired: { train: PairedOutcome[]; held_out: PairedOutcome[] };
  cost: Record<string, UsageTotals>;
  seconds: number;
}

export interface OptimizeState {
  version: 1;
  target: string;
  status: 'running' | 'done' | 'budget' | 'cancelled' | 'failed';
  message: string;
  /** The prompts in force (accepted rewrites applied). */
  prompts: PromptRegistry;
  allowed: string[];
  /** The held-out score of the prompts in force, per question. */
  held_out: { score: Score; outcomes: PairedOutcome[] } | null;
  rounds: RoundRecord[];
  /** Cost of the held-out baseline run (before round 1). */
  baseline_cost: Record<string, UsageTotals>;
  tokens_used: number;
  options: {
    rounds: number;
    train: string[];
    held_out: string[];
    train_questions: number | null;
    held_out_questions: number | null;
    max_sessions: number | null;
    method: AttributionMethod;
    seed: number;
    budget: Budget;
  };
}

/** Where the loop keeps its state (a folder in the CLI, IndexedDB in the app). */
export interface OptimizeStore {
  load(): Promise<OptimizeState | null>;
  save(state: OptimizeState): Promise<void>;
}
