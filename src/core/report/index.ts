/**
 * The system-level error report: attributed failures → counts, rates with Wilson
 * intervals, feature lifts, clusters with exemplars (deterministic), an optional model
 * narrative, and renderings (Markdown, self-contained HTML, JSON); plus the records of
 * the paper's released tools.
 */

export { buildReport } from './build.ts';
export { type AttributedInput, reportCase } from './case-facts.ts';
export {
  FEATURES,
  hasAbsoluteDate,
  hasNegation,
  hasNumber,
  hasRelativeDate,
  isEnumeration,
} from './features.ts';
export { type VerdictGrounds, verdictGrounds } from './grounds.ts';
export { reportHtml } from './html.ts';
export { reportMarkdown } from './markdown.ts';
export {
  AttributionFileError,
  type AttributionRecord,
  errorAnalysisReportJson,
  type GraphKey,
  type MemtraceRecord,
  matchRecords,
  memtraceRecord,
  memtraceResults,
  parseAttributionFile,
  parseErrorAnalysisReport,
} from './memtrace-format.ts';
export { type NarrativeCase, narrativeCase, narrativeFromText, writeNarrative } from './narrative.ts';
export { wilson } from './stats.ts';
export { rateBars, TYPE_COLOURS } from './svg.ts';
export { labelColumn, textWidth } from './text-width.ts';
export type { ErrorReport, ReportCase } from './types.ts';
