import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicExports } from '../../scripts/check-tsdoc.ts';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, '../fixtures/tsdoc');

/** Runs the checker as `npm test` does; its exit status and both streams. */
function run(root: string): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-tsdoc.ts', root], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('scripts/check-tsdoc.ts on the violating sample (tests/fixtures/tsdoc)', () => {
  it('sees both exports, the re-export resolved to its declaration', () => {
    // As the sample's README describes it: one documented, one renamed re-export without a doc.
    expect(publicExports(FIXTURE)).toEqual([
      {
        index: 'src/core/sample/index.ts',
        name: 'documented',
        declaredIn: 'src/core/sample/documented.ts',
        documented: true,
      },
      {
        index: 'src/core/sample/index.ts',
        name: 'renamed',
        declaredIn: 'src/core/sample/undocumented.ts',
        declaredAs: 'bare',
        documented: false,
      },
    ]);
  });

  it('exits 1 naming exactly the undocumented export', () => {
    const r = run(FIXTURE);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      'TSDoc missing on 1 of 2 core exports:',
      'src/core/sample/index.ts: renamed (declared in src/core/sample/undocumented.ts as bare)',
    ]);
  });

  it('fails on a root with no src/core/*/index.ts instead of passing with nothing checked', () => {
    const r = run(join(FIXTURE, 'src'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no exports found');
  });
});

describe('scripts/check-tsdoc.ts on the real tree', () => {
  it('passes: every export of src/core/*/index.ts is documented', () => {
    const r = run(ROOT);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^tsdoc: ok \(\d+ core exports documented\)\n$/);
    expect(Number(/\((\d+) /.exec(r.stdout)?.[1])).toBeGreaterThan(0);
  });
});
