/**
 * The trace's own judge, learned from its verdicts: every question it judged — passed and
 * failed — is a (prediction, golden answer, verdict) example of when a text gives the answer.
 * The rule that best reproduces them (`fitAnswerRule`) is the carrying test the attributor
 * applies to memory units, contexts and summaries of that trace. Computed once per graph.
 */
import { listCases, type TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import { type AnswerRuleFit, fitAnswerRule, type JudgedSample } from './answer-rule.ts';
import { answerFeatures, type CriticalOptions } from './critical.ts';

/** A judged question as a training example (features of its prediction against each golden answer). */
export function judgedSample(c: TraceCase, options: CriticalOptions = {}): JudgedSample | null {
  if (c.judgeScore === null || c.prediction === null) return null;
  const golden = c.goldenAnswers.filter((a) => a.trim() !== '');
  if (golden.length === 0) return null;
  const said = { text: c.prediction, day: null, speaker: null };
  return {
    queryId: c.queryId,
    features: golden.map((a) => answerFeatures(said, a, c.question, options)),
    correct: c.judgeScore > 0,
  };
}

const fits = new WeakMap<TraceGraph, Map<string, AnswerRuleFit>>();

/**
 * The answer rule of a trace's judge (cached per graph and word-matching setup). `key` names
 * the setup (the word vectors change what "by meaning" finds).
 */
export function traceAnswerRule(
  g: TraceGraph,
  options: CriticalOptions = {},
  key = 'default',
): AnswerRuleFit {
  let byKey = fits.get(g);
  if (!byKey) {
    byKey = new Map();
    fits.set(g, byKey);
  }
  let fit = byKey.get(key);
  if (!fit) {
    const samples = listCases(g, { includePassed: true })
      .map((c) => judgedSample(c, options))
      .filter((s): s is JudgedSample => s !== null);
    fit = fitAnswerRule(samples);
    byKey.set(key, fit);
  }
  return fit;
}

/** What decides which word matching the judge is fitted with: the attributor's matcher setup. */
export interface JudgeFitSetup {
  /** `lexical` ignores word meaning. */
  layer?: string;
  similar?: CriticalOptions['similar'];
  answerSimilarity?: number;
}

/**
 * The trace's judge as the evidence-flow attributor with this setup learns it: the one fit
 * both the attributor and `memtrace judge` report.
 */
export function traceJudgeFit(g: TraceGraph, setup: JudgeFitSetup): AnswerRuleFit {
  const similar = setup.layer === 'lexical' ? null : (setup.similar ?? null);
  return traceAnswerRule(
    g,
    { similar, answerSimilarity: setup.answerSimilarity },
    similar ? 'vectors' : 'words',
  );
}
