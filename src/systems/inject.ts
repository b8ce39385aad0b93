/**
 * Labelled failures with exact ground truth, two ways:
 * - fault injection: a question the system answered correctly is rerun with one fault
 *   injected at a chosen point (drop its evidence in extraction, corrupt or delete the
 *   memory unit holding it later, drop it from retrieval, spoil the answer); when the answer
 *   now fails, the injected op is the label (`label_source: fault-injection`);
 * - counterfactual repair, for ordinary failures: walking the ops that touched the
 *   question's evidence in execution order, each locally faulty op (evidence not kept,
 *   lost by an update or deletion, in the store but not retrieved, in the context but
 *   answered wrongly) is given its ideal output with every later op ideal, and the system
 *   is rerun; the earliest op whose repair rescues the answer is the label
 *   (`label_source: counterfactual`). Reruns need a deterministic system (offline mode, or
 *   a model behind a response cache).
 */
import type { Annotation } from '../core/trace/index.ts';
import type { GraphSink } from '../sdk/sink.ts';
import { Tracer } from '../sdk/tracer.ts';
import { CarryRule } from './carrying.ts';
import {
  ERROR_TYPE_OF,
  type EvidenceEvent,
  type FaultKind,
  type Intervention,
  type MemoriesMode,
} from './env.ts';
import type { JudgeRule } from './judge-rules.ts';
import type { SystemLLM } from './llm.ts';
import { type RunResult, runSystem } from './run.ts';
import type { AnswerRecord, MemorySystem } from './system.ts';
import type { Conversation, Question } from './types.ts';

/** A sink that keeps nothing (reruns only need the answers). */
export class NullSink implements GraphSink {
  add(): void {}
  close(): void {}
}

/** A tracer for reruns: nothing written, no hashing or value encoding; op ids count up (to find an op's event). */
export function quietTracer(): Tracer {
  let n = 0;
  return new Tracer({ sink: new NullSink(), encode: () => '', sha1: () => '0', ids: () => String(++n) });
}

export interface LabelContext {
  makeSystem: () => MemorySystem;
  conversation: Conversation;
  llm?: SystemLLM;
  judge?: 'offline' | 'llm';
  maxSessions?: number;
  /** `recorded`: the systems replay the data set's LLM-written memories. */
  memories?: MemoriesMode;
  /** How carrying is decided for labels (see `Intervention.carrying`); default `provenance`. */
  carrying?: 'provenance' | 'judge';
  /** The offline judge's rule of every run (default `offline`); judged carrying uses the same rule. */
  judgeRule?: JudgeRule;
  /** A fault every rerun keeps (labelling a fault-injected run by counterfactual repair). */
  fault?: Pick<Intervention, 'fault' | 'faultUnit'>;
}

export interface Label {
  errorType: string;
  opId: string;
  source: 'fault-injection' | 'counterfactual';
  /** Evidence-event key of the labelled op. */
  key: string;
}

/** Evidence turns of a question that exist in the conversation. */
export function evidenceOf(conv: Conversation, q: Question): string[] {
  const turns = new Set(conv.sessions.flatMap((s) => s.turns.map((t) => t.id)));
  return q.evidence.filter((e) => turns.has(e));
}

/** Ops that touched the question's evidence and did their own job wrongly, in execution order. */
export function faultyCandidates(events: EvidenceEvent[], q: Question, evidence: string[]): EvidenceEvent[] {
  const E = new Set(evidence);
  const out: EvidenceEvent[] = [];
  for (const ev of events) {
    if (ev.kind === 'extraction') {
      const carried = new Set(ev.carried ?? []);
      if ((ev.turns ?? []).some((t) => E.has(t) && !carried.has(t))) out.push(ev);
    } else if (ev.kind === 'update' || ev.kind === 'deletion') {
      if ((ev.lost ?? []).some((t) => E.has(t))) out.push(ev);
    } else if (ev.questionId === q.id) {
      if (ev.kind === 'retrieval') {
        const ctx = new Set(ev.inContext ?? []);
        if ((ev.inStore ?? []).some((t) => E.has(t) && !ctx.has(t))) out.push(ev);
      } else out.push(ev); // the answer: wrong although everything before it may be right
    }
  }
  return out;
}

/** Why a failed question got no exact label. */
export type DropReason =
  | 'no-evidence-ids'
  | 'evidence-does-not-carry'
  | 'no-single-repair'
  | 'tie'
  | 'rerun-differs'
  | 'not-failed';

export const DROP_REASONS: readonly DropReason[] = [
  'no-evidence-ids',
  'evidence-does-not-carry',
  'no-single-repair',
  'tie',
  'rerun-differs',
  'not-failed',
];

export type LabelOutcome =
  | { label: Label; candidates: EvidenceEvent[]; drop?: undefined }
  | { drop: DropReason; label?: undefined; candidates: EvidenceEvent[] };

/** The intervention of a labelling rerun for `q` (no repair unless `repairFrom`). */
function interventionFor(
  ctx: LabelContext,
  q: Question,
  evidence: string[],
  repairFrom?: string,
): Intervention {
  return {
    questionId: q.id,
    evidence,
    answers: q.answers,
    carrying: ctx.carrying,
    ...(ctx.fault ?? {}),
    ...(repairFrom === undefined ? {} : { repairFrom }),
  };
}

/** Reruns the system answering only `q`, quietly. */
export async function rerun(ctx: LabelContext, q: Question, repairFrom?: string): Promise<RunResult> {
  return runSystem(ctx.makeSystem(), ctx.conversation, {
    tracer: quietTracer(),
    llm: ctx.llm,
    judge: ctx.judge,
    maxSessions: ctx.maxSessions,
    answerOnly: [q.id],
    memories: ctx.memories,
    judgeRule: ctx.judgeRule,
    intervention: interventionFor(ctx, q, evidenceOf(ctx.conversation, q), repairFrom),
  });
}

/**
 * The counterfactual label of a failed question — the earliest faulty op whose repair (it and
 * every later op ideal) makes the answer right — or why there is none. `events` are the
 * evidence log of the run being labelled (its op ids are the label's); with judged carrying
 * the faulty ops are found on a rerun that judges carrying for this question, matched by key.
 */
export async function labelFailure(
  ctx: LabelContext,
  q: Question,
  events: EvidenceEvent[],
): Promise<LabelOutcome> {
  const evidence = evidenceOf(ctx.conversation, q);
  if (evidence.length === 0) return { drop: 'no-evidence-ids', candidates: [] };
  let log = events;
  if (ctx.carrying === 'judge') {
    if (!new CarryRule(ctx.conversation, { answers: q.answers, evidence }, ctx.judgeRule).evidenceCarries)
      return { drop: 'evidence-does-not-carry', candidates: [] };
    const diag = await rerun(ctx, q);
    if (diag.answers[0]?.correct !== false) return { drop: 'not-failed', candidates: [] };
    log = diag.events;
  }
  const opOf = new Map(events.map((e) => [e.key, e.opId]));
  const kindOf = new Map(events.map((e) => [e.key, e.kind]));
  const candidates = faultyCandidates(log, q, evidence);
  for (const cand of candidates) {
    const r = await rerun(ctx, q, cand.key);
    if (!r.answers[0]?.correct) continue;
    const opId = opOf.get(cand.key);
    if (opId === undefined || kindOf.get(cand.key) !== cand.kind)
      return { drop: 'rerun-differs', candidates };
    // One op, two kinds of fault for this question: the type is not decided.
    const kinds = new Set(candidates.filter((c) => opOf.get(c.key) === opId).map((c) => c.kind));
    if (kinds.size > 1) return { drop: 'tie', candidates };
    return {
      label: { errorType: ERROR_TYPE_OF[cand.kind], opId, source: 'counterfactual', key: cand.key },
      candidates,
    };
  }
  return { drop: 'no-single-repair', candidates };
}

/** The counterfactual label of a failed question, or null when no single repair rescues it. */
export async function counterfactualLabel(
  ctx: LabelContext,
  q: Question,
  events: EvidenceEvent[],
): Promise<Label | null> {
  return (await labelFailure(ctx, q, events)).label ?? null;
}

/**
 * Re-checks a label by rerunning: unrepaired the answer is wrong, with the labelled op
 * repaired it is right, and repairing any earlier faulty op instead does not save it.
 * Returns the first check that fails, or null.
 */
export async function verifyLabel(
  ctx: LabelContext,
  q: Question,
  label: Label,
  candidates: EvidenceEvent[],
): Promise<string | null> {
  if ((await rerun(ctx, q)).answers[0]?.correct !== false) return 'the unrepaired rerun is not wrong';
  if (!(await rerun(ctx, q, label.key)).answers[0]?.correct) return `repairing ${label.key} does not save it`;
  for (const c of candidates) {
    if (c.key === label.key) break;
    if ((await rerun(ctx, q, c.key)).answers[0]?.correct) return `repairing the earlier ${c.key} saves it`;
  }
  return null;
}

/** A MemTraceBench annotation for one labelled question. */
export function annotationOf(
  conv: Conversation,
  q: Question,
  answer: AnswerRecord,
  label: Label,
): Annotation {
  return {
    query_id: answer.queryVar.fullNodeId,
    query: q.question,
    golden_answers: q.answers,
    prediction: answer.prediction,
    source_evidence_ids: evidenceOf(conv, q).map((e) => `${conv.id}:${e}@1`),
    final_error_type: label.errorType,
    final_op_id: label.opId,
    label_source: label.source,
  };
}

/** Units tried one by one before falling back to corrupting every unit that carries the evidence. */
const MAX_FAULT_UNITS = 6;

export interface InjectionResult {
  result: RunResult;
  answer: AnswerRecord;
  annotation: Annotation;
  /** The one memory unit a store fault corrupted (undefined: every unit carrying the evidence, or not a store fault). */
  faultUnit?: number;
}

/**
 * Reruns a correctly answered question with one fault injected, tracing into `tracer`.
 * Returns null when the fault has no place to go or the answer survives it.
 */
export async function injectFault(
  ctx: LabelContext,
  q: Question,
  kind: FaultKind,
  tracer: Tracer,
): Promise<InjectionResult | null> {
  const evidence = evidenceOf(ctx.conversation, q);
  if (evidence.length === 0) return null;
  const run = (t: Tracer, faultUnit?: number) =>
    runSystem(ctx.makeSystem(), ctx.conversation, {
      tracer: t,
      llm: ctx.llm,
      judge: ctx.judge,
      maxSessions: ctx.maxSessions,
      answerOnly: [q.id],
      memories: ctx.memories,
      judgeRule: ctx.judgeRule,
      intervention: {
        questionId: q.id,
        evidence,
        fault: kind,
        answers: q.answers,
        faultUnit,
        carrying: ctx.carrying,
      },
    });
  // A store fault corrupts one memory unit: the first whose corruption alone breaks the
  // answer, so the label is a single faulty op, as the paper assumes.
  let faultUnit: number | undefined;
  if (kind === 'update' || kind === 'deletion') {
    for (let u = 0; u < MAX_FAULT_UNITS; u++) {
      const probe = await run(quietTracer(), u);
      if (!probe.faultOpId) break;
      if (probe.answers[0] && !probe.answers[0].correct) {
        faultUnit = u;
        break;
      }
    }
  }
  const result = await run(tracer, faultUnit);
  const answer = result.answers[0];
  if (!answer || !result.faultOpId || answer.correct) return null;
  const label: Label = {
    errorType: ERROR_TYPE_OF[kind],
    opId: result.faultOpId,
    source: 'fault-injection',
    key: '',
  };
  return { result, answer, annotation: annotationOf(ctx.conversation, q, answer, label), faultUnit };
}
