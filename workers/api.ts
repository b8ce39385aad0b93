/**
 * The typed interfaces at the worker boundary, one per worker: the engine worker's
 * `EngineApi` (import + the open traces' analyses + ranked retrieval), the embedder worker's
 * `EmbedderApi` (texts in, vectors out), the systems worker's `SystemsApi`. Everything
 * crossing is plain data (typed arrays are transferred); an `AbortSignal` argument crosses
 * through `abort-transfer.ts`. Graph-drawing components (src/app/lanes, src/app/neighbourhood)
 * take `LaneLayout` and `NeighbourhoodData` as their input (see src/app/graph-views.ts).
 */
// Registers the AbortSignal transfer for whoever talks to a worker through these APIs.
import './abort-transfer.ts';

export { isAbort } from './abort-transfer.ts';
export type { AgentRunEvent } from './agent-runs.ts';
export type { EmbedderApi } from './embedder-api.ts';
export {
  type CaseOverview,
  type CaseThrough,
  type CaseVerdict,
  type CompareProgress,
  type DiffLine,
  type DocScope,
  type EmbedderInfo,
  type EmbeddingSetting,
  type EngineApi,
  type EvalProgress,
  type EvaluatedCase,
  type FileResult,
  type ImportApi,
  type ImportedAttributions,
  type ImportInput,
  type ImportOptions,
  type ImportPhase,
  type ImportProgress,
  type IndexInfo,
  type LaneLayoutProgress,
  type LaneMark,
  type MatcherInfo,
  type MatcherProgress,
  type ModelJudgedVerdict,
  type NeighbourhoodData,
  type NeighbourhoodSeedIds,
  NO_LABELS,
  type OpDetail,
  type OpMatches,
  type OpSummary,
  type OptimizeEvent,
  type OptimizeRun,
  type OptimizeState,
  PATH_SHOWN,
  type QuestionComparison,
  type ReportLabels,
  type ReportProgress,
  type ReportSource,
  type RunComparison,
  type SearchGroup,
  type SearchMethod,
  type SearchQuery,
  type SearchResult,
  type ServiceHit,
  type ServiceProgress,
  type SpanTable,
  type StoredReport,
  type SystemsStoreApi,
  type VarDetail,
  type VarView,
  type VersionDiff,
  WORD_VECTORS_PATH,
} from './engine-api.ts';
export type { ModelInfo, ModelPort, PortRequest, PortResult } from './model-port.ts';
export {
  type DatasetInfo,
  type DatasetName,
  type DatasetSource,
  emptyRunResult,
  type SystemName,
  type SystemRunProgress,
  type SystemRunRequest,
  type SystemRunResult,
  type SystemsApi,
} from './systems-api.ts';
