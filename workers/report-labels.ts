/**
 * Which labels stand for a case's verdict in an evidence-flow report (a light file: the page
 * names them without loading the report's code).
 */

/**
 * `people` (the default) — a case's newest label besides the file's (a person's, a correction,
 * the queue, an imported annotations file, adjudicated: as the Cases list shows it); `none` —
 * the attributor's verdicts only; or a label choice of core/labels (`file`,
 * `source:<label_source>`, `annotator:<name>`).
 */
export type ReportLabels = string;

/** The default label source of a report: the newest label people gave a case. */
export const PEOPLE_LABELS: ReportLabels = 'people';

/** The label source that takes no label: every verdict is the attributor's. */
export const NO_LABELS: ReportLabels = 'none';
