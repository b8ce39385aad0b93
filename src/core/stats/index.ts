export { type TraceStats, traceStats } from './stats.ts';
