/**
 * What the four reference systems share: the question flow (query variable → retrieval →
 * `question-answering` → `llm-judge`) and the run loop over a conversation's sessions
 * (questions asked before a session see only earlier sessions).
 */
import { PyFloat } from '../sdk/encode.ts';
import type { TracedVar } from '../sdk/tracer.ts';
import type { ContextItem, RunEnv } from './env.ts';
import { llmJudge, ruleJudge, type Verdict } from './judge.ts';
import type { JudgeRule } from './judge-rules.ts';
import { extractiveAnswer } from './offline.ts';
import { fillPrompt } from './prompts.ts';
import type { ConversationSession, Question } from './types.ts';

export type SystemName = 'rag' | 'long-context' | 'mem0' | 'evermemos';
export const SYSTEM_NAMES: readonly SystemName[] = ['rag', 'long-context', 'mem0', 'evermemos'];
/** The memory shapes of the recorded-memories benchmark (src/systems/llm-bench.ts). */
export type ShapeName = 'fact-store' | 'session-summary' | 'vector-store' | 'per-user-store';
export const SHAPE_NAMES: readonly ShapeName[] = [
  'fact-store',
  'session-summary',
  'vector-store',
  'per-user-store',
];

/** MemTraceBench split folder of each system. */
export const SPLIT_OF: Record<SystemName, string> = {
  rag: 'rag',
  'long-context': 'long_context',
  mem0: 'mem0',
  evermemos: 'evermemos',
};

export interface Retrieved {
  items: ContextItem[];
  /** The retrieved-context variable the answer op reads. */
  variable: TracedVar;
}

export interface AnswerRecord {
  questionId: string;
  prediction: string;
  correct: boolean;
  queryVar: TracedVar;
  judgeOpId: string;
  answerOpId: string;
  retrievalOpId: string;
}

export abstract class MemorySystem {
  /** `mem0ai`: the npm mem0ai `Memory` behind the question flow (src/systems/optimize/mem0ai-target.node.ts). */
  abstract readonly name: SystemName | ShapeName | 'mem0ai';
  /** Adds one session to memory (inside its construction session scope). */
  abstract ingestSession(env: RunEnv, session: ConversationSession): Promise<void>;
  /** Called before a batch of questions (e.g. RAG flushes its buffer). */
  async beforeQuestions(_env: RunEnv): Promise<void> {}
  /** Retrieves the context of a question; logs the `retrieval` evidence event. */
  abstract retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved>;
  /** Fault injection: one op that rewrites (update) or removes (deletion) the units carrying the evidence. */
  abstract injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void;
  /** Turns carried by the store now. */
  abstract carriedTurns(): Set<string>;

  /** Retrieval, answer and judge for one question. */
  async ask(env: RunEnv, q: Question, judgeWith: 'offline' | 'llm'): Promise<AnswerRecord> {
    const t = env.t;
    const queryVar = t.variable(q.question, {
      name: q.id,
      className: 'query',
      category: 'message & query',
      comment: 'The user question.',
      metadata: { evidence: q.evidence.map((e) => env.messageName(e)), category: q.category },
    });
    const retrieved = await this.retrieve(env, q, queryVar);
    const retrievalOpId = env.events[env.events.length - 1]?.opId ?? '';
    const { prediction, predVar, opId } = await this.answer(env, q, queryVar, retrieved);
    const { verdict, opId: judgeOpId } = await judge(env, q, queryVar, predVar, prediction, judgeWith);
    return {
      questionId: q.id,
      prediction,
      correct: verdict.correct,
      queryVar,
      judgeOpId,
      answerOpId: opId,
      retrievalOpId,
    };
  }

  /** The `question-answering` op (category generation): prompt + question + context → prediction. */
  async answer(
    env: RunEnv,
    q: Question,
    queryVar: TracedVar,
    retrieved: Retrieved,
  ): Promise<{ prediction: string; predVar: TracedVar; opId: string }> {
    const texts = retrieved.items.map((i) => i.text);
    const ideal = env.isTarget(q.id) && env.ideal(q.id, 'response');
    const inContext = new Set(retrieved.items.flatMap((i) => i.sources));
    let prediction: string;
    if (ideal) {
      const all = (env.intervention?.evidence ?? q.evidence).every((e) => inContext.has(e));
      prediction = all ? (env.intervention?.answers?.[0] ?? q.answers[0]) : "I don't know.";
    } else if (env.offline) prediction = extractiveAnswer(q.question, texts);
    else
      prediction = (
        await env.complete(
          'You answer questions from memories.',
          fillPrompt(env.prompts['question-answering-prompt'], {
            memories: texts.join('\n'),
            question: q.question,
          }),
        )
      ).trim();
    // A repaired answer op is ideal even where a fault was injected.
    if (env.injecting('response') && env.isTarget(q.id) && !ideal) prediction = "I don't know.";
    return env.t.op(
      'question-answering',
      {
        category: 'generation',
        comment: 'Answers the question from the retrieved memories.',
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        op.input(env.prompt('question-answering-prompt'));
        op.input(queryVar);
        op.input(retrieved.variable);
        const predVar = op.output(prediction, {
          name: `pred-${q.id}`,
          className: 'prediction',
          category: 'answer',
        });
        if (env.injecting('response') && env.isTarget(q.id)) env.faultOpId = op.opId;
        env.log({
          opId: op.opId,
          kind: 'response',
          questionId: q.id,
          inContext: [...inContext].filter((x) => env.isEvidence(x) || q.evidence.includes(x)),
        });
        return { prediction, predVar, opId: op.opId };
      },
    );
  }
}

/** How the judge op's comment names each offline rule (`offline`'s as before the rules had names). */
const JUDGE_COMMENT: Record<JudgeRule, string> = {
  offline: 'containment, token F1, or support of the prediction by a long golden answer',
  containment: 'containment of the golden answer',
  'token-f1': 'token F1 ≥ 0.5',
  'half-words': "half of the golden answer's content words",
};

/** The `llm-judge` op (category evaluation) with the variables the paper's tools pick by class. */
export async function judge(
  env: RunEnv,
  q: Question,
  queryVar: TracedVar,
  predVar: TracedVar,
  prediction: string,
  judgeWith: 'offline' | 'llm',
): Promise<{ verdict: Verdict; opId: string }> {
  const verdict =
    judgeWith === 'llm' && env.judgeLlm
      ? await llmJudge(env.judgeLlm, q.question, q.answers, prediction, env.prompts['llm-judge-prompt'])
      : ruleJudge(env.judgeRule, prediction, q.answers, q.question);
  const opId = env.t.op(
    'llm-judge',
    {
      category: 'evaluation',
      comment:
        verdict.judge === 'llm'
          ? 'LLM-as-a-judge compares the prediction with the golden answer.'
          : `Offline judge (${JUDGE_COMMENT[env.judgeRule]}) compares the prediction with the golden answer.`,
      // The rule's name is metadata for people; attributors must not read it (docs/llm-memory-benchmark.md).
      metadata:
        verdict.judge === 'llm'
          ? { judge: env.judgeLlm?.model ?? 'llm' }
          : env.judgeRule === 'offline'
            ? { judge: 'offline-containment-f1-support' }
            : { judge: `offline-${env.judgeRule}`, judge_rule: env.judgeRule },
    },
    (op) => {
      op.input(queryVar);
      op.input(predVar);
      op.input(q.answers, { name: `gold-${q.id}`, className: 'golden_answers', category: 'golden' });
      op.output(verdict.response, { name: `judge-${q.id}`, className: 'judge_response', category: 'judge' });
      op.output(new PyFloat(verdict.correct ? 1 : 0), {
        name: `score-${q.id}`,
        className: 'judge_score',
        category: 'judge',
      });
      return op.opId;
    },
  );
  return { verdict, opId };
}
