/**
 * The system-level error report: attributed failures → counts, rates with Wilson
 * intervals, feature lifts, clusters with exemplars (deterministic), an optional model
 * narrative, and renderings (Markdown, self-contained HTML, JSON); plus the records of
 * the paper's released tools.
 */
export * from './build.ts';
export * from './case-facts.ts';
export * from './features.ts';
export * from './findings.ts';
export * from './grounds.ts';
export * from './html.ts';
export * from './markdown.ts';
export * from './memtrace-format.ts';
export * from './narrative.ts';
export * from './stats.ts';
export * from './svg.ts';
export * from './types.ts';
