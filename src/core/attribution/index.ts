export * from './agents/index.ts';
export { type AnswerRuleFit, accepts, describeAnswerRule, MIN_VERDICTS } from './answer-rule.ts';
export {
  type CalibrationTable,
  calibrationKey,
  calibrationKeys,
  confidenceFrom,
  confidenceOf,
  PRIOR_WEIGHT,
  SCORE_BANDS,
  UNCERTAIN_BELOW,
} from './calibration.ts';
export { CALIBRATION } from './calibration-table.ts';
export { type CarryJudge, llmCarryJudge, sentenceModelJudge } from './carry-judge.ts';
export * from './case-context.ts';
export { answerFeatures, criticalInfo, judgeText, withOthers } from './critical.ts';
export * from './engines.ts';
export * from './evidence-flow.ts';
export * from './evidence-match.ts';
export { noGoldenAnswer } from './golden.ts';
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
export * from './locate.ts';
export { type DataProfile, profileOf } from './profiles.ts';
export {
  DEFAULT_STAGE_SETTINGS,
  ruleTest,
  STAGE_RULES,
  type StageRule,
  type StageRuleId,
  type StageSettings,
} from './rules.ts';
export { STAGE_VOTES } from './stage-judge.ts';
export * from './types.ts';
export { ATTRIBUTOR_VERSION } from './version.ts';
export * from './walk-engine.ts';
