/** The shapes of the system-level error report (`memtrace report --format json`). */
import type { UsageTotals } from '../llm/index.ts';
import type { ErrorType } from '../trace/index.ts';
import type { FeatureFlags, FeatureId } from './features.ts';
import type { VerdictGrounds } from './grounds.ts';

/** A stretch of a stored value, cut around what matters when the value is long. */
export interface ValueExcerpt {
  /** full_node_id of the variable. */
  id: string;
  text: string;
  /** Length of the whole value's text. */
  chars: number;
}

/** One attributed failure with everything the report needs, read once from its graph. */
export interface ReportCase {
  /** Unique within a report: `<trace>#<query_id>` (trace = the file as given, else the graph_id). */
  case_id: string;
  /** The graph's graph_id. */
  trace_id: string;
  /** The graph file as given (CLI), or null (app). */
  file: string | null;
  query_id: string;
  system: string;
  question: string;
  golden_answers: string[];
  prediction: string | null;
  /** The question's category as the trace records it (`metadata.category` of the query), else `unknown`. */
  question_category: string;
  /** null: no decisive memory error was found. */
  error_type: ErrorType | null;
  op_id: string | null;
  /** null when the op is not in the graph. */
  op_name: string | null;
  op_category: string | null;
  /**
   * Full name of the prompt variable (category `prompt`) read by the faulty op, or — for a
   * store write (extraction, update, deletion) — by the op that wrote one of its inputs
   * (`prompt_via: 'upstream'`: the update decision behind a memory update); null: not
   * optimisable by a prompt.
   */
  prompt: string | null;
  /** full_node_id of that prompt (the key of the paper's `update_results.json`). */
  prompt_id: string | null;
  prompt_via: 'op' | 'upstream' | null;
  reason: string;
  /** What the verdict rests on (evidence-flow); null when the attribution carries none. */
  grounds: VerdictGrounds | null;
  /** The attribution method (evidence, memtrace, obs, or the file it came from). */
  method: string;
  /** The case's label, when it has one. */
  label: { error_type: string; op_id: string | null } | null;
  evidence: ValueExcerpt[];
  /** The faulty op's values before (its inputs, the earlier version first) and after (its outputs). */
  before: ValueExcerpt[];
  after: ValueExcerpt[];
  features: FeatureFlags;
  /** Content words in the evidence texts. */
  evidence_words: number;
  /** Sessions between the farthest evidence message and the question (null: the trace does not say). */
  sessions_back: number | null;
}

/** A count and its rate over a denominator, with the 95 % Wilson interval. */
export interface RateCell {
  count: number;
  /** null when the denominator is 0. */
  rate: number | null;
  ci_low: number;
  ci_high: number;
}

/** A count per error type. */
export type ErrorTypeCounts = Record<ErrorType, number>;

/** The failures of one memory system: how many, by error type, and how many had no decisive error. */
export interface SystemRow {
  cases: number;
  by_error_type: ErrorTypeCounts;
  no_decisive_error: number;
}

/** One error type's rate over all cases. */
export interface ErrorTypeRow extends RateCell {
  error_type: ErrorType;
}

/** Failures at one kind of op (name and category), with their rate and error types. */
export interface OpRow extends RateCell {
  op_name: string;
  op_category: string;
  by_error_type: ErrorTypeCounts;
}

/** Failures behind one prompt (or none), with their rate, the prompt's versions seen, and error types. */
export interface PromptRow extends RateCell {
  /** Prompt variable full name; null collects the failures no prompt explains ("not optimisable"). */
  prompt: string | null;
  /** full_node_ids seen for it (a prompt rewritten during a run has several versions). */
  prompt_ids: string[];
  by_error_type: ErrorTypeCounts;
}

/** Failures of one question category, by error type. */
export interface CategoryRow {
  category: string;
  cases: number;
  by_error_type: ErrorTypeCounts;
}

/** One feature × error type: among the cases with the feature, how many have that type. */
export interface FeatureRow {
  feature: FeatureId;
  error_type: ErrorType;
  /** Cases with the feature and this error type. */
  count: number;
  /** count / with_feature (null when no case has the feature). */
  rate: number | null;
  /** rate / (cases of this type / all cases): 3 = three times as frequent with the feature. */
  lift: number | null;
  ci_low: number;
  ci_high: number;
  /** Cases with the feature (the rate's denominator). */
  with_feature: number;
}

/** How many cases have a feature, with its label and defining rule. */
export interface FeaturePrevalence extends RateCell {
  feature: FeatureId;
  label: string;
  rule: string;
}

/** A case shown as an example of a cluster: the question, answers, attribution reason and value excerpts. */
export interface Exemplar {
  case_id: string;
  trace_id: string;
  query_id: string;
  op_id: string | null;
  /** The faulty op's name and kind (absent in reports written before they were added; null: not in the graph). */
  op_name?: string | null;
  op_category?: string | null;
  question: string;
  golden_answers: string[];
  prediction: string | null;
  reason: string;
  /** What the verdict rests on (absent in reports written before it existed). */
  grounds?: VerdictGrounds | null;
  evidence: ValueExcerpt[];
  before: ValueExcerpt[];
  after: ValueExcerpt[];
}

/** Failures of one error type at one kind of op. */
export interface Cluster extends RateCell {
  id: string;
  error_type: ErrorType | null;
  op_name: string | null;
  op_category: string | null;
  /** Most common prompt behind these failures (null: none). */
  prompt: string | null;
  systems: Record<string, number>;
  /** Features more frequent here than overall (in-cluster rate / overall rate), strongest first. */
  features: { feature: FeatureId; count: number; rate: number; lift: number }[];
  exemplars: Exemplar[];
  case_ids: string[];
}

/** A narrative written by a model over the attributed cases (optional). */
export interface Narrative {
  /** Paragraphs: an overview, one per error category, a conclusion; cites cases as `[C12]`. */
  text: string;
  /** Every `[C…]` reference kept in the text, with the case it names. */
  citations: { ref: string; case_id: string }[];
  /** References the model made to cases it was not shown (removed from the text). */
  dropped_citations: string[];
  model: string;
  provider: string;
  batch_size: number;
  batches: number;
  /** Every call, repairs included; cached calls cost no tokens. */
  cost: UsageTotals;
  /** Where the text came from: written now, or read from the paper's error_analysis_report.json. */
  source: 'model' | 'file';
}

/**
 * The system-level error report (`buildReport`): counts and rates by system, error type, op, prompt and
 * question category, feature lifts and prevalence, clusters, every case, and an optional narrative.
 */
export interface ErrorReport {
  /** Number of failed cases in the report. */
  cases: number;
  /** Cases with an error type. */
  attributed: number;
  /** Cases where the attributor found no decisive memory error. */
  no_decisive_error: number;
  /** Attributed cases whose verdict is uncertain (below the confidence threshold), counted apart from the certain ones. */
  uncertain: number;
  by_system: Record<string, SystemRow>;
  by_error_type: ErrorTypeCounts;
  /** The error types' rates over all cases, with intervals. */
  error_type_rates: ErrorTypeRow[];
  by_op: OpRow[];
  by_prompt: PromptRow[];
  by_question_category: CategoryRow[];
  features: FeatureRow[];
  feature_prevalence: FeaturePrevalence[];
  clusters: Cluster[];
  /** Every case (for links and exports). */
  case_list: ReportCase[];
  /** Attribution methods the cases came from, with counts. */
  methods: Record<string, number>;
  generated_at: string;
  narrative?: Narrative;
}
