/**
 * A model for the hard cases (rule `stage-judge`): an uncertain verdict's stages are put to the
 * carrying judge the user configured (`--judge-model`, a `CarryJudge`) in MemEval's manner — per
 * stage, "does this text state the answer to the question?", several votes — and the latest stage
 * a majority says states the answer decides, as the stage walk would have. A question the
 * conversation does not answer (no golden answer) asks only of the context whether it reads as an
 * answer all the same: then retrieval misled the answer op, else the answer op should have declined.
 */

import type { TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import type { CarryJudge } from './carry-judge.ts';
import type { CaseContext } from './case-context.ts';
import { splitUnits } from './evidence-match.ts';
import { noGoldenAnswer } from './golden.ts';
import type { StageVerdict } from './stage-walk.ts';

/** Votes asked per stage (each its own call; a majority decides). */
export const STAGE_VOTES = 3;
/** The most text of one stage shown to the model. */
const MAX_STAGE_CHARS = 6000;

/** What the model was asked and what it cost. */
export interface StageJudgement {
  /** The stage a majority said states the answer, latest first; null when none did. */
  states: 'context' | 'store' | 'memory' | null;
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
}

function stageText(g: TraceGraph, vars: readonly number[]): string {
  const text = vars.flatMap((v) => splitUnits(g.varValue[v]).texts).join('\n');
  return text.length > MAX_STAGE_CHARS ? `${text.slice(0, MAX_STAGE_CHARS)}…` : text;
}

/** Asks the judge about the context, the store at question time and every memory written before it. */
export async function judgeStages(
  g: TraceGraph,
  c: TraceCase,
  cx: CaseContext,
  history: readonly number[],
  judge: CarryJudge,
  signal?: AbortSignal,
): Promise<StageJudgement> {
  const all = [
    { name: 'context' as const, text: stageText(g, cx.context) },
    { name: 'store' as const, text: stageText(g, cx.store) },
    { name: 'memory' as const, text: stageText(g, history) },
  ];
  // With no answer to find, only what the answer op read can have misled it.
  const asked = noGoldenAnswer(c.goldenAnswers) ? all.slice(0, 1) : all;
  const stages = asked.filter((s) => s.text.trim() !== '');
  const evidence = cx.evidence.map((v) => g.varValue[v]).join('\n');
  const items = stages.flatMap((s) =>
    Array.from({ length: STAGE_VOTES }, (_, k) => ({
      question: c.question,
      goldenAnswers: c.goldenAnswers,
      evidence,
      // Each vote its own request (a cached model would otherwise answer once for all).
      memory: `${s.text}\n(vote ${k + 1} of ${STAGE_VOTES})`,
    })),
  );
  const { verdicts, cost } = await judge.decide(items, signal);
  const yes = (i: number) => verdicts.slice(i * STAGE_VOTES, (i + 1) * STAGE_VOTES).filter(Boolean).length;
  const first = stages.findIndex((_, i) => yes(i) * 2 > STAGE_VOTES);
  return { states: first < 0 ? null : stages[first].name, ...cost };
}

/**
 * The verdict the judge's stages give: the answer op when the context states the answer, the
 * question-time op when only the store does; otherwise the walk's own loss or extraction verdict.
 * With no golden answer (`noAnswer`): retrieval when the context reads as an answer (it misled the
 * answer op), else the answer op, which answered what nothing it read answers.
 */
export function judgedVerdict(
  walk: StageVerdict,
  judged: StageJudgement,
  answerOp: number,
  retrievalOp: number,
  noAnswer = false,
): Pick<StageVerdict, 'error_type' | 'op'> {
  if (noAnswer)
    return judged.states === 'context' && retrievalOp >= 0
      ? { error_type: 'RetrievalError', op: retrievalOp }
      : { error_type: 'ResponseError', op: answerOp };
  if (judged.states === 'context') return { error_type: 'ResponseError', op: answerOp };
  if (judged.states === 'store' && retrievalOp >= 0) return { error_type: 'RetrievalError', op: retrievalOp };
  return { error_type: walk.error_type, op: walk.op };
}
