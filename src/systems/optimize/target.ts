/**
 * What the loop optimises: a traced memory system that runs a conversation with a given
 * prompt registry and models, and returns its execution graph and judged answers. The
 * reference systems (src/systems) are one target; the mem0ai wrapper is another.
 */
import type { TraceDocument } from '../../core/trace/index.ts';
import { Tracer } from '../../sdk/tracer.ts';
import { createSystem } from '../factory.ts';
import type { SystemLLM } from '../llm.ts';
import { DEFAULT_PROMPTS, type PromptRegistry } from '../prompts.ts';
import { runSystem } from '../run.ts';
import { type MemorySystem, SPLIT_OF, type SystemName } from '../system.ts';
import type { Conversation } from '../types.ts';

export interface TargetRun {
  doc: TraceDocument;
  answers: { questionId: string; correct: boolean }[];
}

export interface TargetRunOptions {
  prompts: PromptRegistry;
  qa: SystemLLM;
  judge: SystemLLM;
  questionIds: string[];
  maxSessions?: number;
  signal?: AbortSignal;
}

export interface OptimizeTarget {
  /** `mem0`, `rag`, … or `mem0ai`. */
  readonly name: string;
  /** The prompts the target reads, by the variable names its traces give them. */
  readonly prompts: PromptRegistry;
  run(conv: Conversation, o: TargetRunOptions): Promise<TargetRun>;
}

/** Prompts each reference system reads (the judge's prompt is not the system's to change). */
const SYSTEM_PROMPTS: Record<SystemName, string[]> = {
  mem0: ['fact-extraction-system-prompt', 'memory-update-decision-prompt', 'question-answering-prompt'],
  rag: ['question-answering-prompt'],
  'long-context': ['question-answering-prompt'],
  evermemos: [
    'boundary-detection-prompt',
    'episode-generation-prompt',
    'sufficiency-check-prompt',
    'query-rewrite-prompt',
    'question-answering-prompt',
  ],
};

/** A reference system in LLM mode. */
export function referenceTarget(system: SystemName): OptimizeTarget {
  return {
    name: system,
    prompts: Object.fromEntries(SYSTEM_PROMPTS[system].map((n) => [n, DEFAULT_PROMPTS[n]])),
    async run(conv, o) {
      const tracer = new Tracer({
        filename: `memtrace-${system}`,
        metadata: { system: SPLIT_OF[system], conversation: conv.id, mode: 'llm', llm_model: o.qa.model },
      });
      return runTraced(createSystem(system), conv, tracer, o);
    },
  };
}

/** Runs a system over a conversation with the loop's prompts and models, traced into `tracer`. */
export async function runTraced(
  system: MemorySystem,
  conv: Conversation,
  tracer: Tracer,
  o: TargetRunOptions,
): Promise<TargetRun> {
  const r = await runSystem(system, conv, {
    tracer,
    llm: o.qa,
    judgeLlm: o.judge,
    prompts: o.prompts,
    questionIds: o.questionIds,
    maxSessions: o.maxSessions,
    signal: o.signal,
  });
  return {
    doc: tracer.document(),
    answers: r.answers.map((a) => ({ questionId: a.questionId, correct: a.correct })),
  };
}
