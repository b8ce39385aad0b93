import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineProblems } from '../../scripts/check-engines.ts';

const ROOT = join(import.meta.dirname, '../..');

/** A project folder: its package.json and, per installed package, its manifest. */
function sample(own: object, installed: Record<string, object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'engines-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify(own));
  for (const [name, manifest] of Object.entries(installed)) {
    mkdirSync(join(dir, 'node_modules', name), { recursive: true });
    writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify(manifest));
  }
  dirs.push(dir);
  return dir;
}
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('scripts/check-engines.ts', () => {
  it('names a dependency that needs a newer Node than the project declares (as eventsource-parser 4 did)', () => {
    const dir = sample(
      {
        engines: { node: '>=20' },
        dependencies: { 'eventsource-parser': '4.1.3', ok: '1.0.0' },
        devDependencies: { '@scope/tool': '1.0.0', native: '1.0.0' },
        optionalDependencies: { absent: '1.0.0' },
      },
      {
        'eventsource-parser': { version: '4.1.3', engines: { node: '>=22.12' } },
        ok: { version: '1.0.0' },
        '@scope/tool': { version: '1.0.0', engines: { node: '>=22.12.0' } },
        // Native packages list majors: Node 20 is among them.
        native: { version: '1.0.0', engines: { node: '20.x || 22.x || 24.x' } },
      },
    );
    expect(engineProblems(dir)).toEqual([
      '@scope/tool@1.0.0: engines.node ">=22.12.0" excludes Node 20.0.0 (package.json declares ">=20")',
      'eventsource-parser@4.1.3: engines.node ">=22.12" excludes Node 20.0.0 (package.json declares ">=20")',
    ]);
  });

  it('names a required dependency that is not installed, but not an optional one', () => {
    const dir = sample(
      { engines: { node: '>=20' }, dependencies: { gone: '1' }, optionalDependencies: { maybe: '1' } },
      {},
    );
    expect(engineProblems(dir)).toEqual(['gone: not installed (run npm ci)']);
  });

  it('reads the packages pulled in indirectly from package-lock.json', () => {
    const dir = sample({ engines: { node: '>=20.19.0' }, dependencies: {} }, {});
    writeFileSync(
      join(dir, 'package-lock.json'),
      JSON.stringify({
        packages: {
          '': { engines: { node: '>=20.19.0' } },
          'node_modules/a/node_modules/deep': { version: '2.0.0', engines: { node: '>=22' } },
          'node_modules/fine': { version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
        },
      }),
    );
    expect(engineProblems(dir)).toEqual([
      'deep@2.0.0 (node_modules/a/node_modules/deep, package-lock.json): engines.node ">=22" excludes Node 20.19.0 (package.json declares ">=20.19.0")',
    ]);
  });

  it('passes on this project, and the script exits 0', () => {
    expect(engineProblems(ROOT)).toEqual([]);
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-engines.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out).toContain('every direct dependency accepts the declared Node');
  });
});
