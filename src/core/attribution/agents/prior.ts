/**
 * Prior mode (beyond the paper): the agents start from the evidence-flow
 * attributor's ranked candidates instead of searching from scratch.
 */
import { isSentinelVar, opVariables, renderVariableView, type TraceGraph } from '../../graph/index.ts';
import { corpusFromGraph, RetrievalIndex } from '../../retrieval/index.ts';
import { isPrompt } from '../case-context.ts';
import type { EngineDeps } from '../engine-deps.ts';
import { startPointLocator } from '../locate.ts';
import type { AttributionInput, Candidate, RunHooks } from '../types.ts';
import { attributeStageWalk } from '../walk-engine.ts';

/** At most this many candidates seed a run. */
export const PRIOR_CANDIDATES = 3;

/** The messages index: the caller's, or one built here (BM25 only). */
export async function messagesIndex(g: TraceGraph, deps: EngineDeps): Promise<RetrievalIndex> {
  return deps.index ?? (await RetrievalIndex.build(corpusFromGraph(g, 'messages')));
}

/**
 * Prior mode's seeds: the deterministic attributor's top candidates (at most `PRIOR_CANDIDATES`, ops of
 * this graph only), located through the messages index.
 */
export async function priorCandidates(
  input: AttributionInput,
  deps: EngineDeps,
  hooks: RunHooks,
): Promise<Candidate[]> {
  const index = await messagesIndex(input.graph, deps);
  const ef = await attributeStageWalk(
    input,
    { locateEvidence: startPointLocator({ index, embedder: deps.embedder }), ...deps.evidenceFlow },
    { signal: hooks.signal },
  );
  return ef.candidates.filter((c) => input.graph.opIndex.has(c.op_id)).slice(0, PRIOR_CANDIDATES);
}

/**
 * The variable through which an op is cheapest to inspect: of its variables (prompts
 * and sentinels left out), the one whose full explore view is shortest — e.g. the
 * retrieved list rather than the whole store, which every question's retrieval reads.
 */
export function cheapestEntry(g: TraceGraph, op: number): number | undefined {
  let best: number | undefined;
  let bestChars = Number.POSITIVE_INFINITY;
  for (const v of opVariables(g, op)) {
    if (isSentinelVar(g, v) || isPrompt(g, v)) continue;
    const chars = renderVariableView(g, v, { mode: 'full', pageChars: Number.MAX_SAFE_INTEGER }).totalChars;
    if (chars < bestChars) {
      best = v;
      bestChars = chars;
    }
  }
  return best;
}
