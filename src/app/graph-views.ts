/**
 * The contract between the views and the graph drawings built in src/app/lanes and
 * src/app/neighbourhood. The views mount `lanes/LaneView.svelte` and
 * `neighbourhood/NeighbourhoodView.svelte` when those files exist (import.meta.glob),
 * passing these props; until then they show a text fallback.
 */
import type { Component } from 'svelte';
import type { LaneMark } from '../../workers/api.ts';
import type { LaneLayout, NeighbourhoodDrawing } from '../core/layout/index.ts';

/** What a click in a drawing selects: an op id or a variable full_node_id. */
export type GraphSelection = { kind: 'op'; id: string } | { kind: 'var'; id: string };

interface LaneViewProps {
  /** From `EngineApi.laneLayout(traceId)` (computed in the engine worker). */
  layout: LaneLayout;
  /** What to highlight and bring into view, if anything. */
  selected?: GraphSelection | null;
  onselect?: (s: GraphSelection | null) => void;
  /** Enter on the selected item: open its page. */
  onopen?: (s: GraphSelection) => void;
  /** From `EngineApi.laneMarks(traceId)`: failed answers, labels, attributions. */
  marks?: LaneMark[];
  /** A variable's value text for the hover tooltip (from `EngineApi.valuePreview`). */
  preview?: (s: GraphSelection) => Promise<string>;
}

interface NeighbourhoodViewProps {
  /**
   * From `EngineApi.neighbourhood(traceId, seeds)`: computed in the engine worker,
   * with everything the drawing shows (ids, labels, categories, value previews), so the
   * page never opens the graph, whatever the trace's size.
   */
  data: NeighbourhoodDrawing;
  /** A newer layout is on its way (the drawing says so). */
  busy?: boolean;
  selected?: GraphSelection | null;
  onselect?: (s: GraphSelection | null) => void;
}

type Loader<P extends Record<string, unknown>> = () => Promise<{ default: Component<P> }>;

const lanes = import.meta.glob<{ default: Component<LaneViewProps & Record<string, unknown>> }>(
  './lanes/LaneView.svelte',
);
const hoods = import.meta.glob<{ default: Component<NeighbourhoodViewProps & Record<string, unknown>> }>(
  './neighbourhood/NeighbourhoodView.svelte',
);

/** The lane-view component's loader, or null while it does not exist. */
export const laneViewLoader = (Object.values(lanes)[0] ?? null) as Loader<
  LaneViewProps & Record<string, unknown>
> | null;
export const neighbourhoodViewLoader = (Object.values(hoods)[0] ?? null) as Loader<
  NeighbourhoodViewProps & Record<string, unknown>
> | null;
