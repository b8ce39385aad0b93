/** The cases of a trace: failed questions (the llm-judge rule), their path and causal cone, a trace's system and split. */

export { listCases, parseJudgeScore, type TraceCase } from './cases.ts';
export { answerOpOf, casePath, causalCone, predictionOf } from './path.ts';
export { type BenchSplit, benchSplitOf, canonicalSystem, splitFromPath, systemOf } from './system.ts';
