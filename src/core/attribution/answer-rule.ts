/**
 * When does a text give the golden answer? The question every carrying test asks of a
 * memory unit, a retrieved context or a prediction — and the one the trace's own judge
 * answered for every question it judged. A rule here is that judge as the matcher can
 * see it: how many of the answer's words a text must keep (or the whole answer in order),
 * what counts as the same word, whether a finer date inside the golden one ("8 February
 * 2023" for "February 2023") is the answer, and whether dates are read as days or as words (a
 * judge that counts words takes "8 May 2023" for "7 May 2023": two of its three words).
 * `fitAnswerRule` picks the rule that best reproduces the judge's verdicts; with too few
 * verdicts of either kind the prior stands.
 */

/** What counts as the same word: as written, the same lemma, or the same lemma or meaning (word vectors). */
export type WordMatch = 'surface' | 'lemma' | 'meaning';

/** A judge as the matcher can see it (see the module comment). */
export interface AnswerRule {
  /**
   * `words`: enough of the answer's words; `phrase`: the whole answer, in order; `f1`: a
   * sentence or two whose content words match the answer's with F1 at least `minShare` (a judge
   * that weighs precision); `tokens`: SQuAD's and LoCoMo's token F1 of every word at least
   * `minShare` (`tokenF1`; dates and times are words too, whatever `dates` says).
   */
  kind: 'words' | 'phrase' | 'f1' | 'tokens';
  /**
   * `words`: the share of the answer's words a text must keep; null = the prior's steps
   * (every word of a one- or two-word answer, two in three of longer ones, half of answers
   * over six words). `f1`, `tokens`: the F1 a window must reach.
   */
  minShare: number | null;
  words: WordMatch;
  /** A date inside the golden span but finer gives the answer. */
  finerDates: boolean;
  /**
   * How a `words` rule reads a golden answer that is a date: `span`, as days (a text gives it
   * when its time falls in the span); `words`, as the words of the date, like any other answer
   * words (a text's times count with the words of the days they resolve to and of the day it was
   * written). Other kinds read dates as days, except `tokens`, for which every date is words.
   */
  dates: 'span' | 'words';
}

/** The rule when a trace's verdicts cannot teach one: the matcher's documented default. */
export const PRIOR_ANSWER_RULE: AnswerRule = {
  kind: 'words',
  minShare: null,
  words: 'meaning',
  finerDates: true,
  dates: 'span',
};

/** How a text's time stands to the golden answer's span. */
export type DateRelation = 'same' | 'finer' | 'coarser' | 'outside';

/** How many of `n` answer words a text must keep under `rule` (of a golden answer of `goldenWords` words). */
export function wordsNeeded(rule: AnswerRule, n: number, goldenWords: number): number {
  if (n === 0) return 0;
  if (rule.kind === 'phrase') return n;
  if (rule.minShare === null) {
    if (n <= 2) return n;
    return Math.max(2, Math.ceil(n * (goldenWords > 6 ? 0.5 : 0.67)));
  }
  return Math.max(1, Math.ceil(n * rule.minShare - 1e-9));
}

/** Does a text whose time stands so to the golden span give it, under `rule`? */
export function dateAccepted(rule: AnswerRule, relation: DateRelation | null): boolean {
  return relation === 'same' || (relation === 'finer' && rule.finerDates);
}

/** What the matcher read of one text against one golden answer (`answerFeatures` in critical.ts). */
export interface AnswerFeatures {
  /** Answer words (content words not already in the question, when any remain). */
  words: number;
  /** Content words of the golden answer. */
  goldenWords: number;
  /** Answer words the text keeps, per kind of match. */
  kept: Record<WordMatch, number>;
  /** The whole answer in order, as written and as lemmas. */
  phrase: { surface: boolean; lemma: boolean };
  /** null when the golden answer is no date; else the best relation of the text's times to it. */
  date: DateRelation | null;
  /** The golden answer is a date (a span). */
  dated: boolean;
  /**
   * For a dated golden answer: the same text read with dates as words (the golden answer's time
   * words and numbers are answer words; the text's times add the words of their days).
   */
  asWords?: AnswerFeatures;
  /** The best F1 of a window of the text (a sentence or two) against the golden answer's words (`windowF1`). */
  f1: number;
  /**
   * A prediction's F1 against the whole golden answer, dates and names included (`answerF1`):
   * a judge reads the whole answer it is given, while a memory is read for the span an
   * answerer would quote. Absent for memories.
   */
  answerF1?: number;
  /**
   * Token F1 (`tokenF1`: every word, dates and times included) against the golden answer: of
   * the whole text for a prediction, of its best window (one or two of its sentences, the day
   * as written, the days its relative times name) for a memory.
   */
  tokens: number;
}

/** Does the rule count a dated golden answer's words rather than its days (`AnswerRule.dates`)? */
export function readsDatesAsWords(rule: AnswerRule): boolean {
  return rule.kind === 'words' && rule.dates === 'words';
}

/** Does a text with these features give the answer under `rule`? */
export function accepts(rule: AnswerRule, f: AnswerFeatures): boolean {
  // A token judge reads a date as its words, like every other word.
  if (rule.kind === 'tokens') return f.tokens >= (rule.minShare ?? 0);
  if (f.dated && readsDatesAsWords(rule) && f.asWords) return accepts(rule, f.asWords);
  // A judge weighing precision reads a prediction whole, its date among its words.
  if (rule.kind === 'f1' && f.answerF1 !== undefined) return f.answerF1 >= (rule.minShare ?? 0);
  // Dates read as days are read so in predictions too, as they are in memories (`keepsAnswer`).
  if (f.dated && !dateAccepted(rule, f.date)) return false;
  if (f.words === 0) return f.dated;
  if (rule.kind === 'f1') return f.f1 >= (rule.minShare ?? 0);
  if (rule.kind === 'phrase') return rule.words === 'surface' ? f.phrase.surface : f.phrase.lemma;
  return f.kept[rule.words] >= wordsNeeded(rule, f.words, f.goldenWords);
}

/** One judged question: the features of its prediction against each golden answer, and the verdict. */
export interface JudgedSample {
  queryId: string;
  /** Per golden answer (a prediction is accepted when any is). */
  features: AnswerFeatures[];
  correct: boolean;
}

/** The rule a trace's verdicts support, and how well it reproduces them. */
export interface AnswerRuleFit {
  rule: AnswerRule;
  /** `fitted`: learned from the trace's verdicts; `prior`: too few verdicts of one kind. */
  source: 'fitted' | 'prior';
  passed: number;
  failed: number;
  /** Share of the verdicts the rule reproduces (null with no verdicts). */
  agreement: number | null;
  /**
   * Questions whose verdict the rule contradicts: candidate judge errors (or what the rule
   * cannot see). `judged`: what the trace's judge said.
   */
  disagreements: { query_id: string; judged: 'correct' | 'wrong' }[];
}

/** Verdicts of each kind a trace needs before its rule replaces the prior. */
export const MIN_VERDICTS = 3;
/** Balanced accuracy by which a rule must beat the prior to replace it. */
const MIN_GAIN = 0;

const SHARES = [null, 0.34, 0.5, 0.67, 0.75, 1] as const;
const F1_CUTS = [0.34, 0.5, 0.67] as const;

/**
 * Every rule the fit tries, the prior first (ties keep the earlier, so the prior wins them):
 * share-of-words and whole-answer rules, dates read as days before dates read as words (words
 * rules only; finer dates then mean nothing); token F1; then content-word F1.
 */
function candidateRules(): AnswerRule[] {
  const out: AnswerRule[] = [PRIOR_ANSWER_RULE];
  const readings = [
    { finerDates: true, dates: 'span' },
    { finerDates: false, dates: 'span' },
    { finerDates: true, dates: 'words' },
  ] as const;
  for (const dating of readings)
    for (const words of ['meaning', 'lemma', 'surface'] as const) {
      for (const minShare of SHARES) out.push({ kind: 'words', minShare, words, ...dating });
      if (words !== 'meaning' && dating.dates === 'span')
        out.push({ kind: 'phrase', minShare: 1, words, ...dating });
    }
  // Token F1 is the standard metric: where it and a content-word F1 reproduce a judge equally, it is taken.
  for (const minShare of F1_CUTS)
    out.push({ kind: 'tokens', minShare, words: 'surface', finerDates: true, dates: 'words' });
  for (const dating of readings.filter((r) => r.dates === 'span'))
    for (const minShare of F1_CUTS) out.push({ kind: 'f1', minShare, words: 'lemma', ...dating });
  return out;
}

const acceptsAny = (rule: AnswerRule, s: JudgedSample) => s.features.some((f) => accepts(rule, f));

/**
 * The candidate rule that reproduces most of the judge's verdicts (balanced over passed and
 * failed, so a trace of mostly failures does not just reward rejecting everything). The prior
 * when either kind has fewer than `MIN_VERDICTS`.
 */
export function fitAnswerRule(samples: readonly JudgedSample[]): AnswerRuleFit {
  const passed = samples.filter((s) => s.correct).length;
  const failed = samples.length - passed;
  let rule = PRIOR_ANSWER_RULE;
  let source: AnswerRuleFit['source'] = 'prior';
  if (passed >= MIN_VERDICTS && failed >= MIN_VERDICTS) {
    const score = (r: AnswerRule) => {
      let tp = 0;
      let tn = 0;
      for (const s of samples) {
        const a = acceptsAny(r, s);
        if (a && s.correct) tp++;
        else if (!a && !s.correct) tn++;
      }
      return (tp / passed + tn / failed) / 2;
    };
    // Another rule must beat the prior clearly: a few verdicts are no reason to change the test.
    let best = score(PRIOR_ANSWER_RULE) + MIN_GAIN;
    for (const r of candidateRules()) {
      const sc = score(r);
      if (sc > best + 1e-9) {
        best = sc;
        rule = r;
      }
    }
    source = 'fitted';
  }
  return { ...ruleAgreement(rule, samples), source };
}

/** How well `rule` reproduces these verdicts: the share it agrees with and the ones it contradicts. */
export function ruleAgreement(
  rule: AnswerRule,
  samples: readonly JudgedSample[],
): Omit<AnswerRuleFit, 'source'> {
  const passed = samples.filter((s) => s.correct).length;
  const disagreements = samples
    .filter((s) => acceptsAny(rule, s) !== s.correct)
    .map((s) => ({ query_id: s.queryId, judged: s.correct ? ('correct' as const) : ('wrong' as const) }));
  return {
    rule,
    passed,
    failed: samples.length - passed,
    agreement: samples.length ? 1 - disagreements.length / samples.length : null,
    disagreements,
  };
}

/** The rule in words, for results and the workspace ("half of the answer's words, by meaning; finer dates count"). */
export function describeAnswerRule(rule: AnswerRule): string {
  const words = { surface: 'as written', lemma: 'by lemma', meaning: 'by lemma or meaning' }[rule.words];
  const what =
    rule.kind === 'phrase'
      ? `the whole answer in order (${words})`
      : rule.kind === 'f1'
        ? `a sentence or two matching the answer's words with F1 ≥ ${rule.minShare} (precision counts)`
        : rule.kind === 'tokens'
          ? `token F1 ≥ ${rule.minShare} over every word, as SQuAD and LoCoMo score answers`
          : rule.minShare === null
            ? `the answer's words (all of a short answer, two in three or half of a long one; ${words})`
            : `${Math.round(rule.minShare * 100)} % of the answer's words (${words})`;
  // Token F1 reads a date as words and a memory by its best sentence or two, or its day as written.
  if (rule.kind === 'tokens')
    return `${what}; dates are words; a memory is read by its best sentence or two, or its day as written`;
  const dates = readsDatesAsWords(rule)
    ? "dates read as words (a date's words count like the answer's)"
    : rule.finerDates
      ? 'a finer date inside the golden one counts'
      : 'dates must match the golden span';
  return `${what}; ${dates}`;
}
