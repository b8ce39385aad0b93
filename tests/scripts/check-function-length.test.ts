import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionLengths, longFunctions } from '../../scripts/check-function-length.ts';

const ROOT = join(import.meta.dirname, '../..');

/** `n` body lines of plain statements, so a function written around them spans n + 2 lines. */
const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');

// Sizes written by hand: a declaration of 81 lines (79 body lines + its two brace lines), one of
// exactly 80, one of 81 excused by a comment, a method of 81 and an arrow of 90 in a variable.
const SAMPLE = [
  `let x = 0;`,
  `export function tooLong() {\n${body(79)}\n}`,
  `function justRight() {\n${body(78)}\n}`,
  `// A scanner's state machine: it must be one piece.\nfunction excused() {\n${body(79)}\n}`,
  `/** Explained, but a blank line away. One piece. */\n\nfunction notExcused() {\n${body(79)}\n}`,
  `class K {\n  method() {\n${body(79)}\n  }\n}`,
  `const arrow = () => {\n${body(88)}\n};`,
].join('\n');

const dir = mkdtempSync(join(tmpdir(), 'fnlen-'));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src/sample.ts'), SAMPLE);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(root: string): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/check-function-length.ts', root],
      {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      },
    );
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('scripts/check-function-length.ts on a written sample', () => {
  it('measures each function from its first line to its closing brace', () => {
    const byName = Object.fromEntries(functionLengths(dir).map((f) => [f.name, f.lines]));
    expect(byName).toEqual({
      tooLong: 81,
      justRight: 80,
      excused: 81,
      notExcused: 81,
      method: 81,
      arrow: 90,
    });
  });

  it('names the long ones without a "one piece" comment right above, longest first', () => {
    expect(longFunctions(functionLengths(dir)).map((f) => f.name)).toEqual([
      'arrow',
      'tooLong',
      'notExcused',
      'method',
    ]);
  });

  it('exits 1 listing them, and fails on a root with no sources', () => {
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')[0]).toBe('4 functions over 80 lines without a "one piece" comment:');
    expect(r.stdout).toContain('one piece (81 lines): src/sample.ts:');
    expect(run(join(dir, 'src')).status).toBe(1);
  });
});
