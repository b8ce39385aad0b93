/**
 * The benchmark of LLM-written memories: the memory shapes (fact store, session summaries,
 * untraced vector store) replay the data sets' recorded LLM texts, every failed question is
 * labelled by counterfactual repair with judged carrying (`labelFailure`, `CarryRule`) or
 * dropped with a reason, and injected faults (`injectFault`) fill each error type up to a
 * minimum. An injected case is kept only when counterfactual repair of the faulty run labels
 * the injected op itself (no earlier natural fault is decisive). Written in MemTraceBench's
 * layout (`<split>/<graph>.json`, `data.annotations`) with a summary of counts and drop reasons
 * and a dev / held-out manifest.
 */

import { appendAll, maxOf } from '../core/arrays.ts';
import type { Annotation, TraceDocument } from '../core/trace/index.ts';
import { Tracer, type TracerOptions } from '../sdk/tracer.ts';
import { ERROR_TYPE_OF, type EvidenceEvent, FAULT_KINDS, type FaultKind } from './env.ts';
import { createShape } from './factory.ts';
import {
  annotationOf,
  DROP_REASONS,
  type DropReason,
  evidenceOf,
  injectFault,
  type Label,
  type LabelContext,
  labelFailure,
  quietTracer,
  verifyLabel,
} from './inject.ts';
import type { JudgeRule } from './judge-rules.ts';
import { runSystem } from './run.ts';
import { SHAPE_NAMES, type ShapeName } from './system.ts';
import type { Conversation, DatasetName, Question } from './types.ts';

/** MemTraceBench split folder of each shape. */
export const SHAPE_SPLIT: Record<ShapeName, string> = {
  'fact-store': 'fact_store',
  'session-summary': 'session_summary',
  'vector-store': 'vector_store',
  'per-user-store': 'per_user_store',
};

export const ERROR_TYPES = FAULT_KINDS.map((k) => ERROR_TYPE_OF[k]);

export interface LlmBenchPart {
  shape: ShapeName;
  dataset: DatasetName;
  conversations: Conversation[];
}

/**
 * The benchmark's shapes and data: every shape on both data sets, but summaries only on LoCoMo
 * (RealMem has none recorded).
 */
export function defaultLlmBenchParts(
  locomo: Conversation[],
  realmem: Conversation[],
  shapes: readonly ShapeName[] = SHAPE_NAMES,
): LlmBenchPart[] {
  const parts: LlmBenchPart[] = [];
  for (const shape of shapes) {
    if (locomo.length) parts.push({ shape, dataset: 'locomo', conversations: locomo });
    if (realmem.length && shape !== 'session-summary')
      parts.push({ shape, dataset: 'realmem', conversations: realmem });
  }
  return parts;
}

export interface LlmBenchOptions {
  parts: LlmBenchPart[];
  /** Conversation ids whose graphs form the held-out split. */
  heldout: readonly string[];
  /** Cases wanted of every error type over the whole benchmark (injected faults fill the gap). */
  minPerType: number;
  /** Rerun every label's checks once more (`verifyLabel`); off = the search's own reruns only. */
  verify?: boolean;
  /** The judge's rule of every run, which is also the carrying rule of the labels (default `offline`). */
  judgeRule?: JudgeRule;
  tracerOptions?: () => TracerOptions;
  write: (relativePath: string, doc: TraceDocument) => void | Promise<void>;
  onProgress?: (message: string) => void;
}

type Counts = Record<string, number>;
const zero = (keys: readonly string[]): Counts => Object.fromEntries(keys.map((k) => [k, 0]));

export interface ShapeCounts {
  split: string;
  graphs: number;
  questions: number;
  failed: number;
  natural: Counts;
  injected: Counts;
  drops: Counts;
}

export interface ManifestEntry {
  file: string;
  split: string;
  dataset: DatasetName;
  conversation: string;
  part: 'dev' | 'heldout';
  cases: number;
}

export interface LlmBenchSummary {
  kind: 'llm-memories';
  memories: 'recorded';
  carrying: 'judge';
  /** The judge's rule (the carrying rule of the labels). */
  judgeRule: JudgeRule;
  graphs: number;
  cases: number;
  /** Per error type over the whole benchmark. */
  natural: Counts;
  injected: Counts;
  total: Counts;
  minPerType: number;
  meetsMinimum: boolean;
  /** Failed questions not labelled, by reason. */
  drops: Counts;
  /** Injection attempts: the answer survived the fault or the fault had no place / an earlier natural fault was decisive. */
  injection: { tried: number; survived: number; earlierFault: number };
  verified: number;
  byShape: Record<string, ShapeCounts>;
  heldout: { conversations: string[]; graphs: number; cases: number };
  manifest: ManifestEntry[];
}

interface Correct {
  part: LlmBenchPart;
  conv: Conversation;
  q: Question;
}

function lastEvidenceSession(conv: Conversation, q: Question): number {
  const at = new Map(conv.sessions.flatMap((s) => s.turns.map((t) => [t.id, s.index] as const)));
  return maxOf(evidenceOf(conv, q).map((e) => at.get(e) ?? conv.sessions.length));
}

/** Generates the benchmark: base graphs with their natural failures labelled, then injected faults up to the minimum. */
export async function generateLlmBenchmark(o: LlmBenchOptions): Promise<LlmBenchSummary> {
  const run = new LlmBenchRun(o);
  const correct: Correct[] = [];
  // Natural failures: one graph per shape and conversation, every exact label annotated.
  for (const part of o.parts)
    for (const conv of part.conversations) appendAll(correct, await run.baseGraph(part, conv));
  // Injected faults, only for the types short of the minimum, spread over shapes and conversations.
  const order = spread(correct);
  for (const kind of FAULT_KINDS) {
    for (const c of order) {
      if (run.need(kind) <= 0) break;
      await run.inject(kind, c);
    }
  }
  const { summary } = run;
  for (const t of ERROR_TYPES) summary.total[t] = summary.natural[t] + summary.injected[t];
  summary.meetsMinimum = ERROR_TYPES.every((t) => summary.total[t] >= o.minPerType);
  return summary;
}

function emptySummary(o: LlmBenchOptions, judgeRule: JudgeRule): LlmBenchSummary {
  return {
    kind: 'llm-memories',
    memories: 'recorded',
    carrying: 'judge',
    judgeRule,
    graphs: 0,
    cases: 0,
    natural: zero(ERROR_TYPES),
    injected: zero(ERROR_TYPES),
    total: zero(ERROR_TYPES),
    minPerType: o.minPerType,
    meetsMinimum: false,
    drops: zero(DROP_REASONS),
    injection: { tried: 0, survived: 0, earlierFault: 0 },
    verified: 0,
    byShape: {},
    heldout: { conversations: [...o.heldout], graphs: 0, cases: 0 },
    manifest: [],
  };
}

/** One generation: its options and the summary its graphs are counted into. */
class LlmBenchRun {
  readonly summary: LlmBenchSummary;
  private readonly judgeRule: JudgeRule;
  private readonly say: (message: string) => void;
  /** Per shape, conversation and question: does the shorter history still answer correctly? */
  private readonly usable = new Map<string, boolean>();

  constructor(private readonly o: LlmBenchOptions) {
    this.say = o.onProgress ?? (() => {});
    this.judgeRule = o.judgeRule ?? 'offline';
    this.summary = emptySummary(o, this.judgeRule);
  }

  /** Cases still wanted of the kind's error type. */
  need(kind: FaultKind): number {
    const type = ERROR_TYPE_OF[kind];
    return this.o.minPerType - this.summary.natural[type] - this.summary.injected[type];
  }

  /** The base graph of a shape on a conversation, its failures labelled; returns the questions it answered correctly. */
  async baseGraph(part: LlmBenchPart, conv: Conversation): Promise<Correct[]> {
    const { summary } = this;
    const counts = this.shapeCounts(part);
    const file = `${conv.id}-base.json`;
    const tracer = this.tracerFor(part, conv, file);
    const ctx = this.contextOf(part, conv);
    const base = await runSystem(createShape(part.shape), conv, {
      tracer,
      memories: 'recorded',
      judgeRule: this.judgeRule,
    });
    const byId = new Map(conv.questions.map((q) => [q.id, q]));
    const correct: Correct[] = [];
    let labelled = 0;
    counts.questions += base.answers.length;
    const right = base.answers.filter((a) => a.correct).length;
    for (const a of base.answers) {
      const q = byId.get(a.questionId)!;
      if (a.correct) {
        correct.push({ part, conv, q });
        continue;
      }
      counts.failed++;
      const outcome = await labelFailure(ctx, q, base.events);
      if (!outcome.label) {
        summary.drops[outcome.drop]++;
        counts.drops[outcome.drop]++;
        continue;
      }
      await this.verify(ctx, q, outcome.label, outcome.candidates);
      tracer.annotate(annotationOf(conv, q, a, outcome.label));
      summary.natural[outcome.label.errorType]++;
      counts.natural[outcome.label.errorType]++;
      labelled++;
    }
    await this.write(part, conv, file, tracer.document(), labelled);
    this.say(
      `${SHAPE_SPLIT[part.shape]}/${file}: ${right}/${base.answers.length} correct, ${labelled} failures labelled`,
    );
    return correct;
  }

  /** Injects a fault of the kind into a correctly answered question; the graph is kept when its label is exact. */
  async inject(kind: FaultKind, { part, conv, q }: Correct) {
    const { summary } = this;
    if (evidenceOf(conv, q).length === 0) return;
    const maxSessions = Math.min(lastEvidenceSession(conv, q) + 1, conv.sessions.length);
    const ctx = this.contextOf(part, conv, maxSessions);
    if (!(await this.stillCorrect(part, conv, q, maxSessions))) return;
    summary.injection.tried++;
    const file = `${conv.id}-${kind}-${q.id}.json`;
    const tracer = this.tracerFor(part, conv, file);
    const r = await injectFault(ctx, q, kind, tracer);
    if (!r) {
      summary.injection.survived++;
      return;
    }
    // Exact only if counterfactual repair of the faulty run points at the injected op.
    const faulty: LabelContext = { ...ctx, fault: { fault: kind, faultUnit: r.faultUnit } };
    const check = await labelFailure(faulty, q, r.result.events);
    if (check.label?.opId !== r.annotation.final_op_id) {
      summary.injection.earlierFault++;
      return;
    }
    await this.verify(faulty, q, check.label, check.candidates);
    tracer.annotate(r.annotation as Annotation);
    const type = ERROR_TYPE_OF[kind];
    summary.injected[type]++;
    this.shapeCounts(part).injected[type]++;
    await this.write(part, conv, file, tracer.document(), 1);
    this.say(`${SHAPE_SPLIT[part.shape]}/${file}: ${type} injected`);
  }

  /** Does the history up to `maxSessions` still answer `q` correctly without a fault? Run once per question. */
  private async stillCorrect(part: LlmBenchPart, conv: Conversation, q: Question, maxSessions: number) {
    const key = `${part.shape}/${conv.id}/${q.id}`;
    if (!this.usable.has(key)) {
      const clean = await runSystem(createShape(part.shape), conv, {
        tracer: quietTracer(),
        memories: 'recorded',
        judgeRule: this.judgeRule,
        maxSessions,
        answerOnly: [q.id],
      });
      this.usable.set(key, clean.answers[0]?.correct === true);
    }
    return this.usable.get(key) === true;
  }

  private shapeCounts(part: LlmBenchPart): ShapeCounts {
    const split = SHAPE_SPLIT[part.shape];
    this.summary.byShape[split] ??= {
      split,
      graphs: 0,
      questions: 0,
      failed: 0,
      natural: zero(ERROR_TYPES),
      injected: zero(ERROR_TYPES),
      drops: zero(DROP_REASONS),
    };
    return this.summary.byShape[split];
  }

  private tracerFor(part: LlmBenchPart, conv: Conversation, file: string): Tracer {
    return new Tracer({
      ...(this.o.tracerOptions?.() ?? {}),
      filename: `memtrace-${part.shape}`,
      metadata: {
        memtracebench_graph_filename: file,
        system: SHAPE_SPLIT[part.shape],
        dataset: part.dataset,
        conversation: conv.id,
        mode: 'recorded-memories',
        llm_model: 'recorded',
      },
    });
  }

  private contextOf(part: LlmBenchPart, conv: Conversation, maxSessions?: number): LabelContext {
    return {
      makeSystem: () => createShape(part.shape),
      conversation: conv,
      memories: 'recorded',
      carrying: 'judge',
      judgeRule: this.judgeRule,
      maxSessions,
    };
  }

  /** Writes one graph and counts it (manifest, shape, held-out part). */
  private async write(
    part: LlmBenchPart,
    conv: Conversation,
    file: string,
    doc: TraceDocument,
    cases: number,
  ) {
    const { summary } = this;
    const split = SHAPE_SPLIT[part.shape];
    await this.o.write(`${split}/${file}`, doc);
    const heldout = this.o.heldout.includes(conv.id);
    summary.manifest.push({
      file: `${split}/${file}`,
      split,
      dataset: part.dataset,
      conversation: conv.id,
      part: heldout ? 'heldout' : 'dev',
      cases,
    });
    summary.graphs++;
    summary.cases += cases;
    this.shapeCounts(part).graphs++;
    if (heldout) {
      summary.heldout.graphs++;
      summary.heldout.cases += cases;
    }
  }

  private async verify(ctx: LabelContext, q: Question, label: Label, candidates: EvidenceEvent[]) {
    if (!this.o.verify) return;
    const problem = await verifyLabel(ctx, q, label, candidates);
    if (problem) throw new Error(`label of ${q.id} failed verification: ${problem}`);
    this.summary.verified++;
  }
}

/** Correct questions interleaved over shapes and conversations (round robin), so injections spread. */
function spread(items: Correct[]): Correct[] {
  const groups = new Map<string, Correct[]>();
  for (const c of items) {
    const k = `${c.part.shape}/${c.conv.id}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const lists = [...groups.values()];
  const out: Correct[] = [];
  for (let i = 0; out.length < items.length; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

export type { DropReason };
