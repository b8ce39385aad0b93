/** The whole-graph lane view (canvas) and its parts. */

export { default as LaneView } from './LaneView.svelte';
export type { LaneSelection } from './selection.ts';
