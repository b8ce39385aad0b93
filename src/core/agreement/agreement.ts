/**
 * Agreement between annotators (people, files, engines — an engine is one more annotator):
 * labels pair by (graph_id, query_id); each annotator's newest record of a case is their label.
 * Per pair of annotators who share cases: how many cases both labelled, how often they disagree
 * on the op and on the type, Cohen's κ on the type, and the confusion matrix of their types.
 * Over all: Fleiss' κ, disagreement per error type, and the disputed cases with everyone's
 * label and reason.
 * Cost: near-linear in labels. Pairs are found through the cases they share (never by trying
 * every two annotators), listed by name up to `maxPairs`, and the search stops there: the work
 * is the labels plus, per listed annotator, the labels of the cases they share; the output
 * holds at most `maxPairs` pairs whatever the number of annotators.
 * Adjudicated labels (source `adjudicated`) are final decisions, not one more opinion: they
 * are left out of the numbers and shown on the disputed case they settle.
 */
import {
  ADJUDICATED_SOURCE,
  annotatorOf,
  caseKey,
  type LabelRecord,
  latestByAnnotator,
  oldestFirst,
  splitCaseKey,
} from '../labels/index.ts';
import { rate } from '../report/index.light.ts';
import { cohenKappa, fleissKappa } from './kappa.ts';

/**
 * How two annotators agree on the cases both labelled: op and type disagreement rates, Cohen's κ on the
 * type, and the confusion matrix of their types.
 */
export interface PairAgreement {
  a: string;
  b: string;
  /** Cases both labelled. */
  n: number;
  /** Share of those cases where their ops differ (null when n = 0). */
  op_disagreement: number | null;
  type_disagreement: number | null;
  cohen_kappa: number | null;
  /** confusion[type of a][type of b] = cases. */
  confusion: Record<string, Record<string, number>>;
}

/** Disagreement among the annotators of the cases where at least one of them gave one error type. */
export interface TypeDisagreement {
  /** Cases labelled by two or more annotators where at least one gave this type. */
  n: number;
  /** Share of them where not every annotator gave the same type. */
  type_disagreement: number;
  /** Share of them where the annotators' ops differ. */
  op_disagreement: number;
}

/** One annotator's label of a disputed case, as the agreement report shows it (snake_case for JSON). */
export interface DisputedLabel {
  annotator: string;
  error_type: string;
  op_id: string | null;
  reason: string;
  label_source: string;
  created_at: string;
}

/**
 * A case its annotators disagree on (type, op or both), with everyone's newest label and the adjudicated
 * one if it was settled.
 */
export interface DisputedCase {
  graph_id: string;
  query_id: string;
  /** What the annotators disagree on. */
  type_disputed: boolean;
  op_disputed: boolean;
  labels: DisputedLabel[];
  /** The newest adjudicated label of the case, if it was settled. */
  adjudicated: DisputedLabel | null;
}

/**
 * What `agreement` returns: the annotators, per-pair agreement, Fleiss' κ over all, disagreement per error
 * type, and the disputed cases.
 */
export interface AgreementReport {
  annotators: string[];
  /** Cases labelled by two or more annotators. */
  shared_cases: number;
  /** Pairs that share at least one case (n > 0), ordered by (a, b), at most `max_pairs` of them. */
  pairs: PairAgreement[];
  /** The cap on `pairs` this report was made with (null: none). */
  max_pairs: number | null;
  /** More pairs share cases than are listed (raise `maxPairs` / `--max-pairs` to see them). */
  pairs_truncated: boolean;
  fleiss_kappa: number | null;
  by_error_type: Record<string, TypeDisagreement>;
  disputed: DisputedCase[];
}

/** Options of `agreement`. */
export interface AgreementOptions {
  /** Leave these annotators out (e.g. the adjudicator's final labels). */
  exclude?: (annotator: string) => boolean;
  /** List at most this many pairs (default DEFAULT_MAX_PAIRS; Infinity: all). */
  maxPairs?: number;
}

/** How many pairs a report lists unless asked otherwise. */
export const DEFAULT_MAX_PAIRS = 1000;

const disputedLabel = (annotator: string, l: LabelRecord): DisputedLabel => ({
  annotator,
  error_type: l.errorType,
  op_id: l.opId,
  reason: l.reason,
  label_source: l.source,
  created_at: l.createdAt,
});

/** The agreement report of a set of label records. */
export function agreement(records: readonly LabelRecord[], options: AgreementOptions = {}): AgreementReport {
  const keep = records.filter((r) => r.source !== ADJUDICATED_SOURCE && !options.exclude?.(annotatorOf(r)));
  const settled = new Map<string, LabelRecord>();
  for (const r of oldestFirst(records)) if (r.source === ADJUDICATED_SOURCE) settled.set(caseKey(r), r);
  const byCase = latestByAnnotator(keep);
  const annotators = [...new Set(keep.map(annotatorOf))].sort();

  const maxPairs = options.maxPairs ?? DEFAULT_MAX_PAIRS;
  const { pairs, truncated } = pairsOf(byCase, annotators, maxPairs);

  const shared = [...byCase].filter(([, labels]) => labels.size >= 2);
  const byType: Record<string, { n: number; type: number; op: number }> = Object.create(null);
  const disputed: DisputedCase[] = [];
  for (const [key, labels] of shared) {
    const list = [...labels.values()];
    const typeDisputed = new Set(list.map((l) => l.errorType)).size > 1;
    const opDisputed = new Set(list.map((l) => l.opId)).size > 1;
    for (const t of new Set(list.map((l) => l.errorType))) {
      byType[t] ??= { n: 0, type: 0, op: 0 };
      byType[t].n++;
      if (typeDisputed) byType[t].type++;
      if (opDisputed) byType[t].op++;
    }
    if (!typeDisputed && !opDisputed) continue;
    const { graphId, queryId } = splitCaseKey(key);
    const final = settled.get(key);
    disputed.push({
      graph_id: graphId,
      query_id: queryId,
      type_disputed: typeDisputed,
      op_disputed: opDisputed,
      labels: [...labels]
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
        .map(([annotator, l]) => disputedLabel(annotator, l)),
      adjudicated: final ? disputedLabel(annotatorOf(final), final) : null,
    });
  }
  disputed.sort((x, y) =>
    x.graph_id === y.graph_id ? (x.query_id < y.query_id ? -1 : 1) : x.graph_id < y.graph_id ? -1 : 1,
  );
  return {
    annotators,
    shared_cases: shared.length,
    pairs,
    max_pairs: Number.isFinite(maxPairs) ? maxPairs : null,
    pairs_truncated: truncated,
    fleiss_kappa: fleissKappa(shared.map(([, labels]) => [...labels.values()].map((l) => l.errorType))),
    by_error_type: Object.fromEntries(
      Object.keys(byType)
        .sort()
        .map((t) => [
          t,
          {
            n: byType[t].n,
            type_disagreement: byType[t].type / byType[t].n,
            op_disagreement: byType[t].op / byType[t].n,
          },
        ]),
    ),
    disputed,
  };
}

/**
 * How two annotators agree (a before b in name order), whatever the report's pair cap: n = 0
 * and undefined rates when they share no case.
 */
export function pairAgreement(records: readonly LabelRecord[], a: string, b: string): PairAgreement {
  const [x, y] = a < b ? [a, b] : [b, a];
  const two = records.filter((r) => {
    const who = annotatorOf(r);
    return who === x || who === y;
  });
  return agreement(two, { maxPairs: 1 }).pairs[0] ?? pairStats(x, y, { types: [], opDiffer: 0 });
}

/** One pair's shared cases while they are counted. */
interface PairCount {
  types: [string, string][];
  opDiffer: number;
}

function pairStats(a: string, b: string, c: PairCount): PairAgreement {
  const confusion: Record<string, Record<string, number>> = Object.create(null);
  for (const [ta, tb] of c.types) {
    confusion[ta] ??= Object.create(null);
    confusion[ta][tb] = (confusion[ta][tb] ?? 0) + 1;
  }
  const n = c.types.length;
  return {
    a,
    b,
    n,
    op_disagreement: rate(c.opDiffer, n),
    type_disagreement: rate(c.types.filter(([x, y]) => x !== y).length, n),
    cohen_kappa: cohenKappa(c.types),
    confusion,
  };
}

/**
 * The pairs that share cases, ordered by (a, b), at most `max`: each annotator in name order
 * meets its partners through its own shared cases (so annotators who share nothing cost
 * nothing), and the walk stops once `max` pairs are listed.
 */
function pairsOf(
  byCase: Map<string, Map<string, LabelRecord>>,
  annotators: string[],
  max: number,
): { pairs: PairAgreement[]; truncated: boolean } {
  const rank = new Map(annotators.map((a, i) => [a, i]));
  const casesOf: Map<string, LabelRecord>[][] = annotators.map(() => []);
  const lastRank = new Map<Map<string, LabelRecord>, number>(); // the highest-ranked annotator of a case
  for (const labels of byCase.values()) {
    if (labels.size < 2) continue;
    let last = -1;
    for (const a of labels.keys()) {
      const r = rank.get(a) as number;
      casesOf[r].push(labels);
      last = Math.max(last, r);
    }
    lastRank.set(labels, last);
  }
  const pairs: PairAgreement[] = [];
  for (let i = 0; i < annotators.length; i++) {
    const partners = new Map<number, PairCount>();
    for (const labels of casesOf[i]) {
      if ((lastRank.get(labels) as number) <= i) continue;
      const mine = labels.get(annotators[i]) as LabelRecord;
      for (const [b, theirs] of labels) {
        const j = rank.get(b) as number;
        if (j <= i) continue;
        const c = partners.get(j) ?? { types: [], opDiffer: 0 };
        partners.set(j, c);
        c.types.push([mine.errorType, theirs.errorType]);
        if (mine.opId !== theirs.opId) c.opDiffer++;
      }
    }
    const order = [...partners.keys()].sort((x, y) => x - y);
    for (const [k, j] of order.entries()) {
      if (pairs.length === max) return { pairs, truncated: true };
      pairs.push(pairStats(annotators[i], annotators[j], partners.get(j) as PairCount));
      if (k === order.length - 1 && pairs.length === max)
        return { pairs, truncated: sharesLater(casesOf, lastRank, i + 1) };
    }
  }
  return { pairs, truncated: false };
}

/** Whether an annotator ranked `from` or later shares a case with a later-ranked one (one more pair exists). */
function sharesLater(
  casesOf: Map<string, LabelRecord>[][],
  lastRank: Map<Map<string, LabelRecord>, number>,
  from: number,
): boolean {
  for (let i = from; i < casesOf.length; i++)
    if (casesOf[i].some((labels) => (lastRank.get(labels) as number) > i)) return true;
  return false;
}
