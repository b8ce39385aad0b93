/**
 * The offline judge's rules: each decides whether a prediction answers a question given its
 * golden answers, with no model. `offline` (the default, `offlineJudge`) is the union of
 * containment, token F1 and long-answer support; the other rules are single, stricter or
 * looser readings of "correct", so a benchmark can be labelled under judges that disagree.
 */
import type { AnswerJudge } from '../core/qa/index.ts';
import { contentTokens, normalizeAnswer, tokenF1, tokens } from './text.ts';

/** The names of the offline judge's rules (`--judge-rule`). */
export type JudgeRule = 'offline' | 'containment' | 'token-f1' | 'half-words';
export const JUDGE_RULES: readonly JudgeRule[] = ['offline', 'containment', 'token-f1', 'half-words'];

/** Is `name` a judge rule? */
export const isJudgeRule = (name: unknown): name is JudgeRule =>
  (JUDGE_RULES as readonly unknown[]).includes(name);

/** The thresholds of the rules (fixed by each rule's reasoning, not fitted to a data set). */
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
  /** half-words: the share of the golden answer's content words the prediction must hold. */
  minWordShare: 0.5,
} as const;

/** `containment`: some golden answer, normalised (SQuAD), is contained in the normalised prediction at word boundaries. */
export function containmentRule(prediction: string, golds: readonly string[]): boolean {
  const p = ` ${normalizeAnswer(prediction)} `;
  return golds.some((g) => {
    const n = normalizeAnswer(g);
    return n.length > 0 && p.includes(` ${n} `);
  });
}

/** `token-f1`: SQuAD token F1 of the prediction against some golden answer ≥ {@link OFFLINE_JUDGE}.minF1. */
export function tokenF1Rule(prediction: string, golds: readonly string[]): boolean {
  return golds.some((g) => tokenF1(prediction, g) >= OFFLINE_JUDGE.minF1);
}

/**
 * A golden answer's content words: lower-cased tokens without stop words and single letters
 * ("mother's" → "mother"); all its tokens when every one is a stop word ("yes", "no").
 */
export function answerWords(gold: string): Set<string> {
  const content = contentTokens(gold).filter((w) => w.length > 1 || /\d/.test(w));
  return new Set(content.length ? content : tokens(gold));
}

/**
 * `half-words`: the prediction holds at least half ({@link OFFLINE_JUDGE}.minWordShare) of
 * some golden answer's content words (`answerWords`), in any order.
 */
export function halfWordsRule(prediction: string, golds: readonly string[]): boolean {
  const have = new Set(tokens(prediction));
  return golds.some((g) => {
    const want = [...answerWords(g)];
    if (want.length === 0) return false;
    const hits = want.filter((w) => have.has(w)).length;
    return hits >= OFFLINE_JUDGE.minWordShare * want.length;
  });
}

/**
 * Long-answer support (part of `offline`): some golden answer is at least `longRatio` × the
 * prediction's tokens (RealMem's golden answers are the assistant's whole reply) and, of the
 * prediction's content words the question does not already use, at least `minSupportedWords`
 * and at least `minSupport` of them occur in it. Restating the question is not an answer.
 */
export function longSupportRule(prediction: string, golds: readonly string[], question = ''): boolean {
  const predTokens = normalizeAnswer(prediction).split(' ').filter(Boolean).length;
  if (predTokens === 0) return false;
  const asked = new Set(contentTokens(question));
  const added = [...new Set(contentTokens(prediction))].filter((w) => !asked.has(w));
  if (added.length < OFFLINE_JUDGE.minSupportedWords) return false;
  return golds.some((g) => {
    const n = normalizeAnswer(g);
    if (!n || n.split(' ').length < OFFLINE_JUDGE.longRatio * predTokens) return false;
    const inGold = new Set(contentTokens(g));
    const hits = added.filter((w) => inGold.has(w)).length;
    return hits >= OFFLINE_JUDGE.minSupportedWords && hits >= OFFLINE_JUDGE.minSupport * added.length;
  });
}

/** `offline` (today's default): containment, or token F1, or long-answer support. */
export function offlineRule(prediction: string, golds: readonly string[], question = ''): boolean {
  return (
    containmentRule(prediction, golds) ||
    tokenF1Rule(prediction, golds) ||
    longSupportRule(prediction, golds, question)
  );
}

/** Does `rule` accept `prediction` for a question with these golden answers? */
export function acceptsAnswer(
  rule: JudgeRule,
  prediction: string,
  golds: readonly string[],
  question = '',
): boolean {
  switch (rule) {
    case 'offline':
      return offlineRule(prediction, golds, question);
    case 'containment':
      return containmentRule(prediction, golds);
    case 'token-f1':
      return tokenF1Rule(prediction, golds);
    case 'half-words':
      return halfWordsRule(prediction, golds);
  }
}

/**
 * The product's answer rule for QA-file rows without a verdict (`memtrace … --qa`, a QA file
 * dropped in the app): the offline judge, named `offline` in each case's `answer_rule`.
 */
export const QA_ANSWER_RULE: AnswerJudge = {
  rule: 'offline',
  accepts: (prediction, answers, question) => acceptsAnswer('offline', prediction, answers, question),
};
