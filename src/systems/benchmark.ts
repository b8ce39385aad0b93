/**
 * Fault-injected benchmark generation for one system over conversations, in
 * MemTraceBench's layout (`<split>/<graph>.json`, `data.annotations`):
 * - one base graph per conversation: every question answered, up to N ordinary failures
 *   labelled by counterfactual repair;
 * - one graph per injected fault: a question answered correctly in the base run, rerun with
 *   the fault (construction kept to the evidence's sessions plus one, when the clean rerun of
 *   that shorter history still answers correctly), labelled by the injected op.
 */
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

export async function generateBenchmark(o: BenchmarkOptions): Promise<BenchmarkSummary> {
  const split = SPLIT_OF[o.system];
  const kinds = o.kinds ?? FAULT_KINDS;
  const summary: BenchmarkSummary = {
    system: o.system,
    split,
    dataset: o.dataset,
    graphs: 0,
    injected: Object.fromEntries(kinds.map((k) => [k, 0])),
    counterfactual: {},
    unresolved: 0,
    survived: 0,
    correct: 0,
  };
  const say = o.onProgress ?? (() => {});
  const tracerFor = (conv: Conversation, file: string) =>
    new Tracer({
      ...(o.tracerOptions?.() ?? {}),
      filename: `memtrace-${o.system}`,
      metadata: {
        memtracebench_graph_filename: file,
        system: split,
        dataset: o.dataset,
        conversation: conv.id,
        mode: o.llm ? 'llm' : 'offline',
        llm_model: o.llm ? o.llm.model : 'offline-deterministic',
      },
    });
  const correctByConv = new Map<Conversation, Question[]>();

  // Base graphs and counterfactual labels.
  for (const conv of o.conversations) {
    const file = `${conv.id}-base.json`;
    const tracer = tracerFor(conv, file);
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
    correctByConv.set(
      conv,
      base.answers.filter((a) => a.correct).map((a) => byId.get(a.questionId)!),
    );
    summary.correct += correctByConv.get(conv)!.length;
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
    say(
      `${split}/${file}: ${base.answers.filter((a) => a.correct).length}/${base.answers.length} correct, ${labelled} counterfactual labels`,
    );
  }

  // Injected faults: two passes, the first spreading cases over conversations.
  const cap = Math.max(2, Math.ceil(o.perType / Math.max(1, o.conversations.length)) + 1);
  const usable = new Map<string, boolean>();
  for (const pass of [1, 2]) {
    for (const conv of o.conversations) {
      const perConv: Record<string, number> = {};
      const turnSession = sessionOfTurn(conv);
      for (const q of correctByConv.get(conv) ?? []) {
        for (const kind of kinds) {
          if (summary.injected[kind] >= o.perType) continue;
          if (pass === 1 && (perConv[kind] ?? 0) >= cap) continue;
          const file = `${conv.id}-${kind}-${q.id}.json`;
          if (usable.get(`${file}`) === false) continue;
          const evidence = evidenceOf(conv, q);
          if (!evidence.length) continue;
          const last = Math.max(...evidence.map((e) => turnSession.get(e) ?? conv.sessions.length));
          const ctx: LabelContext = {
            makeSystem: () => createSystem(o.system),
            conversation: conv,
            llm: o.llm,
            judge: o.judge,
            maxSessions: Math.min(o.maxSessions ?? Number.POSITIVE_INFINITY, last + 1, conv.sessions.length),
          };
          // The shorter history must still answer correctly without the fault.
          const key = `${conv.id}/${q.id}`;
          if (!usable.has(key)) {
            const clean = await runSystem(ctx.makeSystem(), conv, {
              tracer: quietTracer(),
              llm: o.llm,
              judge: o.judge,
              maxSessions: ctx.maxSessions,
              answerOnly: [q.id],
            });
            usable.set(key, clean.answers[0]?.correct === true);
          }
          if (!usable.get(key)) continue;
          const tracer = tracerFor(conv, file);
          const r = await injectFault(ctx, q, kind, tracer);
          if (!r) {
            usable.set(file, false);
            summary.survived++;
            continue;
          }
          tracer.annotate(r.annotation);
          await o.write(`${split}/${file}`, tracer.document());
          summary.graphs++;
          summary.injected[kind]++;
          perConv[kind] = (perConv[kind] ?? 0) + 1;
          say(`${split}/${file}: ${r.annotation.final_error_type} injected`);
        }
      }
    }
    if (kinds.every((k) => summary.injected[k] >= o.perType)) break;
  }
  return summary;
}
