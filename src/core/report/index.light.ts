/**
 * The light face of core/report: the statistics and chart constants the app's start chunk and
 * core/agreement use, without the report builder and its renderings (zod, the attributors).
 */

export { ci, featureLabel, findings, pct, times } from './findings.ts';
export { rate } from './stats.ts';
export { TYPE_COLOURS } from './svg.ts';
