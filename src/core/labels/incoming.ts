/**
 * Importing someone's labels: each incoming record is new, a duplicate (the same annotator
 * already said the same thing about the case — stored, or earlier in the same import), or a
 * conflict (the same annotator said something else about the case). Different annotators
 * disagreeing is not a conflict: that is what agreement measures. Nothing is merged here;
 * the caller shows the three lists and stores what the person keeps.
 */
import { annotatorOf, caseKey, type LabelRecord, sameVerdict } from './record.ts';

/** How an incoming label relates to what the same annotator already said about the case. */
export type IncomingKind = 'new' | 'duplicate' | 'conflict';

/** One incoming label, classified, with the records it repeats or contradicts. */
export interface IncomingLabel<T extends LabelRecord = LabelRecord> {
  label: LabelRecord;
  kind: IncomingKind;
  /** The stored (or earlier incoming) records of the same annotator and case it repeats or contradicts. */
  against: (T | LabelRecord)[];
}

const whoKey = (r: LabelRecord) => `${caseKey(r)}\u0000${annotatorOf(r)}`;

/**
 * Classifies incoming labels against the stored ones, in order: new, duplicate (same annotator, same
 * verdict, stored or earlier in this import) or conflict (same annotator, another verdict). Stores
 * nothing.
 */
export function classifyIncoming<T extends LabelRecord>(
  stored: readonly T[],
  incoming: readonly LabelRecord[],
): IncomingLabel<T>[] {
  const seen = new Map<string, (T | LabelRecord)[]>();
  for (const r of stored) {
    const k = whoKey(r);
    const list = seen.get(k);
    if (list) list.push(r);
    else seen.set(k, [r]);
  }
  const out: IncomingLabel<T>[] = [];
  for (const label of incoming) {
    const k = whoKey(label);
    const before = seen.get(k) ?? [];
    const same = before.filter((r) => sameVerdict(r, label));
    const other = before.filter((r) => !sameVerdict(r, label));
    const kind: IncomingKind = same.length ? 'duplicate' : other.length ? 'conflict' : 'new';
    out.push({ label, kind, against: same.length ? same : other });
    if (kind !== 'duplicate') seen.set(k, [...before, label]);
  }
  return out;
}
