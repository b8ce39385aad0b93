/**
 * Fault-injected benchmark generation for one system over conversations, in
 * MemTraceBench's layout (`<split>/<graph>.json`, `data.annotations`):
 * - one base graph per conversation: every question answered, up to N ordinary failures
 *   labelled by counterfactual repair;
 * - one graph per injected fault: a question answered correctly in the base run, rerun with
 *   the fault (construction kept to the evidence's sessions plus one, when the clean rerun of
 *   that shorter history still answers correctly), labelled by the injected op.
 */

import { maxOf } from '../core/arrays.ts';
import type { TraceDocument } from '../core/trace/index.ts';
import { Tracer, type TracerOptions } from '../sdk/tracer.ts';
import { FAULT_KINDS, type FaultKind } from './env.ts';
import { createSystem } from './factory.ts';
import {
  annotationOf,
  counterfactualLabel,
  evidenceOf,
  injectFault,
  type LabelContext,
  quietTracer,
} from './inject.ts';
import type { SystemLLM } from './llm.ts';
import { runSystem } from './run.ts';
import { SPLIT_OF, type SystemName } from './system.ts';
import type { Conversation, DatasetName, Question } from './types.ts';

export interface BenchmarkOptions {
  system: SystemName;
  dataset: DatasetName;
  conversations: Conversation[];
  /** Injected faults wanted per type (over all conversations). */
  perType: number;
  /** Ordinary failures labelled by counterfactual repair per conversation. */
  naturalPerConversation: number;
  kinds?: readonly FaultKind[];
  llm?: SystemLLM;
  judge?: 'offline' | 'llm';
  maxSessions?: number;
  /** Clock, ids… of the traced runs. */
  tracerOptions?: () => TracerOptions;
  write: (relativePath: string, doc: TraceDocument) => void | Promise<void>;
  onProgress?: (message: string) => void;
}

export interface BenchmarkSummary {
  system: SystemName;
  split: string;
  dataset: DatasetName;
  graphs: number;
  injected: Record<string, number>;
  counterfactual: Record<string, number>;
  /** Failures no single repair rescued (not annotated). */
  unresolved: number;
  /** Injection attempts where the answer survived the fault or the fault had no place. */
  survived: number;
  /** Questions the base runs answered correctly: faults are planted only into those. */
  correct: number;
}

function sessionOfTurn(conv: Conversation): Map<string, number> {
  return new Map(conv.sessions.flatMap((s) => s.turns.map((t) => [t.id, s.index] as const)));
}

/** Generates one system's benchmark: base graphs with counterfactual labels, then injected faults. */
export async function generateBenchmark(o: BenchmarkOptions): Promise<BenchmarkSummary> {
  const run = new FaultBenchRun(o);
  const correctByConv = new Map<Conversation, Question[]>();
  for (const conv of o.conversations) correctByConv.set(conv, await run.baseGraph(conv));

  // Injected faults: two passes, the first spreading cases over conversations.
  const cap = Math.max(2, Math.ceil(o.perType / Math.max(1, o.conversations.length)) + 1);
  for (const pass of [1, 2]) {
    for (const conv of o.conversations)
      await run.injectInto(conv, correctByConv.get(conv) ?? [], pass === 1 ? cap : Number.POSITIVE_INFINITY);
    if (run.kinds.every((k) => run.summary.injected[k] >= o.perType)) break;
  }
  return run.summary;
}

/** One system's generation: its options and the summary its graphs are counted into. */
class FaultBenchRun {
  readonly summary: BenchmarkSummary;
  readonly kinds: readonly FaultKind[];
  private readonly split: string;
  private readonly say: (message: string) => void;
  /** Per conversation/question: does the shorter history answer correctly; per file: false when its fault had no effect. */
  private readonly usable = new Map<string, boolean>();

  constructor(private readonly o: BenchmarkOptions) {
    this.split = SPLIT_OF[o.system];
    this.kinds = o.kinds ?? FAULT_KINDS;
    this.summary = {
      system: o.system,
      split: this.split,
      dataset: o.dataset,
      graphs: 0,
      injected: Object.fromEntries(this.kinds.map((k) => [k, 0])),
      counterfactual: {},
      unresolved: 0,
      survived: 0,
      correct: 0,
    };
    this.say = o.onProgress ?? (() => {});
  }

  /** The base graph of a conversation with up to N failures labelled; returns the questions answered correctly. */
  async baseGraph(conv: Conversation): Promise<Question[]> {
    const { o, summary, split } = this;
    const file = `${conv.id}-base.json`;
    const tracer = this.tracerFor(conv, file);
    const ctx: LabelContext = {
      makeSystem: () => createSystem(o.system),
      conversation: conv,
      llm: o.llm,
      judge: o.judge,
      maxSessions: o.maxSessions,
    };
    const base = await runSystem(createSystem(o.system), conv, {
      tracer,
      llm: o.llm,
      judge: o.judge,
      maxSessions: o.maxSessions,
    });
    const byId = new Map(conv.questions.map((q) => [q.id, q]));
    const correct = base.answers.filter((a) => a.correct).map((a) => byId.get(a.questionId)!);
    summary.correct += correct.length;
    let labelled = 0;
    for (const a of base.answers) {
      if (a.correct || labelled >= o.naturalPerConversation) continue;
      const q = byId.get(a.questionId)!;
      const label = await counterfactualLabel(ctx, q, base.events);
      if (!label) {
        summary.unresolved++;
        continue;
      }
      tracer.annotate(annotationOf(conv, q, a, label));
      summary.counterfactual[label.errorType] = (summary.counterfactual[label.errorType] ?? 0) + 1;
      labelled++;
    }
    await o.write(`${split}/${file}`, tracer.document());
    summary.graphs++;
    this.say(
      `${split}/${file}: ${base.answers.filter((a) => a.correct).length}/${base.answers.length} correct, ${labelled} counterfactual labels`,
    );
    return correct;
  }

  /** Injects faults into the conversation's correct questions, at most `cap` per kind, while a kind is short. */
  async injectInto(conv: Conversation, questions: Question[], cap: number) {
    const perConv: Record<string, number> = {};
    const turnSession = sessionOfTurn(conv);
    for (const q of questions) {
      for (const kind of this.kinds) {
        if (this.summary.injected[kind] >= this.o.perType) continue;
        if ((perConv[kind] ?? 0) >= cap) continue;
        if (await this.injectOne(conv, q, kind, turnSession)) perConv[kind] = (perConv[kind] ?? 0) + 1;
      }
    }
  }

  /** One injected fault's graph, written when the fault changed the answer; true then. */
  private async injectOne(
    conv: Conversation,
    q: Question,
    kind: FaultKind,
    turnSession: Map<string, number>,
  ): Promise<boolean> {
    const { o, summary, split, usable } = this;
    const file = `${conv.id}-${kind}-${q.id}.json`;
    if (usable.get(`${file}`) === false) return false;
    const evidence = evidenceOf(conv, q);
    if (!evidence.length) return false;
    const last = maxOf(evidence.map((e) => turnSession.get(e) ?? conv.sessions.length));
    const ctx: LabelContext = {
      makeSystem: () => createSystem(o.system),
      conversation: conv,
      llm: o.llm,
      judge: o.judge,
      maxSessions: Math.min(o.maxSessions ?? Number.POSITIVE_INFINITY, last + 1, conv.sessions.length),
    };
    if (!(await this.stillCorrect(ctx, q))) return false;
    const tracer = this.tracerFor(conv, file);
    const r = await injectFault(ctx, q, kind, tracer);
    if (!r) {
      usable.set(file, false);
      summary.survived++;
      return false;
    }
    tracer.annotate(r.annotation);
    await o.write(`${split}/${file}`, tracer.document());
    summary.graphs++;
    summary.injected[kind]++;
    this.say(`${split}/${file}: ${r.annotation.final_error_type} injected`);
    return true;
  }

  /** The shorter history must still answer correctly without the fault (run once per question). */
  private async stillCorrect(ctx: LabelContext, q: Question): Promise<boolean> {
    const key = `${ctx.conversation.id}/${q.id}`;
    if (!this.usable.has(key)) {
      const clean = await runSystem(ctx.makeSystem(), ctx.conversation, {
        tracer: quietTracer(),
        llm: this.o.llm,
        judge: this.o.judge,
        maxSessions: ctx.maxSessions,
        answerOnly: [q.id],
      });
      this.usable.set(key, clean.answers[0]?.correct === true);
    }
    return this.usable.get(key) === true;
  }

  private tracerFor(conv: Conversation, file: string): Tracer {
    const { o } = this;
    return new Tracer({
      ...(o.tracerOptions?.() ?? {}),
      filename: `memtrace-${o.system}`,
      metadata: {
        memtracebench_graph_filename: file,
        system: this.split,
        dataset: o.dataset,
        conversation: conv.id,
        mode: o.llm ? 'llm' : 'offline',
        llm_model: o.llm ? o.llm.model : 'offline-deterministic',
      },
    });
  }
}
