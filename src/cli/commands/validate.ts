import { formatIssue, type TraceIssue } from '../../core/trace/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { eachCheckedFile, traceFilesIn } from '../files.ts';
import { printJson, printLine } from '../io.ts';

interface ValidateReport {
  file: string;
  ok: boolean;
  errors: number;
  warnings: number;
  issues: TraceIssue[];
}

export const validate = command({
  name: 'validate',
  usage: 'memtrace validate <files or dirs…> [--json]',
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<files or dirs…>' },
  options: JSON_FLAG,
  async run({ positionals, values }, io) {
    const files = await traceFilesIn(positionals);
    const reports: ValidateReport[] = [];
    // Checked, not opened: the graph index adds no issue, so validate does not build it.
    await eachCheckedFile(files, io, (r, file) => {
      const count = (s: string) =>
        r.issues.filter((x) => x.severity === s && x.code !== 'more-issues').length;
      reports.push({ file, ok: r.ok, errors: count('error'), warnings: count('warning'), issues: r.issues });
    });
    if (values.json) printJson(io, reports);
    else {
      for (const r of reports) {
        printLine(
          io,
          `${r.ok ? 'ok     ' : 'FAILED '} ${r.file}${r.issues.length ? ` (${r.errors} errors, ${r.warnings} warnings)` : ''}`,
        );
        for (const issue of r.issues) printLine(io, `  ${formatIssue(issue)}`);
      }
    }
    return reports.every((r) => r.ok) ? 0 : 1;
  },
});
