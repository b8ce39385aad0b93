/** Graph layouts (pure, no DOM): whole-graph time-ordered lanes in bands and small layered neighbourhoods. */

export { defaultExpanded, type LaneRows, laneRows } from './lane-rows.ts';
export {
  BAND_MESSAGES,
  BAND_QUESTIONS,
  BAND_UNITS,
  firstInSlot,
  type LaneLayout,
  type LaneLayoutOptions,
  laneLayout,
  laneLayoutTransferables,
  packRows,
  ROLE_INPUT,
  ROLE_OUTPUT,
} from './lanes.ts';
export { type LayeredLayout, layeredLayout } from './layered.ts';
export {
  changePreview,
  EDGE_DATA,
  EDGE_INFERRED,
  EDGE_LINEAGE,
  type NeighbourhoodDrawing,
  type NeighbourhoodDrawingOptions,
  NODE_OP,
  NODE_VAR,
  neighbourhood,
  neighbourhoodDrawing,
  neighbourhoodLayout,
  previewText,
} from './neighbourhood.ts';
