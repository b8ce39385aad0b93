/**
 * Prior mode (beyond the paper): the agents start from the evidence-flow
 * attributor's ranked candidates instead of searching from scratch.
 */
import { isSentinelVar, type TraceGraph } from '../../graph/graph.ts';
import { opStructure } from '../../graph/queries.ts';
import { corpusFromGraph } from '../../retrieval/corpus.ts';
import { RetrievalIndex } from '../../retrieval/retrieval-index.ts';
import { isPrompt } from '../case-context.ts';
import type { EngineDeps } from '../engines.ts';
import { attributeEvidenceFlow } from '../evidence-flow.ts';
import { startPointLocator } from '../locate.ts';
import type { AttributionInput, Candidate, RunHooks } from '../types.ts';

/** At most this many candidates seed a run. */
export const PRIOR_CANDIDATES = 3;

/** The messages index: the caller's, or one built here (BM25 only). */
export async function messagesIndex(g: TraceGraph, deps: EngineDeps): Promise<RetrievalIndex> {
  return deps.index ?? (await RetrievalIndex.build(corpusFromGraph(g, 'messages')));
}

export async function priorCandidates(
  input: AttributionInput,
  deps: EngineDeps,
  hooks: RunHooks,
): Promise<Candidate[]> {
  const index = await messagesIndex(input.graph, deps);
  const ef = await attributeEvidenceFlow(
    input,
    { locateEvidence: startPointLocator({ index, embedder: deps.embedder }), ...deps.evidenceFlow },
    { signal: hooks.signal },
  );
  return ef.candidates.filter((c) => input.graph.opIndex.has(c.op_id)).slice(0, PRIOR_CANDIDATES);
}

/** The variables an op reads (prompts and sentinels left out); its outputs when it reads none. */
export function opReads(g: TraceGraph, op: number): number[] {
  const s = opStructure(g, op);
  const ins = s.inputs.filter((v) => !isSentinelVar(g, v) && !isPrompt(g, v));
  return ins.length ? ins : s.outputs.filter((v) => !isSentinelVar(g, v));
}
