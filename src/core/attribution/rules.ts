/**
 * The deterministic attributor's decision procedure as a table (`STAGE_RULES`): each rule's id,
 * what it tests, its threshold and the reason for it. Results name the rules that fired
 * (`Attribution.rules`); the workspace shows them from here. No code of the procedure lives
 * here (stage-walk.ts), so the app can show the table without loading the matcher.
 */

/** One rule of the decision procedure: what it tests, its threshold and why. */
export interface StageRule {
  id: StageRuleId;
  tests: string;
  threshold: number | null;
  reason: string;
}

/** The ids of the stage walk's rules, as results name them. */
export type StageRuleId =
  | 'learned-judge'
  | 'no-golden-answer'
  | 'states-answer'
  | 'whole-memory'
  | 'topic-anchor'
  | 'own-time'
  | 'premises'
  | 'context-states'
  | 'store-states'
  | 'memory-lost'
  | 'never-stored'
  | 'stating-evidence-first'
  | 'stage-judge';

/** Which rules are on, and their thresholds (the ablation and the threshold search set these). */
export interface StageSettings {
  off: ReadonlySet<StageRuleId>;
  /** `topic-anchor`: question words (no names) a stating unit must share with the question. */
  minTopicWords: number;
  /** `premises`: the share of an evidence message's words (`unitScore`) a unit must keep to carry it. */
  minPremise: number;
  /** `whole-memory`: evidence-flow reads a unit of at most this many sentences whole as well as by windows. */
  wholeMemorySentences: number;
}

/** The settings results are made with: every rule on, thresholds as chosen by `bench/attribution-rules.ts`. */
export const DEFAULT_STAGE_SETTINGS: StageSettings = {
  off: new Set(),
  minTopicWords: 2,
  minPremise: 0.5,
  wholeMemorySentences: 15,
};

/** The decision procedure (see the module comment); `threshold` is the default's. */
export const STAGE_RULES: readonly StageRule[] = [
  {
    id: 'learned-judge',
    tests:
      "the trace's judge verdicts teach a carrying test (at least 3 passed and 3 failed answers, here or in traces of the same judge opened with it)",
    threshold: null,
    reason:
      'with a judge to learn from, the evidence-flow procedure follows each evidence message unit by unit under that test (evidence-flow.ts); without one, the stage walk below decides with the conservative prior',
  },
  {
    id: 'no-golden-answer',
    tests:
      "the golden answer is empty or says the conversation does not answer the question; a retrieved line shares the question's words",
    threshold: null,
    reason:
      'nothing had to be remembered, yet an answer was made: from retrieved lines on the question’s topic that answer something else (another person’s, another time’s), so the op that brought them is blamed (RetrievalError); with no such line, the answer op that did not decline (ResponseError)',
  },
  {
    id: 'states-answer',
    tests:
      "a unit of text gives the golden answer under the trace's answer rule (fitted to its judge, else the prior: every word of a short answer, two in three of longer ones; a date answer as a date — also where dates are read as words: under token F1 the day a unit was written counts only when it is within the answer's time or the day the answer is written against; under a judge counting date words a relative time adds its words only when it is not outside the answer's time); with several evidence messages under a judge counting a share of the answer's words, a unit keeps a message when it can stand in for it: beside every set of the other messages that falls short of the share alone and reaches it with this one, the unit reaches it too, counting any of the answer's words it holds); a unit holding the evidence message's own word for an answer word the message gives in another form of the same lemma (\"Dance\" for \"dancing\") keeps that word",
    threshold: null,
    reason:
      'the one test every stage is put to, the same the judge applied to the prediction; a message is lost where the answer would have been right had that stage kept it, so a message that answers alone must be kept well enough to answer alone — and no stage is held to a word form its input never had',
  },
  {
    id: 'whole-memory',
    tests:
      'under a learned judge (evidence-flow), a memory unit of at most the threshold of sentences is read whole as well as by windows of one or two sentences; a longer one by windows only (the stage walk always reads a unit whole)',
    threshold: DEFAULT_STAGE_SETTINGS.wholeMemorySentences,
    reason:
      'a summary names its people once and gives the answer sentences later ("John and Tim met…", "They discussed Seattle"): read by windows it never names who the answer is about; in a long unit (an episode quoting a dialogue, a chunk of turns) words far apart are no one statement',
  },
  {
    id: 'topic-anchor',
    tests:
      'the stating unit also shares words (not names) with the question: the threshold, or every such word of a shorter question',
    threshold: DEFAULT_STAGE_SETTINGS.minTopicWords,
    reason:
      'answer words alone in an unrelated line ("yes", a shared name, a common noun) do not state the answer to this question',
  },
  {
    id: 'own-time',
    tests: "relative times in a unit are read against the unit's own time (its head or its metadata)",
    threshold: null,
    reason: '"last week" in a memory written in May names a day in May, not the day of the question',
  },
  {
    id: 'premises',
    tests:
      'when no evidence message states the answer (it is inferred), a stage holds it when its units carry every evidence message (its words, lemmas and near-synonyms)',
    threshold: DEFAULT_STAGE_SETTINGS.minPremise,
    reason: 'an inferred answer needs its premises: a stage that kept them all could have answered',
  },
  {
    id: 'context-states',
    tests: "a unit of the answer op's context states the answer",
    threshold: null,
    reason: 'the answer op had what it needed: it is at fault, whatever was lost elsewhere (ResponseError)',
  },
  {
    id: 'store-states',
    tests:
      'a unit of the store at question time states the answer, the context does not; blamed: the question-time op that wrote the context, or — when no question-time op read the stating unit — the latest one on the way to the context that reads the store',
    threshold: null,
    reason:
      'the memory had it and the question-time ops did not bring it (RetrievalError); an op after the search (a rerank, a filter) reads only what the search chose, so it cannot drop what it never got',
  },
  {
    id: 'memory-lost',
    tests: 'an earlier version of a memory stated the answer, no current one does',
    threshold: null,
    reason:
      'the op that ended the last stating version lost it (UpdateError, or DeletionError when it emptied it)',
  },
  {
    id: 'never-stored',
    tests: 'no memory written before the question ever stated the answer',
    threshold: null,
    reason: 'construction never kept it: the op that read the evidence is at fault (ExtractionError)',
  },
  {
    id: 'stating-evidence-first',
    tests:
      'of the evidence messages, the blamed extraction is the one that read the earliest message stating the answer',
    threshold: null,
    reason:
      'an extraction that skipped small talk lost nothing; the one that read the stating message did (else the earliest evidence)',
  },
  {
    id: 'stage-judge',
    tests:
      'an uncertain verdict, with a model configured (--judge-model, the app\'s "Ask the model"): per stage (context, store, every memory), "does this text state the answer?", 3 votes, a majority decides; with no golden answer, only the context: "does it read as an answer all the same?"',
    threshold: null,
    reason: 'words cannot settle paraphrases and inferences; a model reads them as the people who label do',
  },
];

/** The rules only evidence-flow reads (under a learned judge); the stage walk's are the others after `states-answer`. */
export const FLOW_RULES: readonly StageRuleId[] = ['whole-memory'];

/** The table's text for a rule id a result names (`flow:<type>` is evidence-flow's verdict under a learned judge). */
export function ruleTest(id: string): string {
  if (id.startsWith('flow:'))
    return `evidence-flow followed the evidence unit by unit and found ${id.slice(5)}`;
  return STAGE_RULES.find((r) => r.id === id)?.tests ?? id;
}
