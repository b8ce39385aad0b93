import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, bundlePaths, isFresh, ROOT } from '../../bin/cli-bundle.mjs';
import { loadCommands } from '../../src/cli/main.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const COMMANDS = await loadCommands();

const BIN = join(ROOT, 'bin/memtrace.mjs');
const TMP = mkdtempSync(join(tmpdir(), 'memtrace-bundle-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Runs the real bin as a process, forcing the bundle or tsx. */
function bin(mode: 'bundle' | 'tsx', ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MEMTRACE_CLI: mode },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the built CLI bundle (bin/memtrace.mjs → .cache/cli/memtrace.mjs)', () => {
  beforeAll(async () => {
    await buildBundle();
  });

  it('--help lists every command, as the sources run through tsx do', () => {
    const r = bin('bundle', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(bin('tsx', '--help').stdout);
    for (const c of COMMANDS) {
      expect(r.stdout).toMatch(new RegExp(`^  ${c.name} `, 'm'));
      expect(r.stdout).toContain(c.summary);
    }
  });

  it("stats --json of a real file: the file's counts, the same as through tsx", () => {
    const [file] = smartcommentFiles();
    const r = bin('bundle', 'stats', file, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(JSON.parse(r.stdout).nodes).toBe(doc.data.nodes.length);
    expect(JSON.parse(r.stdout).edges).toBe(doc.data.edges.length);
    expect(bin('tsx', 'stats', file, '--json').stdout).toBe(r.stdout);
  });

  it('exit 1 with the file and line:column of broken JSON; exit 2 on a usage error', () => {
    const bad = join(TMP, 'broken.json');
    const line2 = '  "data": [1,,2]';
    writeFileSync(bad, `{\n${line2}\n}`);
    const r = bin('bundle', 'validate', bad);
    expect(r.code).toBe(1);
    // The second comma of ",," is the first character JSON cannot take (columns count from 1).
    expect(r.stdout).toContain(`${bad}:2:${line2.indexOf(',,') + 2}: error: invalid JSON`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(bin('bundle', 'stats').code).toBe(2); // a missing file argument is a usage error
    expect(bin('bundle', 'frobnicate').code).toBe(2);
  });
});

describe('what a run loads', () => {
  it('--help loads the entry only (no command module, no package); validate and stats no attribution or NLP code', async () => {
    await buildBundle();
    const { always, commands } = JSON.parse(readFileSync(bundlePaths().inputs, 'utf8'));
    expect(always.filter((f: string) => f.startsWith('src/cli/commands/'))).toEqual([]);
    expect(
      always.filter((f: string) => f.includes('node_modules/') && !f.endsWith('.package-lock.json')),
    ).toEqual([]);
    expect(Object.keys(commands).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    for (const light of ['validate', 'stats'])
      expect(commands[light].filter((f: string) => /src\/core\/(attribution|nlp|report)\//.test(f))).toEqual(
        [],
      );
  });
});

describe('bundle freshness (isFresh)', () => {
  /** A tiny CLI tree: main.ts imports util.ts, and loads commands/hello.ts (which imports greet.ts) lazily. */
  function tree(): string {
    const root = mkdtempSync(join(TMP, 'root-'));
    mkdirSync(join(root, 'src/cli/commands'), { recursive: true });
    mkdirSync(join(root, 'bin'));
    cpSync(join(ROOT, 'bin/cli-bundle.mjs'), join(root, 'bin/cli-bundle.mjs'));
    writeFileSync(join(root, 'src/cli/util.ts'), 'export const n: number = 1;\n');
    writeFileSync(join(root, 'src/cli/greet.ts'), "export const greet = (): string => 'hello';\n");
    writeFileSync(join(root, 'src/cli/commands/hello.ts'), "export { greet } from '../greet.ts';\n");
    writeFileSync(
      join(root, 'src/cli/main.ts'),
      "import { n } from './util.ts';\nexport const main = async () => n;\nexport const hello = async () => (await import('./commands/hello.ts')).greet();\n",
    );
    return root;
  }
  const touch = (path: string) => {
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
  };

  it('is stale when missing, fresh after a build, stale again when a source is newer', async () => {
    const root = tree();
    expect(isFresh(root)).toBe(false);
    await buildBundle(root);
    expect(isFresh(root)).toBe(true);
    const inputs = JSON.parse(readFileSync(bundlePaths(root).inputs, 'utf8'));
    expect(inputs.always).toEqual(['bin/cli-bundle.mjs', 'src/cli/main.ts', 'src/cli/util.ts']);
    expect(inputs.commands).toEqual({ hello: ['src/cli/commands/hello.ts', 'src/cli/greet.ts'] });
    touch(join(root, 'src/cli/util.ts'));
    expect(isFresh(root)).toBe(false);
    expect(isFresh(root, '--help')).toBe(false); // the entry's own sources count for every run
    const { main: built, hello } = await import(`${bundlePaths(root).bundle}?v=1`);
    expect(await built()).toBe(1);
    expect(await hello()).toBe('hello');
  });

  it("a command's own sources make it stale for that command (and for a check of all), not for --help", async () => {
    const root = tree();
    await buildBundle(root);
    touch(join(root, 'src/cli/greet.ts'));
    expect(isFresh(root, 'hello')).toBe(false);
    expect(isFresh(root)).toBe(false);
    expect(isFresh(root, '--help')).toBe(true);
    expect(isFresh(root, 'other')).toBe(true);
  });
});
