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
export * from './embedder-api.ts';
export * from './engine-api.ts';
export type { ModelInfo, ModelPort, PortRequest, PortResult } from './model-port.ts';
export * from './systems-api.ts';
