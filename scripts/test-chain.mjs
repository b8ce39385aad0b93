// `npm test`: runs the package's check scripts in order and stops at the first that fails,
// exiting with its status. The test report is deleted first, so the closing line comes from
// this run's report only — never from a stale one. The last line printed names what failed, or
// is the plain line CI reads: "vitest: N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/** The steps, as npm script names of the package in the working directory. */
const STEPS = [
  'lint',
  'typecheck',
  'check:layers',
  'check:faces',
  'check:tsdoc',
  'check:function-length',
  'test:vitest',
];
/** Where the `test:vitest` script writes vitest's JSON report. */
const REPORT = 'test-results/vitest.json';

function runScript(name) {
  // Through the npm that started us (npm_execpath), so a nested npm is the same version.
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  const r = spawnSync(cmd, [...args, 'run', '--silent', name], { stdio: 'inherit' });
  if (r.error) return { status: 1, why: `could not start (${r.error.message})` };
  if (r.signal) return { status: 1, why: `killed by ${r.signal}` };
  return { status: r.status ?? 1, why: `exit ${r.status}` };
}

/** The closing line and status from this run's report (the step's own status when it failed). */
function summarize(stepStatus) {
  let report;
  try {
    report = JSON.parse(readFileSync(REPORT, 'utf8'));
  } catch (e) {
    const why = e.code === 'ENOENT' ? 'wrote no report' : `wrote an unreadable report (${e.message})`;
    return {
      status: stepStatus || 1,
      line: `test:vitest failed: vitest exited ${stepStatus} and ${why} at ${REPORT}`,
    };
  }
  const passed = report.numPassedTests ?? 0;
  // A file that failed without a failing test (an import error) counts once; a file with
  // failing tests is already counted by them.
  const broken = (report.testResults ?? []).filter(
    (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
  ).length;
  const failed = (report.numFailedTests ?? 0) + broken;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  let line = `vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`;
  let status = stepStatus;
  if (status === 0 && (failed > 0 || passed === 0)) status = 1;
  if (status !== 0 && failed === 0)
    line += passed === 0 ? ' (no test ran)' : ` (vitest exited ${stepStatus})`;
  return { status, line };
}

rmSync(REPORT, { force: true });
for (const step of STEPS) {
  const r = runScript(step);
  if (step === 'test:vitest') {
    const { status, line } = summarize(r.status);
    console.log(line);
    process.exit(status);
  }
  if (r.status !== 0) {
    console.log(`npm test: ${step} failed (${r.why}); later steps not run`);
    process.exit(r.status);
  }
}
