// `npm test`'s chain (scripts/test-chain.mjs), run for real on a tiny temporary project: the real
// biome and vitest (the worktree's node_modules, linked), stub type, layer and TSDoc checks, a planted
// lint error or failing test, and a stale report from an "earlier run" that claims 340 passed.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const STALE = { numPassedTests: 340, numFailedTests: 0, numFailedTestSuites: 0, numPendingTests: 0 };

function project(
  files: Record<string, string>,
  vitestScript = 'vitest run --reporter=json --outputFile.json=test-results/vitest.json',
) {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-chain-'));
  made.push(dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(root, 'scripts/test-chain.mjs'), join(dir, 'scripts/test-chain.mjs'));
  const scripts = {
    lint: 'biome lint src',
    typecheck: 'node -e 0',
    'check:layers': 'node -e 0',
    'check:faces': 'node -e 0',
    'check:tsdoc': 'node -e 0',
    'check:function-length': 'node -e 0',
    'test:vitest': vitestScript,
    test: 'node scripts/test-chain.mjs',
  };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'chain', private: true, type: 'module', scripts }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(join(dir, 'test-results'));
  writeFileSync(join(dir, 'test-results/vitest.json'), JSON.stringify(STALE));
  return dir;
}

function chain(dir: string) {
  const r = spawnSync(process.execPath, ['scripts/test-chain.mjs'], { cwd: dir, encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n');
  return {
    status: r.status,
    last: lines[lines.length - 1],
    reportLeft: existsSync(join(dir, 'test-results/vitest.json')),
  };
}

const clean = 'export const two = 1 + 1;\n';
const passing = "import { expect, it } from 'vitest';\nit('adds', () => {\n  expect(1 + 1).toBe(2);\n});\n";
const failing =
  "import { expect, it } from 'vitest';\nit('is wrong', () => {\n  expect(1 + 1).toBe(3);\n});\n";

describe('npm test chain (scripts/test-chain.mjs)', () => {
  it('a lint error fails the run with the linter’s status, names the step and removes the stale report', () => {
    const dir = project({
      'src/bad.ts': 'export function f() {\n  debugger;\n}\n',
      'src/a.test.ts': passing,
    });
    const r = chain(dir);
    expect(r.status).toBe(1);
    expect(r.last).toMatch(/^npm test: lint failed \(exit 1\)/);
    expect(r.reportLeft).toBe(false);
  });

  it('a failing test fails the run and the closing line counts this run’s tests and broken files, not the stale report', () => {
    // One failing test, and one file that cannot even be imported (counted once, as a failure).
    const broken = "import './missing.ts';\n";
    const dir = project({
      'src/a.ts': clean,
      'src/a.test.ts': passing,
      'src/b.test.ts': failing,
      'src/c.test.ts': broken,
    });
    const r = chain(dir);
    expect(r.status).toBe(1);
    expect(r.last).toBe('vitest: 1 passed, 2 failed, 0 skipped');
  });

  it('a test step that writes no report exits with its own status and says so', () => {
    const dir = project({ 'src/a.ts': clean }, 'node -e "process.exit(3)"');
    const r = chain(dir);
    expect(r.status).toBe(3);
    expect(r.last).toMatch(/^test:vitest failed: vitest exited 3 and wrote no report/);
  });

  it('a clean project passes with the plain closing line', () => {
    const dir = project({ 'src/a.ts': clean, 'src/a.test.ts': passing });
    const r = chain(dir);
    expect(r.status).toBe(0);
    expect(r.last).toBe('vitest: 1 passed, 0 failed, 0 skipped');
  });
});
