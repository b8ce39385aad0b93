export * from './agents/index.ts';
export { type AnswerRuleFit, describeAnswerRule } from './answer-rule.ts';
export * from './case-context.ts';
export * from './engines.ts';
export * from './evidence-flow.ts';
export * from './evidence-match.ts';
export { type JudgeFitSetup, traceJudgeFit } from './judge-fit.ts';
export * from './locate.ts';
export * from './types.ts';
