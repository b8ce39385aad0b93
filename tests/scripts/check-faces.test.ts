/**
 * scripts/check-faces.ts: a face with `export *`, or naming what no file outside its module
 * imports, fails the check with its place; `--write` narrows it to the names used, and the
 * check passes; the real tree passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Runs the checker as `npm test` does (cwd the project), on `root`. */
function run(root: string, ...flags: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-faces.ts', root, ...flags], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A module `m` (a.ts: used and unused names, b.ts: never used) whose face re-exports everything, used by the app. */
function sample(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-faces-'));
  made.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const files: Record<string, string> = {
    'src/core/m/a.ts':
      'export const used = 1;\nexport interface Shape {\n  n: number;\n}\nexport const unused = 2;\n',
    'src/core/m/b.ts': 'export const never = 3;\n',
    'src/core/m/index.ts': "/** The sample module. */\nexport * from './a.ts';\nexport * from './b.ts';\n",
    'src/app/use.ts':
      "import { type Shape, used } from '../core/m/index.ts';\nexport const s: Shape = { n: used };\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('scripts/check-faces.ts', () => {
  it('fails on `export *` and on names no other module imports, naming the face and the names', () => {
    const dir = sample();
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.out).toContain('src/core/m/index.ts:2: `export *`');
    expect(r.out).toContain('src/core/m/index.ts:3: `export *`');
    expect(r.out).toMatch(
      /src\/core\/m\/index\.ts: exports what no file outside the module imports: (unused, never|never, unused)/,
    );
  });

  it('--write narrows the face to the names used (values and types), and the check then passes', () => {
    const dir = sample();
    expect(run(dir, '--write').status).toBe(0);
    const face = readFileSync(join(dir, 'src/core/m/index.ts'), 'utf8');
    expect(face).toContain('/** The sample module. */');
    expect(face).not.toContain('export *');
    expect(face).toMatch(/export \{ type Shape, used \} from ['"]\.\/a\.ts['"];/);
    expect(face).not.toMatch(/unused|never|b\.ts/);
    expect(run(dir).status).toBe(0);
  });

  it('passes on the real tree', () => {
    const r = run(ROOT);
    expect(r.out).toMatch(/^faces: ok/m);
    expect(r.status).toBe(0);
  }, 120_000);
});
