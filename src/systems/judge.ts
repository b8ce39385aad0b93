/**
 * Judges. The LLM judge labels CORRECT/WRONG with Mem0's LoCoMo judge instructions (generous
 * on wording and date format). The offline judge needs no model: CORRECT when the normalised
 * golden answer is contained in the normalised prediction, or their token F1 ≥ 0.5.
 */
import type { SystemLLM } from './llm.ts';
import { parseJsonReply } from './llm.ts';
import { DEFAULT_PROMPTS, fillPrompt } from './prompts.ts';
import { normalizeAnswer, tokenF1 } from './text.ts';

export interface Verdict {
  correct: boolean;
  /** The judge's own words: "CORRECT"/"WRONG" (LLM) or the rule that decided (offline). */
  response: string;
  judge: 'offline' | 'llm';
}

export function offlineJudge(prediction: string, golds: string[]): Verdict {
  const p = ` ${normalizeAnswer(prediction)} `;
  let bestF1 = 0;
  for (const g of golds) {
    const n = normalizeAnswer(g);
    if (n && p.includes(` ${n} `)) return { correct: true, response: 'CORRECT', judge: 'offline' };
    bestF1 = Math.max(bestF1, tokenF1(prediction, g));
  }
  return { correct: bestF1 >= 0.5, response: bestF1 >= 0.5 ? 'CORRECT' : 'WRONG', judge: 'offline' };
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
