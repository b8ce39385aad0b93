/**
 * The face of core/report for the app's case workspace: a verdict's grounds in words (the
 * attribution panel, its quotes and support curve), without the report builder and its
 * renderings, whose modules bring the attributors and compromise: imported through the full
 * face, opening a case loaded and ran all of them on the page's thread.
 */

export {
  afterRelation,
  type GroundQuote,
  notAttributableText,
  quoteMarks,
  ruleText,
  type VerdictGrounds,
} from './grounds.ts';
