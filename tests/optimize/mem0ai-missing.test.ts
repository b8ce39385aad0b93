/**
 * mem0ai and better-sqlite3 are optional dependencies: when one is not installed, `optimize
 * --system mem0ai` says so in one line naming the package and the install command. The errors
 * here are Node's own, from importing the packages where no node_modules holds them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mem0aiLoadError } from '../../src/systems/optimize/mem0ai-target.node.ts';

const dir = mkdtempSync(join(tmpdir(), 'no-mem0ai-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Node's own error (code and message) for importing `specifier` from a folder with no node_modules. */
function importError(specifier: string): { code: string; message: string } {
  const file = join(dir, 'load.mjs');
  writeFileSync(
    file,
    `import(${JSON.stringify(specifier)}).then(() => console.log('null'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));\n`,
  );
  const out = JSON.parse(execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' }));
  if (!out) throw new Error(`${specifier} was found from ${dir}`);
  return Object.assign(new Error(out.message), { code: out.code });
}

describe('mem0ai missing', () => {
  for (const [specifier, name] of [
    ['mem0ai/oss', 'mem0ai'],
    ['better-sqlite3', 'better-sqlite3'],
  ] as const)
    it(`names ${name} and how to install it, in one line`, () => {
      const message = mem0aiLoadError(importError(specifier)).message;
      expect(message).toBe(
        `${name} is not installed (an optional dependency, needed only for mem0ai): run npm install mem0ai better-sqlite3`,
      );
    });

  it('keeps the first line of any other failure', () => {
    expect(mem0aiLoadError(new Error('boom\n    at x')).message).toBe('mem0ai could not be loaded: boom');
  });
});
