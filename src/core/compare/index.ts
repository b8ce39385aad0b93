export {
  type CompareProgress,
  compareMemoryAt,
  compareRuns,
  compareSteps,
  type QuestionComparison,
  type RunComparison,
} from './compare.ts';
export type { Divergence } from './divergence.ts';
export type { Difference } from './explain.ts';
export type { MemoryComparison } from './memory.ts';
export { pairQuestions } from './questions.ts';
