/**
 * The MemTrace to-explore list: earliest first by (variable created_at, id), the
 * first entry being explored, at most 16 entries besides it. Adding is refused when
 * the variable is being explored, already listed, already explored, unknown, or the
 * list is full.
 */
import type { TraceGraph } from '../../graph/index.ts';
import type { FrontierState } from '../types.ts';

/** Entries the to-explore list holds besides the variable being explored. */
export const MAX_FRONTIER = 16;

/**
 * The to-explore order of two variable ids: earlier `created_at` first, then by id; unknown ids sort as
 * created at ''.
 */
function compareVars(g: TraceGraph, a: string, b: string): number {
  const va = g.varIndex.get(a);
  const vb = g.varIndex.get(b);
  const ca = va === undefined ? '' : g.varCreatedAt[va];
  const cb = vb === undefined ? '' : g.varCreatedAt[vb];
  if (ca !== cb) return ca < cb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A frontier from seeds: deduplicated, ordered, the earliest becomes current; at most `max` remain listed. */
export function initialFrontier(g: TraceGraph, seeds: string[], max = MAX_FRONTIER): FrontierState {
  const ids = [...new Set(seeds.filter((s) => g.varIndex.has(s)))].sort((a, b) => compareVars(g, a, b));
  return { current: ids[0] ?? null, list: ids.slice(1, 1 + max), explored: [] };
}

/** What `addToFrontier` did: `added`, or why it refused. */
export type AddOutcome = 'added' | 'unknown' | 'current' | 'listed' | 'explored' | 'full';

/**
 * Lists a variable in execution order, or refuses it (unknown, being explored, already listed or explored,
 * list full); mutates `f`.
 */
export function addToFrontier(g: TraceGraph, f: FrontierState, id: string, max = MAX_FRONTIER): AddOutcome {
  if (!g.varIndex.has(id)) return 'unknown';
  if (f.current === id) return 'current';
  if (f.list.includes(id)) return 'listed';
  if (f.explored.includes(id)) return 'explored';
  if (f.list.length >= max) return 'full';
  f.list.push(id);
  f.list.sort((a, b) => compareVars(g, a, b));
  return 'added';
}

/** Drops a variable from the to-explore list; false when it was not listed. */
export function removeFromFrontier(f: FrontierState, id: string): boolean {
  const i = f.list.indexOf(id);
  if (i < 0) return false;
  f.list.splice(i, 1);
  return true;
}

/** Marks the current variable explored and moves to the earliest listed one. */
export function finishCurrent(f: FrontierState): string | null {
  if (f.current !== null && !f.explored.includes(f.current)) f.explored.push(f.current);
  f.current = f.list.shift() ?? null;
  return f.current;
}

/** The observation the agent reads for each refused `add_to_frontier`. */
export const REFUSALS: Record<Exclude<AddOutcome, 'added'>, string> = {
  unknown: 'refused: no such variable',
  current: 'refused: it is being explored now',
  listed: 'refused: already in the to-explore list',
  explored: 'refused: already explored',
  full: `refused: the to-explore list is full (${MAX_FRONTIER}); remove an entry first`,
};
