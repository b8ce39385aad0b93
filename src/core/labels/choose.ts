/**
 * Which labels a score is computed against. Evaluation and `memtrace bench` default to the
 * file's own labels (the ground truth a trace came with); a person can pick a source
 * (`adjudicated`, `person`, `counterfactual`, …) or one annotator instead.
 */
import { annotatorOf, caseKey, type LabelRecord, oldestFirst } from './record.ts';

/** `file` | `source:<label_source>` | `annotator:<name>`. */
export type LabelChoice = string;

/** The choice of the file's own labels (the default ground truth). */
export const FILE_CHOICE: LabelChoice = 'file';

/** A label choice as a select offers it: the value, its text and how many cases it labels. */
export interface LabelChoiceOption {
  value: LabelChoice;
  /** In words, for a select. */
  text: string;
  /** Cases that have a label under this choice. */
  cases: number;
}

/** Whether a record counts under a choice. */
export function matchesChoice(r: LabelRecord, choice: LabelChoice): boolean {
  if (choice === FILE_CHOICE) return r.origin === 'file';
  if (choice.startsWith('source:')) return r.source === choice.slice('source:'.length);
  if (choice.startsWith('annotator:')) return annotatorOf(r) === choice.slice('annotator:'.length);
  return false;
}

/** Whether a string names a choice (`file`, `source:…`, `annotator:…`). */
export function isLabelChoice(choice: string): boolean {
  return (
    choice === FILE_CHOICE ||
    (choice.startsWith('source:') && choice.length > 7) ||
    (choice.startsWith('annotator:') && choice.length > 10)
  );
}

/**
 * The label of each case under a choice, by `caseKey`: for `file`, the case's first
 * annotation in the file (as `listCases` reads it); otherwise the newest matching record.
 */
export function labelsFor(records: readonly LabelRecord[], choice: LabelChoice): Map<string, LabelRecord> {
  const out = new Map<string, LabelRecord>();
  if (choice === FILE_CHOICE) {
    for (const r of records) if (r.origin === 'file' && !out.has(caseKey(r))) out.set(caseKey(r), r);
    return out;
  }
  for (const r of oldestFirst(records)) if (matchesChoice(r, choice)) out.set(caseKey(r), r);
  return out;
}

/** The choices the records offer (the file's own first, then sources, then annotators), with case counts. */
export function labelChoices(records: readonly LabelRecord[]): LabelChoiceOption[] {
  const count = (choice: LabelChoice) => labelsFor(records, choice).size;
  const sources = [...new Set(records.filter((r) => r.origin !== 'file').map((r) => r.source))].sort();
  const annotators = [...new Set(records.map(annotatorOf))].sort();
  return [
    { value: FILE_CHOICE, text: "the file's own labels", cases: count(FILE_CHOICE) },
    ...sources.map((s) => ({ value: `source:${s}`, text: `source: ${s}`, cases: count(`source:${s}`) })),
    ...annotators.map((a) => ({
      value: `annotator:${a}`,
      text: `annotator: ${a}`,
      cases: count(`annotator:${a}`),
    })),
  ];
}
