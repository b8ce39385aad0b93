/**
 * Attribution: which operation caused a failed case — the evidence-flow attributor, the stage
 * walk, the MemTrace / MemTrace-OBS agents, judge fits and calibration.
 */

export {
  AGENT_PRESETS,
  type AgentOptions,
  AgentStoppedError,
  addToFrontier,
  attributeMemTrace,
  attributeObs,
  budgetsOf,
  finishCurrent,
  GREP_MAX,
  initialFrontier,
  isAgentStopped,
  MAX_BAD_REPLIES,
  MAX_FRONTIER,
  memtraceOracle,
  obsLogOf,
  obsOracle,
  removeFromFrontier,
  SYSTEM_PRIORS,
  systemPrior,
} from './agents/index.ts';
export {
  type AnswerRule,
  type AnswerRuleFit,
  accepts,
  describeAnswerRule,
  MIN_VERDICTS,
} from './answer-rule.ts';
export {
  type CalibrationTable,
  calibrationKey,
  calibrationKeys,
  confidenceFrom,
  PRIOR_WEIGHT,
  SCORE_BANDS,
  UNCERTAIN_BELOW,
} from './calibration.ts';
export { CALIBRATION } from './calibration-table.ts';
export { type CarryJudge, llmCarryJudge, sentenceModelJudge } from './carry-judge.ts';
export { caseContext, isPrompt } from './case-context.ts';
export { answerFeatures, criticalInfo, judgeText, withOthers } from './critical.ts';
export type { EngineDeps } from './engine-deps.ts';
export { engineFor, evidenceFlowEngine } from './engines.ts';
export {
  attributeEvidenceFlow,
  type EvidenceFlowOptions,
  evidenceChangedLater,
  STORE_LOSS_TYPES,
} from './evidence-flow.ts';
export { evidenceText, readingWindows, splitUnits } from './evidence-match.ts';
export {
  adoptJudgeFit,
  type JudgeFitSetup,
  JudgePool,
  judgedSample,
  judgeFitMatching,
  judgeFitOf,
  judgeFitSteps,
  judgeIdentity,
  traceJudgeFit,
} from './judge-fit.ts';
export { profileOf } from './profiles.ts';
export {
  DEFAULT_STAGE_SETTINGS,
  FLOW_RULES,
  STAGE_RULES,
  type StageRuleId,
  type StageSettings,
} from './rules.ts';
export { STAGE_VOTES } from './stage-judge.ts';
export {
  type AgentCheckpoint,
  type AgentMethod,
  type AnswerRuleUsed,
  ATTRIBUTION_METHODS,
  type Attribution,
  type AttributionEvent,
  type AttributionInput,
  type AttributionMethod,
  DEFAULT_MATCH_LAYER,
  effectiveMatchLayer,
  MATCH_LAYERS,
  type MatchLayer,
  NEEDS_MODEL,
  type NotAttributable,
  type PathStep,
  type QuotedUnit,
  type SupportStep,
  type VerdictEvidence,
} from './types.ts';
export { ATTRIBUTOR_VERSION } from './version.ts';
export { attributeStageWalk } from './walk-engine.ts';
