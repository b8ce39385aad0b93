/** Runs a memory system over one conversation: sessions in order, questions at their point in time. */
import type { Tracer } from '../sdk/tracer.ts';
import { type EvidenceEvent, type Intervention, type MemoriesMode, RunEnv } from './env.ts';
import type { JudgeRule } from './judge-rules.ts';
import type { SystemLLM } from './llm.ts';
import type { PromptRegistry } from './prompts.ts';
import type { AnswerRecord, MemorySystem } from './system.ts';
import type { Conversation } from './types.ts';

export interface RunOptions {
  tracer: Tracer;
  /** The model; absent = offline mode (deterministic components only). */
  llm?: SystemLLM;
  /** The LLM judge's model when it is not `llm` (models per role). */
  judgeLlm?: SystemLLM;
  /** Default: 'llm' with a model, 'offline' without. */
  judge?: 'offline' | 'llm';
  prompts?: PromptRegistry;
  intervention?: Intervention;
  /** `recorded`: extraction / summarisation ops replay the data set's LLM-written texts (default `offline`). */
  memories?: MemoriesMode;
  /** The offline judge's rule (default `offline`); with judged carrying also the carrying rule. */
  judgeRule?: JudgeRule;
  /** Answer only these questions (and stop construction once they are answered). */
  questionIds?: string[];
  /**
   * Answer only these questions, but keep every question batch's side effects (buffers
   * flushed before questions), so construction is the same as in a run answering all.
   */
  answerOnly?: string[];
  /** Use only the first N sessions (questions asked later are answered after them). */
  maxSessions?: number;
  /**
   * Called after each session added and each question answered (with its record); awaited,
   * so a host can yield to its event loop there (a worker taking a cancel message) by returning a promise.
   */
  onProgress?: (done: number, total: number, label: string, answer?: AnswerRecord) => unknown;
  /** Checked before each session and each question: an aborted run throws its reason. */
  signal?: AbortSignal;
}

export interface RunResult {
  answers: AnswerRecord[];
  events: EvidenceEvent[];
  faultOpId: string | null;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
}

export async function runSystem(system: MemorySystem, conv: Conversation, o: RunOptions): Promise<RunResult> {
  const env = new RunEnv({
    tracer: o.tracer,
    conversation: conv,
    llm: o.llm,
    judgeLlm: o.judgeLlm,
    prompts: o.prompts,
    intervention: o.intervention,
    memories: o.memories,
    judgeRule: o.judgeRule,
  });
  const judgeWith = o.judge ?? (o.llm || o.judgeLlm ? 'llm' : 'offline');
  const S = Math.min(conv.sessions.length, o.maxSessions ?? Number.POSITIVE_INFINITY);
  const wanted = o.questionIds ? new Set(o.questionIds) : null;
  const questions = conv.questions
    .filter((q) => !wanted || wanted.has(q.id))
    .map((q) => ({ ...q, askedBefore: Math.min(q.askedBefore, S + 1) }));
  const only = o.answerOnly ? new Set(o.answerOnly) : null;
  const lastNeeded = questions
    .filter((q) => !only || only.has(q.id))
    .reduce((m, q) => Math.max(m, q.askedBefore), 0);
  const answers: AnswerRecord[] = [];
  const total = S + questions.length;
  let done = 0;
  const evidence = o.intervention?.evidence ?? [];

  const maybeInjectStore = () => {
    for (const kind of ['update', 'deletion'] as const) {
      if (!env.injecting(kind) || evidence.length === 0) continue;
      const carried = system.carriedTurns();
      if (evidence.every((e) => carried.has(e))) system.injectStoreFault(env, kind);
    }
  };

  for (let k = 1; k <= S + 1; k++) {
    const batch = questions.filter((q) => q.askedBefore === k);
    if (batch.length) {
      const id = k <= S ? `${conv.id}-search-${k}` : `${conv.id}-search`;
      await o.tracer.session(
        k <= S ? `search_before_session_${k}` : 'search',
        { id, category: 'memory_search' },
        async () => {
          await system.beforeQuestions(env);
          maybeInjectStore();
          for (const q of batch) {
            if (only && !only.has(q.id)) continue;
            o.signal?.throwIfAborted();
            const answer = await system.ask(env, q, judgeWith);
            answers.push(answer);
            await o.onProgress?.(++done, total, `${q.id} answered`, answer);
          }
        },
      );
    }
    if (k > S || k >= lastNeeded) break;
    const session = conv.sessions[k - 1];
    o.signal?.throwIfAborted();
    await o.tracer.session(
      `session_${k}`,
      {
        id: `${conv.id}-construction-${k}`,
        category: 'memory_construction',
        metadata: { date: session.dateTime },
      },
      async () => {
        await system.ingestSession(env, session);
        maybeInjectStore();
      },
    );
    await o.onProgress?.(++done, total, `session ${k}/${S} added`);
  }
  return {
    answers,
    events: env.events,
    faultOpId: env.faultOpId,
    llmCalls: env.llmCalls,
    inputTokens: env.inputTokens,
    outputTokens: env.outputTokens,
  };
}
