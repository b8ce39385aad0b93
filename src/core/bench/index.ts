export { type Accuracy, type BenchSummary, type ScoredCase, scoredCase, summarize } from './metrics.ts';
