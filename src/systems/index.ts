/**
 * Reference memory systems (naive RAG, long-context, Mem0 classic, EverMemOS minimal),
 * traced with the SDK; data set loaders; judges; fault injection and counterfactual labels.
 */

export { type BenchmarkSummary, generateBenchmark } from './benchmark.ts';
export { acceptsMemory, CarryRule } from './carrying.ts';
export { ERROR_TYPE_OF, FAULT_KINDS } from './env.ts';
export { createShape, createSystem, type SystemSettings, TOP_K_SYSTEMS } from './factory.ts';
export {
  annotationOf,
  counterfactualLabel,
  evidenceOf,
  faultyCandidates,
  injectFault,
  type LabelContext,
  labelFailure,
  NullSink,
  quietTracer,
  rerun,
} from './inject.ts';
export { llmJudge, offlineJudge, ruleJudge } from './judge.ts';
export {
  acceptsAnswer,
  answerWords,
  containmentRule,
  halfWordsRule,
  isJudgeRule,
  JUDGE_RULES,
  type JudgeRule,
  QA_ANSWER_RULE,
  tokenF1Rule,
} from './judge-rules.ts';
export { LexicalIndex } from './lexical.ts';
export type { SystemLLM } from './llm.ts';
export {
  defaultLlmBenchParts,
  ERROR_TYPES,
  generateLlmBenchmark,
  type LlmBenchSummary,
  SHAPE_SPLIT,
} from './llm-bench.ts';
export {
  DATASETS,
  DatasetFormatError,
  detectDataset,
  loadDataset,
  loadLocomo,
  loadLongMemEval,
  loadRealmem,
} from './loaders/index.ts';
export { contradicts, PerUserStore, type PerUserStoreOptions } from './per-user-store.ts';
export { runSystem } from './run.ts';
export { withinSessions } from './sessions.ts';
export { SHAPE_NAMES, type ShapeName, SPLIT_OF, SYSTEM_NAMES, type SystemName } from './system.ts';
export { tokenF1, tokens } from './text.ts';
export type { Conversation, DatasetName, Turn } from './types.ts';
