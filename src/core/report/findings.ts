/** The report's headline sentences and number formats, shared by the Markdown and HTML renderings. */
import { FEATURES, type FeatureId } from './features.ts';
import type { ErrorReport, FeatureRow } from './types.ts';

/** Minimum cases behind a finding, and the sample size under which it is called small. */
export const FINDING_MIN_COUNT = 3;
/** Cases with the feature below which a finding is marked a small sample. */
export const SMALL_SAMPLE = 20;
/** Minimum lift for a feature to be called out. */
export const FINDING_MIN_LIFT = 1.5;

/** A share as a percentage with one decimal (`12.5 %`), `–` for null. */
export function pct(x: number | null): string {
  return x === null ? '–' : `${(100 * x).toFixed(1)} %`;
}

/** A 95 % interval as "[a–b %]". */
export function ci(low: number, high: number): string {
  return `[${(100 * low).toFixed(1)}–${(100 * high).toFixed(1)} %]`;
}

/** A lift as `2.50×`, `–` for null. */
export function times(x: number | null): string {
  return x === null ? '–' : `${x.toFixed(2)}×`;
}

/** The words a report uses for a feature (its id when unknown). */
export function featureLabel(id: FeatureId): string {
  return FEATURES.find((f) => f.id === id)?.label ?? id;
}

/**
 * A headline sentence about a feature that makes an error type more frequent, with its row and whether the
 * sample is small.
 */
export interface Finding {
  row: FeatureRow;
  /** "UpdateError is 3.10× as frequent with a relative date in the evidence (5 of 9 cases, 55.6 % [26.7–81.1 %])". */
  text: string;
  small: boolean;
}

/** Features that make an error type clearly more frequent, strongest first. */
export function findings(report: ErrorReport): Finding[] {
  return report.features
    .filter((r) => r.lift !== null && r.lift >= FINDING_MIN_LIFT && r.count >= FINDING_MIN_COUNT)
    .sort((a, b) => (b.lift ?? 0) - (a.lift ?? 0) || b.count - a.count)
    .map((row) => {
      const small = row.with_feature < SMALL_SAMPLE;
      return {
        row,
        small,
        text:
          `${row.error_type} is ${times(row.lift)} as frequent with "${featureLabel(row.feature)}" ` +
          `(${row.count} of ${row.with_feature} such cases, ${pct(row.rate)} ${ci(row.ci_low, row.ci_high)}; ` +
          `${pct(report.by_error_type[row.error_type] / Math.max(1, report.cases))} overall)` +
          (small ? ' — small sample' : ''),
      };
    });
}
