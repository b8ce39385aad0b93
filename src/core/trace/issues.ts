/** Problems found while reading a trace file, each with the file and the place. */
import { oneLine } from '../text/index.light.ts';

/** An error stops the import; a warning does not. */
export type Severity = 'error' | 'warning';

/**
 * One problem found while reading a trace: its severity, a stable code, the message, and the file and
 * place.
 */
export interface TraceIssue {
  severity: Severity;
  /** Stable machine-readable kind, e.g. `json-syntax`, `duplicate-id`, `dangling-endpoint`. */
  code: string;
  message: string;
  file: string;
  /** Record path such as `data.edges[12].op_id`. */
  path?: string;
  /** 1-based position, for JSON syntax errors. */
  line?: number;
  column?: number;
}

/** `file:line:column` or `file: path` — the place a person should look. */
export function issuePlace(issue: TraceIssue): string {
  if (issue.line !== undefined) return `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  return issue.path ? `${issue.file}: ${issue.path}` : issue.file;
}

/** One line for people: `place: severity: message` (control characters and line breaks from the trace escaped). */
export function formatIssue(issue: TraceIssue): string {
  return oneLine(`${issuePlace(issue)}: ${issue.severity}: ${issue.message}`);
}

/** Collects issues up to a cap and counts the rest, so a broken 100 MB file cannot flood memory. */
export class IssueCollector {
  readonly issues: TraceIssue[] = [];
  errorCount = 0;
  warningCount = 0;
  constructor(
    readonly file: string,
    readonly cap = 200,
  ) {}

  add(
    severity: Severity,
    code: string,
    message: string,
    place: { path?: string; line?: number; column?: number } = {},
  ) {
    if (severity === 'error') this.errorCount++;
    else this.warningCount++;
    if (this.issues.length < this.cap)
      this.issues.push({ severity, code, message, file: this.file, ...place });
  }
  error(code: string, message: string, path?: string) {
    this.add('error', code, message, path === undefined ? {} : { path });
  }
  warn(code: string, message: string, path?: string) {
    this.add('warning', code, message, path === undefined ? {} : { path });
  }
  get hasErrors() {
    return this.errorCount > 0;
  }
  /** The issues, plus one line saying how many were left out past the cap. */
  finish(): TraceIssue[] {
    const total = this.errorCount + this.warningCount;
    if (total <= this.issues.length) return this.issues;
    const omitted = total - this.issues.length;
    return [
      ...this.issues,
      {
        severity: this.hasErrors ? 'error' : 'warning',
        code: 'more-issues',
        message: `${omitted} more problem(s) not listed (${this.errorCount} errors, ${this.warningCount} warnings in all)`,
        file: this.file,
      },
    ];
  }
}
