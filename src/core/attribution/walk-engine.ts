import { calibrationKeys, confidenceOf, UNCERTAIN_BELOW } from './calibration.ts';
import type { CarryJudge } from './carry-judge.ts';
import { type CaseContext, caseContext, untraceable } from './case-context.ts';
import {
  answerRuleOf,
  attributeEvidenceFlow,
  type EvidenceFlowOptions,
  judgeDisagrees,
} from './evidence-flow.ts';
import { noGoldenAnswer } from './golden.ts';
import { judgedVerdict, judgeStages } from './stage-judge.ts';
import {
  DEFAULT_STAGE_SETTINGS,
  memoryHistory,
  retrievalCandidate,
  retrievalOp,
  type StageRuleId,
  type StageSettings,
  type StageVerdict,
  stageSupport,
  topicalUnit,
  walkStages,
} from './stage-walk.ts';
import {
  type AnswerRuleUsed,
  type Attribution,
  type AttributionInput,
  type Candidate,
  type NotAttributableReason,
  type PathStep,
  type RunHooks,
  throwIfAborted,
  ZERO_COST,
} from './types.ts';
import { ATTRIBUTOR_VERSION } from './version.ts';

/** Options of the deterministic attributor: the matcher's, evidence location, the clock, and the rule settings. */
export interface StageWalkOptions extends EvidenceFlowOptions {
  /** Rules turned off and thresholds (the ablation); default: every rule on. */
  stages?: StageSettings;
  /** Verdicts below this confidence are uncertain (default `UNCERTAIN_BELOW`). */
  uncertainBelow?: number;
}

/** The deterministic attributor on one case (see the module comment). */
export async function attributeStageWalk(
  input: AttributionInput,
  options: StageWalkOptions = {},
  hooks: RunHooks = {},
): Promise<Attribution> {
  const now = options.now ?? (() => 0);
  const started = now();
  const cost = () => ({ ...ZERO_COST, seconds: Math.max(0, now() - started) / 1000 });
  const { graph: g, case: c } = input;
  const settings = options.stages ?? DEFAULT_STAGE_SETTINGS;
  const { rule, used } = answerRuleOf(g, options);
  const base = {
    query_id: c.queryId,
    method: 'evidence' as const,
    answer_rule: used,
    judge_disagrees: judgeDisagrees(c, rule, options),
    attributor_version: ATTRIBUTOR_VERSION,
  };
  const none = (reason: NotAttributableReason, detail: string, path: PathStep[] = []): Attribution => ({
    ...base,
    error_type: null,
    op_id: null,
    reason: detail,
    path,
    candidates: [],
    not_attributable: { reason, detail },
    rules: [],
    cost: cost(),
  });
  if ((used.source === 'fitted' || used.source === 'pooled') && !settings.off.has('learned-judge'))
    return flowVerdict(
      await attributeEvidenceFlow(input, flowOptions(options, settings), hooks),
      used,
      settings,
    );
  const cx = caseContext(g, c);
  const stop = untraceable(g, c, cx);
  // No golden answer is decided below, whether or not the evidence is in the trace.
  if (stop && (stop.reason === 'no-answer-op' || !noGoldenAnswer(c.goldenAnswers)))
    return none(stop.reason, stop.detail, stop.path);
  const answerStep: PathStep = { op_id: g.opId[cx.answerOp], note: 'wrote the prediction' };
  if (noGoldenAnswer(c.goldenAnswers)) {
    if (settings.off.has('no-golden-answer'))
      return none(
        'no-golden-answer',
        'Not attributable: the golden answer is empty or says the conversation does not answer the question.',
      );
    const unanswerable = noAnswerVerdict(input, cx);
    const out = finish(input, base, cost(), used, unanswerable, options.uncertainBelow);
    if (!out.uncertain || !options.judge || settings.off.has('stage-judge')) return out;
    return askStages(input, cx, unanswerable, out, options.judge, hooks);
  }
  const evidence =
    cx.evidence.length || !options.locateEvidence ? cx.evidence : await options.locateEvidence(g, c);
  throwIfAborted(hooks.signal);
  const walked = { ...cx, evidence };
  const verdict = walkStages(g, c, rule, options, settings, walked);
  if (!verdict)
    return none(
      'no-evidence',
      'No evidence could be located for this question, and no memory or context states the answer.',
      [answerStep],
    );
  const out = {
    ...finish(input, base, cost(), used, verdict, options.uncertainBelow),
    support: stageSupport(g, walked, verdict),
  };
  if (!out.uncertain || !options.judge || settings.off.has('stage-judge')) return out;
  return askStages(input, walked, verdict, out, options.judge, hooks);
}

/** Evidence-flow's options under the rule settings (`whole-memory` off reads windows only). */
function flowOptions(options: StageWalkOptions, settings: StageSettings): EvidenceFlowOptions {
  const whole = settings.off.has('whole-memory') ? 0 : settings.wholeMemorySentences;
  return { ...options, wholeMemorySentences: whole };
}

/** An uncertain verdict put to the model (`stage-judge`): its stages' votes decide, its calls counted. */
async function askStages(
  input: AttributionInput,
  cx: CaseContext,
  verdict: StageVerdict,
  out: Attribution,
  judge: CarryJudge,
  hooks: RunHooks,
): Promise<Attribution> {
  const g = input.graph;
  const judged = await judgeStages(g, input.case, cx, memoryHistory(g, cx), judge, hooks.signal);
  const noAnswer = noGoldenAnswer(input.case.goldenAnswers);
  const pick = judgedVerdict(verdict, judged, cx.answerOp, retrievalOp(g, cx), noAnswer);
  const cost = {
    ...out.cost,
    llm_calls: out.cost.llm_calls + judged.llm_calls,
    input_tokens: out.cost.input_tokens + judged.input_tokens,
    output_tokens: out.cost.output_tokens + judged.output_tokens,
  };
  const said = judged.states
    ? `a majority of its votes says the ${judged.states} states ${noAnswer ? 'an' : 'the'} answer`
    : `no stage states ${noAnswer ? 'an' : 'the'} answer, by a majority of its votes`;
  return {
    ...out,
    error_type: pick.error_type,
    op_id: g.opId[pick.op],
    reason: `The model (${judge.label}) was asked about each stage: ${said}. The rules alone said: ${verdict.reason}`,
    rules: [...(out.rules ?? []), 'stage-judge'],
    // No labelled data calibrates the model's verdicts yet: it stays uncertain, the model's pick first.
    candidates: [
      { op_id: g.opId[pick.op], error_type: pick.error_type, score: out.confidence ?? 0, reason: said },
      ...out.candidates.filter((x) => x.op_id !== g.opId[pick.op] || x.error_type !== pick.error_type),
    ].slice(0, 2),
    cost,
  };
}

/** The evidence-flow verdict under a learned judge, with its rules, calibrated confidence and version. */
function flowVerdict(a: Attribution, used: AnswerRuleUsed, settings: StageSettings): Attribution {
  // The content test's reading rule applies to every unit the flow reads, as the walk's `own-time` does.
  const reading = settings.off.has('whole-memory') ? [] : ['whole-memory'];
  if (a.error_type === null)
    return { ...a, rules: ['learned-judge', ...reading], attributor_version: ATTRIBUTOR_VERSION };
  const rules = ['learned-judge', ...reading, `flow:${a.error_type}`];
  // Evidence-flow's own score (before calibration) picks the band its verdict is calibrated in.
  const score = a.confidence ?? null;
  const confidence = confidenceOf(rules, used.source, score);
  const uncertain = confidence < UNCERTAIN_BELOW && a.candidates.length > 1;
  const calibration_keys = calibrationKeys(rules, used.source, score);
  return { ...a, rules, confidence, calibration_keys, uncertain, attributor_version: ATTRIBUTOR_VERSION };
}

/**
 * A question the conversation does not answer (adversarial), answered anyway: the answer was made
 * from what retrieval brought — lines on the question's topic that answer another question (another
 * person's, another time's). Retrieval surfaced them as if they answered it, so it is blamed, the
 * answer op (which could have declined) the second candidate; with no question-time op, the answer op.
 */
function noAnswerVerdict(input: AttributionInput, cx: CaseContext): StageVerdict {
  const g = input.graph;
  const retrieval = retrievalOp(g, cx);
  const line = topicalUnit(g, cx.context, input.case.question);
  const declined = {
    op_id: g.opId[cx.answerOp],
    error_type: 'ResponseError' as const,
    score: 0,
    reason: 'if the answer op had what it needed to decline and answered anyway',
  };
  if (retrieval < 0 || !line)
    return {
      error_type: 'ResponseError',
      op: cx.answerOp,
      reason:
        'The golden answer says the conversation does not answer the question, and nothing retrieved is on its topic: the answer op, which answered anyway, is at fault.',
      rules: ['no-golden-answer'],
      path: [{ op_id: g.opId[cx.answerOp], note: 'answered a question the conversation does not answer' }],
      held: null,
      after: null,
      runnerUp: retrievalCandidate(
        g,
        retrieval,
        'if what it brought misled the answer op in a way the words do not show',
      ),
      margin: 0,
    };
  return {
    error_type: 'RetrievalError',
    op: retrieval,
    reason: `The golden answer says the conversation does not answer the question, yet ${g.opName[retrieval] || g.opId[retrieval]} brought lines on its topic that answer something else ("${line.text.slice(0, 120)}", in ${line.var_id}), and the answer was made from them.`,
    rules: ['no-golden-answer'],
    path: [
      { op_id: g.opId[retrieval], note: 'brought lines on the question’s topic that do not answer it' },
      { var_id: line.var_id, note: 'on the topic, about something else' },
      { op_id: g.opId[cx.answerOp], note: 'answered from them instead of declining' },
    ],
    held: null,
    after: null,
    runnerUp: declined,
    margin: 0,
  };
}

function finish(
  input: AttributionInput,
  base: Pick<Attribution, 'query_id' | 'method' | 'answer_rule' | 'judge_disagrees' | 'attributor_version'>,
  cost: Attribution['cost'],
  used: AnswerRuleUsed,
  v: StageVerdict,
  uncertainBelow = UNCERTAIN_BELOW,
): Attribution {
  const g = input.graph;
  const confidence = confidenceOf(v.rules, used.source);
  const top: Candidate = {
    op_id: g.opId[v.op],
    error_type: v.error_type,
    score: confidence,
    reason: v.reason,
  };
  const candidates = v.runnerUp ? [top, { ...v.runnerUp, score: 1 - confidence }] : [top];
  const uncertain = confidence < uncertainBelow && candidates.length > 1;
  return {
    ...base,
    error_type: v.error_type,
    op_id: g.opId[v.op],
    reason: uncertain
      ? `Uncertain (confidence ${Math.round(confidence * 100)} %): ${v.reason} Second candidate: ${candidates[1].error_type} at ${candidates[1].op_id}.`
      : v.reason,
    path: v.path,
    candidates,
    not_attributable: null,
    rules: v.rules satisfies StageRuleId[],
    confidence,
    calibration_keys: calibrationKeys(v.rules, used.source),
    uncertain,
    verdict_evidence: v.held ? { held: v.held, after: v.after } : null,
    cost,
  };
}
