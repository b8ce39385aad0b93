/**
 * Evaluation results as files: CSV (one row per case, RFC 4180 quoting, cells that a
 * spreadsheet would run as a formula made inert) and JSON (the run, its summary and cases).
 */
import type { EvaluatedCase, EvaluationRun } from '../../db/runs.ts';

/** The CSV columns, in order. */
const CSV_COLUMNS = [
  'trace_file',
  'trace_id',
  'system',
  'query_id',
  'question',
  'label_type',
  'label_op',
  'predicted_type',
  'predicted_op',
  'type_correct',
  'op_correct',
  'seconds',
  'input_tokens',
  'output_tokens',
  'method',
  'reason',
] as const;

/**
 * Text a spreadsheet would read as a formula (OWASP "CSV injection"): starting with `= + - @`,
 * a tab, CR or LF, or with such a sign behind characters a reader cannot see — white space,
 * controls, format characters (Unicode Cf: zero-width space, joiners, bidi marks, BOM) and
 * other default-ignorable ones (Hangul fillers, variation selectors) — which some spreadsheets
 * trim or drop. Read after NFKC folding, so the full-width and small forms (`＝`, `﹦`, …) count.
 */
const FORMULA_START = /^(?:[\t\r\n]|[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*[=+\-@])/u;

/** One CSV field: quoted when it holds a comma, quote or line break; text a spreadsheet would run as a formula prefixed with `'`. */
export function csvField(value: string | number | boolean | null): string {
  let s = value === null ? '' : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s.normalize('NFKC'))) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The cases of a run as CSV text (CRLF line ends, a header row). */
export function casesCsv(cases: EvaluatedCase[], fileOf: (traceId: string) => string): string {
  const rows = cases.map((c) => {
    const cells: Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null> = {
      trace_file: fileOf(c.trace_id),
      trace_id: c.trace_id,
      system: c.system,
      query_id: c.query_id,
      question: c.question,
      label_type: c.label_type,
      label_op: c.label_op,
      predicted_type: c.predicted_type,
      predicted_op: c.predicted_op,
      type_correct: c.predicted_type === c.label_type,
      op_correct: c.label_op !== null && c.predicted_op === c.label_op,
      seconds: c.seconds,
      input_tokens: c.input_tokens,
      output_tokens: c.output_tokens,
      method: c.method,
      reason: c.reason,
    };
    return CSV_COLUMNS.map((k) => csvField(cells[k])).join(',');
  });
  return `${[CSV_COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}

/** The run as JSON: parameters, status, times, summary and every case. */
export function runJson(run: EvaluationRun, fileOf: (traceId: string) => string): string {
  return JSON.stringify(
    {
      run: {
        id: run.id ?? null,
        method: run.method,
        status: run.status,
        created_at: new Date(run.createdAt).toISOString(),
        finished_at: run.finishedAt ? new Date(run.finishedAt).toISOString() : null,
        parameters: run.parameters,
      },
      traces: run.parameters.traceIds.map((id) => ({ trace_id: id, file: fileOf(id) })),
      summary: run.result?.summary ?? null,
      cases: run.result?.cases ?? [],
      missing: run.result?.missing ?? [],
    },
    null,
    2,
  );
}

/** The cases of one confusion-matrix cell (`none` = no decisive error predicted). */
export function casesOfCell(cases: EvaluatedCase[], label: string, predicted: string): EvaluatedCase[] {
  return cases.filter((c) => c.label_type === label && (c.predicted_type ?? 'none') === predicted);
}
