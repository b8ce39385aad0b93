/**
 * Agreement between annotators (people, files, engines — an engine is one more annotator):
 * labels pair by (graph_id, query_id); each annotator's newest record of a case is their label.
 * Per pair: how many cases both labelled, how often they disagree on the op and on the
 * type, Cohen's κ on the type, and the confusion matrix of their types. Over all: Fleiss' κ,
 * disagreement per error type, and the disputed cases with everyone's label and reason.
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
} from '../labels/record.ts';
import { rate } from '../report/stats.ts';
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
  pairs: PairAgreement[];
  fleiss_kappa: number | null;
  by_error_type: Record<string, TypeDisagreement>;
  disputed: DisputedCase[];
}

/** Options of `agreement`. */
export interface AgreementOptions {
  /** Leave these annotators out (e.g. the adjudicator's final labels). */
  exclude?: (annotator: string) => boolean;
}

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

  const pairs: PairAgreement[] = [];
  for (let i = 0; i < annotators.length; i++)
    for (let j = i + 1; j < annotators.length; j++) {
      const a = annotators[i];
      const b = annotators[j];
      const both: [LabelRecord, LabelRecord][] = [];
      for (const labels of byCase.values()) {
        const la = labels.get(a);
        const lb = labels.get(b);
        if (la && lb) both.push([la, lb]);
      }
      const confusion: Record<string, Record<string, number>> = Object.create(null);
      for (const [la, lb] of both) {
        confusion[la.errorType] ??= Object.create(null);
        confusion[la.errorType][lb.errorType] = (confusion[la.errorType][lb.errorType] ?? 0) + 1;
      }
      pairs.push({
        a,
        b,
        n: both.length,
        op_disagreement: rate(both.filter(([x, y]) => x.opId !== y.opId).length, both.length),
        type_disagreement: rate(both.filter(([x, y]) => x.errorType !== y.errorType).length, both.length),
        cohen_kappa: cohenKappa(both.map(([x, y]) => [x.errorType, y.errorType] as const)),
        confusion,
      });
    }

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
