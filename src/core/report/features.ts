/**
 * Case features the report correlates with error types, computed from the case's texts
 * (evidence, question, golden answer) and its graph (how far back the evidence lies,
 * whether the unit holding it was changed later). Lexical rules, deterministic, and each
 * explainable in one line — they are what a reader checks a finding against.
 */

/** Content words from which the evidence counts as long (the `long_evidence` feature). */
export const LONG_EVIDENCE_WORDS = 25;
/** Sessions between evidence and question from which the evidence counts as far back (`far_back`). */
export const FAR_BACK_SESSIONS = 5;

/** Every feature, in report order, with the line that defines it. */
export const FEATURES = [
  {
    id: 'relative_date',
    label: 'relative date in the evidence',
    rule: 'yesterday, last week, two days ago, next month, …',
  },
  {
    id: 'absolute_date',
    label: 'absolute date in the evidence',
    rule: 'a year, a month with a day or year, or a numeric date',
  },
  { id: 'negation', label: 'negation in the evidence or answer', rule: "not, never, no longer, n't, …" },
  {
    id: 'enumeration',
    label: 'list answer',
    rule: 'the golden answer names two or more items (commas, "and", several answers)',
  },
  {
    id: 'number',
    label: 'number in the answer',
    rule: 'a count or quantity in the golden answer (dates excluded)',
  },
  { id: 'multi_evidence', label: 'several evidence messages', rule: 'two or more evidence messages' },
  {
    id: 'long_evidence',
    label: 'long evidence',
    rule: `the evidence holds ${LONG_EVIDENCE_WORDS} or more content words`,
  },
  {
    id: 'far_back',
    label: `evidence ${FAR_BACK_SESSIONS}+ sessions back`,
    rule: `${FAR_BACK_SESSIONS} or more sessions lie between the evidence and the question`,
  },
  {
    id: 'unit_updated',
    label: 'evidence unit changed later',
    rule: 'a memory unit holding the evidence got a different later version before the question',
  },
] as const;

/** The id of a case feature (see `FEATURES`). */
export type FeatureId = (typeof FEATURES)[number]['id'];
/** Which features a case has, one flag per feature. */
export type FeatureFlags = Record<FeatureId, boolean>;

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|hundred|thousand|million|twice|dozen|a couple|several|few';
const UNITS = 'days?|nights?|weeks?|weekends?|months?|years?|hours?|minutes?|decades?';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const SEASONS = 'spring|summer|autumn|fall|winter';
const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';

const RELATIVE_DATE = new RegExp(
  [
    '\\b(?:yesterday|today|tonight|tomorrow|recently|lately|the other day)\\b',
    `\\b(?:last|next|this|past|coming|previous|upcoming)\\s+(?:${UNITS}|${WEEKDAYS}|${SEASONS}|night|morning|evening|afternoon|time)\\b`,
    `\\b(?:\\d+|a|an|${NUMBER_WORDS})\\s+(?:${UNITS})\\s+(?:ago|before|earlier|later|from now|back)\\b`,
    `\\b(?:the\\s+)?(?:${UNITS}|day)\\s+(?:before|after)\\b`,
    `\\bin\\s+(?:a|an|\\d+|${NUMBER_WORDS})\\s+(?:${UNITS})\\b`,
  ].join('|'),
  'i',
);

const ABSOLUTE_DATE = new RegExp(
  [
    '\\b(?:19|20)\\d{2}\\b',
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS})\\b`,
    `\\b(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b`,
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
    '\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b',
  ].join('|'),
  'i',
);

const NEGATION = /\b(?:not|no|never|nobody|nothing|none|neither|nor|without|no longer|cannot)\b|n't\b|n’t\b/i;

const COUNT_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|hundred|thousand|million|twice|dozen';
const NUMBER = new RegExp(`\\b(?:\\d+(?:[.,]\\d+)?|${COUNT_WORDS})\\b`, 'i');

/** Date expressions removed, so "7 May 2023" is not read as a count. */
function withoutDates(text: string): string {
  return text
    .replace(new RegExp(ABSOLUTE_DATE.source, 'gi'), ' ')
    .replace(new RegExp(RELATIVE_DATE.source, 'gi'), ' ');
}

/** Whether a text holds a relative date (yesterday, last week, two days ago, …). */
export function hasRelativeDate(text: string): boolean {
  return RELATIVE_DATE.test(text);
}
/** Whether a text holds an absolute date (a year, a day and month, a numeric date). */
export function hasAbsoluteDate(text: string): boolean {
  return ABSOLUTE_DATE.test(text);
}
/** Whether a text holds a negation (not, never, no longer, n't, …). */
export function hasNegation(text: string): boolean {
  return NEGATION.test(text);
}
/** Whether a text holds a count or quantity, in digits or words, dates not counted. */
export function hasNumber(text: string): boolean {
  return NUMBER.test(withoutDates(text));
}

/** The golden answer lists several items: several answers, or one answer split by commas, semicolons or "and". */
export function isEnumeration(goldenAnswers: readonly string[]): boolean {
  const answers = goldenAnswers.map((a) => a.trim()).filter((a) => a !== '');
  if (answers.length >= 2) return true;
  if (answers.length === 0) return false;
  // Dates like "7 May, 2023" hold a comma without listing anything.
  const parts = withoutDates(answers[0])
    .split(/\s*(?:,|;|\band\b|\bor\b|&)\s*/i)
    .filter((p) => /[a-z0-9]/i.test(p));
  return parts.length >= 2;
}

/** The texts `textFeatures` reads: the evidence, the golden answers and the evidence's content-word count. */
export interface TextFeatureInput {
  /** The evidence messages' texts. */
  evidence: readonly string[];
  goldenAnswers: readonly string[];
  /** Content words in the evidence. */
  evidenceWords: number;
}

/** The features read from texts alone (the graph-derived ones are passed in). */
export function textFeatures(
  t: TextFeatureInput,
  graph: { sessionsBack: number | null; unitUpdated: boolean },
): FeatureFlags {
  const evidence = t.evidence.join('\n');
  const gold = t.goldenAnswers.join('\n');
  return {
    relative_date: hasRelativeDate(evidence),
    absolute_date: hasAbsoluteDate(evidence),
    negation: hasNegation(evidence) || hasNegation(gold),
    enumeration: isEnumeration(t.goldenAnswers),
    number: hasNumber(gold),
    multi_evidence: t.evidence.length >= 2,
    long_evidence: t.evidenceWords >= LONG_EVIDENCE_WORDS,
    far_back: graph.sessionsBack !== null && graph.sessionsBack >= FAR_BACK_SESSIONS,
    unit_updated: graph.unitUpdated,
  };
}
