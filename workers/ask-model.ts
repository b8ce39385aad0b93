/**
 * "Ask the model" on an uncertain verdict: the case attributed again by evidence-flow with the
 * page's chat model as its carrying judge (`llmCarryJudge`; rule `stage-judge`), here in the
 * engine worker. The model is called through a port (its key stays in the page); aborting the
 * signal aborts its calls. The result is shown, not stored: the stored verdict stays the rules'.
 */
import { evidenceFlowEngine, llmCarryJudge } from '../src/core/attribution/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { depsOf, type EvaluatedCase, evaluatedCase, findCase } from './evaluation.ts';
import type { Matching } from './matcher.ts';
import { type ModelInfo, type ModelPort, PortChatModel } from './model-port.ts';

/** A verdict the model judged, with what the attributor counted of its calls. */
export interface ModelJudgedVerdict {
  verdict: EvaluatedCase;
  /** Model calls the attributor made (votes; each a request unless answered from the cache). */
  llm_calls: number;
  /** The judge as people read it ("LLM <model>"). */
  judge: string;
}

/** Attributes one case of an opened graph with the page's model as the carrying judge. */
export async function askModel(
  db: MemtraceDb,
  traceId: string,
  g: TraceGraph,
  queryId: string,
  model: { info: ModelInfo; port: ModelPort; matching?: Matching },
  signal?: AbortSignal,
): Promise<ModelJudgedVerdict> {
  const c = findCase(g, queryId);
  if (!c) throw new Error(`no question ${queryId} in trace ${traceId}`);
  const row = await db.cases.get([traceId, queryId]);
  const system = row?.system ?? null;
  const label = row?.errorType ? { type: row.errorType, op: row.labelOpId } : null;
  const judge = llmCarryJudge(new PortChatModel(model.info, model.port));
  const deps = await depsOf(g, model.matching, c.evidenceIds.length === 0);
  const evidenceFlow = { ...deps.evidenceFlow, judge };
  const a = await evidenceFlowEngine({ graph: g, case: c, system }, { ...deps, evidenceFlow }, { signal });
  return {
    verdict: evaluatedCase(a, traceId, c, system, label, g),
    llm_calls: a.cost.llm_calls,
    judge: judge.label,
  };
}
