/**
 * Deciding the middle band. Word-level matching settles most units at once; a unit
 * that keeps the answer and the names but shares too few topic words with the
 * question ("Melanie runs to clear her mind" for "…great for my headspace") is left
 * undecided, and a model decides it: a sentence-embedding model (transformers.js,
 * when the user has one) or an LLM asked yes/no (through the `ChatModel`, so its
 * calls are cached and counted).
 */
import { type ChatModel, mapLimited } from '../llm/index.ts';
import type { Embedder } from '../retrieval/index.ts';
import { noGoldenAnswer } from './golden.ts';

/** One undecided pair. */
export interface CarryQuestion {
  question: string;
  goldenAnswers: readonly string[];
  /** The evidence message as said (speaker and day included when known). */
  evidence: string;
  /** The memory unit's text. */
  memory: string;
}

interface CarryJudgeCost {
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
}

/** Decides the undecided (middle-band) pairs: a sentence model or an LLM asked yes/no. */
export interface CarryJudge {
  /** What decides, as people should read it ("sentence model …", "LLM …"). */
  readonly label: string;
  /** Per pair: does the memory state the information the golden answer needs? */
  decide(
    items: readonly CarryQuestion[],
    signal?: AbortSignal,
  ): Promise<{ verdicts: boolean[]; cost: CarryJudgeCost }>;
}

const NO_COST: CarryJudgeCost = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };

/**
 * Sentence-model judge: the memory is about the question when their embeddings are
 * close (cosine ≥ `threshold`, default 0.5). Rows are L2-normalised by the embedder.
 */
export function sentenceModelJudge(embedder: Embedder, threshold = 0.5): CarryJudge {
  return {
    label: `sentence model ${embedder.label}`,
    async decide(items, signal) {
      if (items.length === 0) return { verdicts: [], cost: NO_COST };
      const texts = items.flatMap((x) => [x.question, x.memory]);
      const v = await embedder.embed(texts, { signal });
      const d = embedder.dims;
      const verdicts = items.map((_, i) => {
        let s = 0;
        for (let k = 0; k < d; k++) s += v[2 * i * d + k] * v[(2 * i + 1) * d + k];
        return s >= threshold;
      });
      return { verdicts, cost: NO_COST };
    },
  };
}

function prompt(x: CarryQuestion): string {
  if (noGoldenAnswer(x.goldenAnswers)) return noAnswerPrompt(x);
  return [
    'You check a memory system. Decide whether a stored memory still holds the information needed to answer a question.',
    '',
    `Question: ${x.question}`,
    `Correct answer: ${x.goldenAnswers.join(' | ')}`,
    `What was originally said: ${x.evidence}`,
    `Stored memory: ${x.memory}`,
    '',
    'Does the stored memory state the information that gives the correct answer to this question (wording may differ)? Reply with one word: YES or NO.',
  ].join('\n');
}

/** A question the conversation never answers (adversarial): does the text read as an answer all the same? */
function noAnswerPrompt(x: CarryQuestion): string {
  return [
    'You check a memory system. The conversation it remembers never answered the question below.',
    '',
    `Question: ${x.question}`,
    `Text the answer was made from: ${x.memory}`,
    '',
    'Does this text nonetheless state something that reads as an answer to this question (for instance about another person or another time)? Reply with one word: YES or NO.',
  ].join('\n');
}

/** LLM judge: one yes/no call per pair (temperature 0; the model's cache makes reruns free). */
export function llmCarryJudge(model: ChatModel, concurrency = 4): CarryJudge {
  return {
    label: `LLM ${model.model}`,
    async decide(items, signal) {
      const cost = { ...NO_COST };
      const verdicts = await mapLimited(items, concurrency, async (item) => {
        try {
          const r = await model.complete({
            messages: [{ role: 'user', content: prompt(item) }],
            temperature: 0,
            maxTokens: 4,
            signal,
          });
          cost.input_tokens += r.usage.inputTokens;
          cost.output_tokens += r.usage.outputTokens;
          return /^\W*yes\b/i.test(r.text);
        } finally {
          // A call that reached the endpoint counts, whatever became of its reply.
          cost.llm_calls++;
        }
      });
      return { verdicts, cost };
    },
  };
}
