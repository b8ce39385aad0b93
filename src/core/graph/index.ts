/** The indexed trace graph (struct of arrays): queries, closure, paging, search, text renderings (explore view, OBS log). */

export {
  buildGraph,
  isSentinelOp,
  isSentinelVar,
  opMetadata,
  row,
  type TraceGraph,
  varMetadata,
} from './graph.ts';
export { blockAt, type ObsBlock, type ObsLog, opOrderByIdTies, renderObsLog } from './obs.ts';
export { type OpenResult, openTrace } from './open.ts';
export { pageOf } from './paging.ts';
export {
  closure,
  consumersOf,
  latestVersion,
  lineageOf,
  nextVersion,
  type OpSummary,
  opStructure,
  opSummary,
  opsTouching,
  opVariables,
  previousVersion,
  producersOf,
  versionsOf,
} from './queries.ts';
export { renderOpHeader, renderOpSubgraph, renderVariableView } from './render.ts';
export {
  compilePattern,
  groupByLineage,
  nonEmptyMatches,
  phraseMarks,
  searchValues,
  snippetAround,
  wordSnippet,
} from './search.ts';
