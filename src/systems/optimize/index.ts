/** The closed prompt-optimisation loop over reference systems (and the mem0ai wrapper), with an acceptance test. */

export { optimizePrompts, sampleQuestions, updateResults } from './loop.ts';
export { referenceTarget } from './target.ts';
export type { OptimizeOptions, OptimizeState, OptimizeStore } from './types.ts';
