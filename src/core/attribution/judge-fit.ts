/**
 * The trace's own judge, learned from its verdicts: every question it judged — passed and
 * failed — is a (prediction, golden answer, verdict) example of when a text gives the answer.
 * The rule that best reproduces them (`fitAnswerRule`) is the carrying test the attributor
 * applies to memory units, contexts and summaries of that trace. Computed once per graph.
 */

import { appendAll } from '../arrays.ts';
import { listCases, type TraceCase } from '../cases/index.ts';
import { opMetadata, type TraceGraph } from '../graph/index.ts';
import { type AnswerRuleFit, fitAnswerRule, type JudgedSample, ruleAgreement } from './answer-rule.ts';
import { answerFeatures, type CriticalOptions } from './critical.ts';

/** A judged question as a training example (features of its prediction against each golden answer). */
export function judgedSample(c: TraceCase, options: CriticalOptions = {}): JudgedSample | null {
  if (c.judgeScore === null || c.prediction === null) return null;
  const golden = c.goldenAnswers.filter((a) => a.trim() !== '');
  if (golden.length === 0) return null;
  const said = { text: c.prediction, day: null, speaker: null };
  return {
    queryId: c.queryId,
    features: golden.map((a) => answerFeatures(said, a, c.question, options, true)),
    correct: c.judgeScore > 0,
  };
}

const fits = new WeakMap<TraceGraph, Map<string, AnswerRuleFit>>();

/** A trace's judged questions as examples, with the word-matching setup's options. */
function judgedSamples(g: TraceGraph, options: CriticalOptions): JudgedSample[] {
  return listCases(g, { includePassed: true })
    .map((c) => judgedSample(c, options))
    .filter((s): s is JudgedSample => s !== null);
}

function keptFit(g: TraceGraph, key: string): AnswerRuleFit | undefined {
  return fits.get(g)?.get(key);
}

function keepFit(g: TraceGraph, key: string, fit: AnswerRuleFit): void {
  let byKey = fits.get(g);
  if (!byKey) {
    byKey = new Map();
    fits.set(g, byKey);
  }
  byKey.set(key, fit);
}

/** What decides which word matching the judge is fitted with: the attributor's matcher setup. */
export interface JudgeFitSetup {
  /** `lexical` ignores word meaning. */
  layer?: string;
  similar?: CriticalOptions['similar'];
  answerSimilarity?: number;
  /** The same judge's verdicts in the traces opened with this one. */
  judgePool?: JudgePool;
}

/**
 * The judge rule the attributor runs on `g`: learned from `g`'s own verdicts; when they are
 * too few, from the same judge's verdicts in `setup.judgePool` (`pooled`) if those suffice;
 * else the prior. The fit's counts and agreement are always `g`'s own verdicts under the rule.
 */
export function judgeFitOf(
  g: TraceGraph,
  setup: JudgeFitSetup,
): { fit: AnswerRuleFit; source: 'fitted' | 'pooled' | 'prior' } {
  const own = traceJudgeFit(g, setup);
  const pooled = own.source === 'prior' ? setup.judgePool?.fitOf(g) : null;
  return pooled ? { fit: pooled, source: 'pooled' } : { fit: own, source: own.source };
}

/**
 * The trace's judge as the evidence-flow attributor with this setup learns it: the one fit
 * both the attributor and `memtrace judge` report.
 */
export function traceJudgeFit(g: TraceGraph, setup: JudgeFitSetup): AnswerRuleFit {
  const steps = judgeFitSteps(g, setup);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * `traceJudgeFit` in steps: it pauses after each judged question (a second of language work
 * on a large trace), so a worker can answer other requests between them. Returns, and keeps
 * with the graph (cached per word-matching setup), the same fit.
 */
export function* judgeFitSteps(g: TraceGraph, setup: JudgeFitSetup): Generator<void, AnswerRuleFit, void> {
  const { options, key } = fitOptions(setup);
  const kept = keptFit(g, key);
  if (kept) return kept;
  const samples: JudgedSample[] = [];
  for (const c of listCases(g, { includePassed: true })) {
    const sample = judgedSample(c, options);
    if (sample) samples.push(sample);
    yield;
  }
  const fit = keptFit(g, key) ?? fitAnswerRule(samples);
  keepFit(g, key, fit);
  return fit;
}

/**
 * The word matching a fit with this setup was learned with (`vectors` or `words`): a fit kept
 * outside the graph (stored with its trace) is only given back for the same one.
 */
export function judgeFitMatching(setup: JudgeFitSetup): string {
  return fitOptions(setup).key;
}

/**
 * Gives `g` the fit `traceJudgeFit(g, setup)` would compute, worked out earlier (stored with
 * its trace by the same code and word vectors), so it is not computed again.
 */
export function adoptJudgeFit(g: TraceGraph, setup: JudgeFitSetup, fit: AnswerRuleFit): void {
  keepFit(g, fitOptions(setup).key, fit);
}

function fitOptions(setup: JudgeFitSetup): { options: CriticalOptions; key: string } {
  const similar = setup.layer === 'lexical' ? null : (setup.similar ?? null);
  return {
    options: { similar, answerSimilarity: setup.answerSimilarity },
    key: similar ? 'vectors' : 'words',
  };
}

/**
 * Who judged a trace: its judge ops' name, description and settings (the most common, when
 * they differ). The same identity in several traces is taken for one judge. null: no judge op.
 */
export function judgeIdentity(g: TraceGraph): string | null {
  let id = identities.get(g);
  if (id === undefined) {
    id = mostCommonJudge(g);
    identities.set(g, id);
  }
  return id;
}

const identities = new WeakMap<TraceGraph, string | null>();

function mostCommonJudge(g: TraceGraph): string | null {
  const seen = new Map<string, number>();
  for (const c of listCases(g, { includePassed: true })) {
    const op = c.judgeOpId === null ? undefined : g.opIndex.get(c.judgeOpId);
    if (op === undefined) continue;
    const meta = opMetadata(g, op);
    const sorted = Object.keys(meta)
      .sort()
      .map((k) => [k, meta[k]]);
    const id = JSON.stringify([g.opName[op], g.ops[op].comment ?? null, sorted]);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [id, n] of seen) if (best === null || n > (seen.get(best) ?? 0)) best = id;
  return best;
}

/**
 * The verdicts of one judge across several traces (a benchmark run, a set of files opened
 * together). A trace with too few verdicts of either kind to learn its judge from (a strict
 * judge that passed two of 150 answers) learns it from the same judge's verdicts in the others.
 */
export class JudgePool {
  private readonly samples = new Map<string, JudgedSample[]>();
  private readonly fitted = new Map<string, AnswerRuleFit>();
  private perTrace = new WeakMap<TraceGraph, AnswerRuleFit | null>();
  private readonly options: CriticalOptions;

  constructor(setup: JudgeFitSetup) {
    this.options = fitOptions(setup).options;
  }

  /** Adds a trace's verdicts under its judge's identity. */
  add(g: TraceGraph): void {
    const id = judgeIdentity(g);
    if (id === null) return;
    const list = this.samples.get(id) ?? [];
    appendAll(list, judgedSamples(g, this.options));
    this.samples.set(id, list);
    this.fitted.delete(id);
    this.perTrace = new WeakMap();
  }

  /** The rule learned from every verdict of `g`'s judge in the pool (null: `g`'s judge is not in it). */
  fitFor(g: TraceGraph): AnswerRuleFit | null {
    const id = judgeIdentity(g);
    const list = id === null ? undefined : this.samples.get(id);
    if (id === null || !list) return null;
    let fit = this.fitted.get(id);
    if (!fit) {
      fit = fitAnswerRule(list);
      this.fitted.set(id, fit);
    }
    return fit;
  }

  /**
   * The pooled rule as `g` runs it, its counts and agreement over `g`'s own verdicts (null when
   * the pool learned no rule for `g`'s judge). Once per trace: the attributor asks per case.
   */
  fitOf(g: TraceGraph): AnswerRuleFit | null {
    let mine = this.perTrace.get(g);
    if (mine === undefined) {
      const pooled = this.fitFor(g);
      mine =
        pooled?.source === 'fitted'
          ? { ...ruleAgreement(pooled.rule, judgedSamples(g, this.options)), source: 'fitted' }
          : null;
      this.perTrace.set(g, mine);
    }
    return mine;
  }
}
