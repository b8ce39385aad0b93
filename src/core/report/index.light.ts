/**
 * The light face of core/report: the rate with its interval and the chart colours that the app's
 * start chunk and core/agreement use, without the report builder and its renderings (zod, the
 * attributors). Keep it to what the start needs: whatever a face reaches lands in the start chunk.
 */

export { rate } from './stats.ts';
