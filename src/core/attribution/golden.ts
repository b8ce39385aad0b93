/** Golden answers that give nothing to trace (LoCoMo's adversarial questions). */

/** A golden answer that says there is nothing to find: empty, or "not mentioned" (adversarial questions). */
const NO_ANSWER =
  /^\s*(?:n\/?a|unknown|unanswerable|not answerable|no (?:answer|information)(?: available)?|not (?:mentioned|stated|specified|discussed)(?: in the conversation)?)?\s*\.?\s*$/i;

/** The golden answers give nothing to trace: none, or all empty or "not mentioned". */
export function noGoldenAnswer(golden: readonly string[]): boolean {
  return golden.every((a) => NO_ANSWER.test(a));
}
