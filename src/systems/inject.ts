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
import type { Annotation } from '../core/trace/types.ts';
import type { GraphSink } from '../sdk/sink.ts';
import { Tracer } from '../sdk/tracer.ts';
import { ERROR_TYPE_OF, type EvidenceEvent, type FaultKind, type Intervention } from './env.ts';
import type { SystemLLM } from './llm.ts';
import { type RunResult, runSystem } from './run.ts';
import type { AnswerRecord, MemorySystem } from './system.ts';
import type { Conversation, Question } from './types.ts';

/** A sink that keeps nothing (reruns only need the answers). */
export class NullSink implements GraphSink {
  add(): void {}
  close(): void {}
}

/** A tracer for reruns: nothing written, no hashing or value encoding. */
export function quietTracer(): Tracer {
  return new Tracer({ sink: new NullSink(), encode: () => '', sha1: () => '0', ids: () => '0' });
}

export interface LabelContext {
  makeSystem: () => MemorySystem;
  conversation: Conversation;
  llm?: SystemLLM;
  judge?: 'offline' | 'llm';
  maxSessions?: number;
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

async function rerun(ctx: LabelContext, q: Question, intervention: Intervention): Promise<RunResult> {
  return runSystem(ctx.makeSystem(), ctx.conversation, {
    tracer: quietTracer(),
    llm: ctx.llm,
    judge: ctx.judge,
    maxSessions: ctx.maxSessions,
    answerOnly: [q.id],
    intervention,
  });
}

/** The counterfactual label of a failed question, or null when no single repair rescues it. */
export async function counterfactualLabel(
  ctx: LabelContext,
  q: Question,
  events: EvidenceEvent[],
): Promise<Label | null> {
  const evidence = evidenceOf(ctx.conversation, q);
  if (evidence.length === 0) return null;
  for (const cand of faultyCandidates(events, q, evidence)) {
    const r = await rerun(ctx, q, { questionId: q.id, evidence, repairFrom: cand.key, answers: q.answers });
    if (r.answers[0]?.correct)
      return {
        errorType: ERROR_TYPE_OF[cand.kind],
        opId: cand.opId,
        source: 'counterfactual',
        key: cand.key,
      };
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
      intervention: { questionId: q.id, evidence, fault: kind, answers: q.answers, faultUnit },
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
  return { result, answer, annotation: annotationOf(ctx.conversation, q, answer, label) };
}
