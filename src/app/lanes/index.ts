/** The whole-graph lane view (canvas) and its parts. */

export { drawFrame, type FrameStats, type LaneLabels, RasterBuffers } from './draw.ts';
export { hitTest, type LaneHit } from './hit.ts';
export { LaneInteraction } from './interaction.ts';
export { default as LaneView } from './LaneView.svelte';
export { FrameScheduler } from './scheduler.ts';
export type { LaneSelection } from './selection.ts';
export * from './viewport.ts';
