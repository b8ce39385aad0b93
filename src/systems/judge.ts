/**
 * Judges. The LLM judge labels CORRECT/WRONG with Mem0's LoCoMo judge instructions (generous
 * on wording and date format). The offline judge needs no model; its rules are in `judge-rules.ts`.
 */

import { acceptsAnswer, type JudgeRule } from './judge-rules.ts';
import type { SystemLLM } from './llm.ts';
import { parseJsonReply } from './llm.ts';
import { DEFAULT_PROMPTS, fillPrompt } from './prompts.ts';

export interface Verdict {
  correct: boolean;
  /** The judge's own words: "CORRECT"/"WRONG" (LLM) or the rule that decided (offline). */
  response: string;
  judge: 'offline' | 'llm';
  /** The offline judge's rule (absent for the LLM judge). */
  rule?: JudgeRule;
}

/**
 * Offline judge (the `offline` rule, `offlineRule`). CORRECT when, for some golden answer:
 * 1. its normalised text is contained in the normalised prediction (word boundaries), or
 * 2. token F1 (SQuAD normalisation) ≥ `OFFLINE_JUDGE.minF1` (judge-rules.ts), or
 * 3. it is *long* (≥ `longRatio` × the prediction's tokens — RealMem's golden answers are the
 *    assistant's whole reply) and the prediction is *supported* by it: of the prediction's
 *    content words that the question does not already use, at least `minSupportedWords` and
 *    at least `minSupport` of them occur in the golden answer. Words echoed from the question
 *    do not count, so restating the question is not an answer; "I don't know." adds too few.
 *
 * `question` is optional (rule 3 then counts every content word of the prediction).
 */
export function offlineJudge(prediction: string, golds: string[], question = ''): Verdict {
  return ruleJudge('offline', prediction, golds, question);
}

/** The offline judge under a named rule (`judge-rules.ts`); `offline` is `offlineJudge`. */
export function ruleJudge(rule: JudgeRule, prediction: string, golds: string[], question = ''): Verdict {
  const correct = acceptsAnswer(rule, prediction, golds, question);
  return { correct, response: correct ? 'CORRECT' : 'WRONG', judge: 'offline', rule };
}

export async function llmJudge(
  llm: SystemLLM,
  question: string,
  golds: string[],
  prediction: string,
  template = DEFAULT_PROMPTS['llm-judge-prompt'],
): Promise<Verdict> {
  const r = await llm.complete({
    messages: [
      { role: 'user', content: fillPrompt(template, { question, gold: golds.join(' | '), prediction }) },
    ],
    temperature: 0,
    responseFormat: { type: 'json' },
  });
  const parsed = parseJsonReply(r.text) as { label?: unknown } | undefined;
  const label =
    typeof parsed?.label === 'string'
      ? parsed.label.toUpperCase()
      : /\bCORRECT\b/i.test(r.text)
        ? 'CORRECT'
        : 'WRONG';
  return { correct: label === 'CORRECT', response: label === 'CORRECT' ? 'CORRECT' : 'WRONG', judge: 'llm' };
}
