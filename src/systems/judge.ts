/**
 * Judges. The LLM judge labels CORRECT/WRONG with Mem0's LoCoMo judge instructions (generous
 * on wording and date format). The offline judge needs no model; its rule is in `offlineJudge`.
 */
import type { SystemLLM } from './llm.ts';
import { parseJsonReply } from './llm.ts';
import { DEFAULT_PROMPTS, fillPrompt } from './prompts.ts';
import { contentTokens, normalizeAnswer, tokenF1 } from './text.ts';

export interface Verdict {
  correct: boolean;
  /** The judge's own words: "CORRECT"/"WRONG" (LLM) or the rule that decided (offline). */
  response: string;
  judge: 'offline' | 'llm';
}

/** The offline judge's thresholds (fixed by the rule's reasoning, not fitted to a data set). */
export const OFFLINE_JUDGE = {
  /** Short answers: token F1 at or above this is CORRECT (the usual SQuAD / LoCoMo cut). */
  minF1: 0.5,
  /**
   * A golden answer at least this many times longer than the prediction is "long": then even a
   * prediction whose every word is in it has recall ≤ 1/3 and F1 ≤ 0.5, so F1 cannot judge it.
   */
  longRatio: 3,
  /** Long answers: the prediction must add at least this many content words beyond the question… */
  minSupportedWords: 3,
  /** …and at least this share of those words must occur in the golden answer. */
  minSupport: 0.5,
} as const;

/**
 * Offline judge. CORRECT when, for some golden answer:
 * 1. its normalised text is contained in the normalised prediction (word boundaries), or
 * 2. token F1 (SQuAD normalisation) ≥ {@link OFFLINE_JUDGE}.minF1, or
 * 3. it is *long* (≥ `longRatio` × the prediction's tokens — RealMem's golden answers are the
 *    assistant's whole reply) and the prediction is *supported* by it: of the prediction's
 *    content words that the question does not already use, at least `minSupportedWords` and
 *    at least `minSupport` of them occur in the golden answer. Words echoed from the question
 *    do not count, so restating the question is not an answer; "I don't know." adds too few.
 *
 * `question` is optional (rule 3 then counts every content word of the prediction).
 */
export function offlineJudge(prediction: string, golds: string[], question = ''): Verdict {
  const p = ` ${normalizeAnswer(prediction)} `;
  const predTokens = normalizeAnswer(prediction).split(' ').filter(Boolean).length;
  const asked = new Set(contentTokens(question));
  const added = [...new Set(contentTokens(prediction))].filter((w) => !asked.has(w));
  for (const g of golds) {
    const n = normalizeAnswer(g);
    if (!n) continue;
    if (p.includes(` ${n} `) || tokenF1(prediction, g) >= OFFLINE_JUDGE.minF1) return verdict(true);
    const goldTokens = n.split(' ').length;
    if (predTokens > 0 && goldTokens >= OFFLINE_JUDGE.longRatio * predTokens && supported(added, g))
      return verdict(true);
  }
  return verdict(false);
}

function supported(added: string[], gold: string): boolean {
  if (added.length < OFFLINE_JUDGE.minSupportedWords) return false;
  const inGold = new Set(contentTokens(gold));
  const hits = added.filter((w) => inGold.has(w)).length;
  return hits >= OFFLINE_JUDGE.minSupportedWords && hits >= OFFLINE_JUDGE.minSupport * added.length;
}

const verdict = (correct: boolean): Verdict => ({
  correct,
  response: correct ? 'CORRECT' : 'WRONG',
  judge: 'offline',
});

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
