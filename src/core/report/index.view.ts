/**
 * The face of core/report for the app's report view: the findings, their formatting and the grounds' sentences, without
 * the builder and renderings (zod, the attributors, compromise), which load only when a report
 * is built. A face of its own, not part of `index.light.ts`: what that one reaches lands in the
 * app's start chunk.
 */

export { ci, featureLabel, findings, pct, times } from './findings.ts';
export { afterRelation, notAttributableText } from './grounds.ts';
