/**
 * CLI contracts over *every* command in COMMANDS (a command added later is covered by being
 * listed): wrong inputs — a missing file, a folder, an empty file, a file of the wrong format,
 * an unknown flag — exit 1 or 2 with one line naming the input, never a stack trace; every flag
 * is explained by `--help`; usage errors exit 2; outputs that are the wrong kind of path are refused.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../src/cli/command.ts';
import { loadCommands } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA, smartcommentFiles } from '../helpers/shared-data.ts';

const COMMANDS = await loadCommands();

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-contracts-'));
const emptyDir = join(tmp, 'empty-dir');
mkdirSync(emptyDir);
const emptyFile = join(tmp, 'empty.json');
writeFileSync(emptyFile, '');
const missing = join(tmp, 'no-such-file.json');
const LOCOMO = join(SHARED_DATA, 'locomo/v2/26.json');
const [TRACE] = smartcommentFiles();

/** Flags a command needs besides its input, so that the input is what it fails on. */
const EXTRA: Record<string, string[]> = {
  export: ['-o', join(tmp, 'export-out.json')],
  search: ['--query', 'support group'],
  // (The bad input is run A; run B is a good trace.)
  compare: [TRACE],
  run: ['--system', 'rag', '-o', join(tmp, 'run-out.json')],
  inject: ['--system', 'rag', '--out', join(tmp, 'inject-out'), '--per-type', '1'],
  // (A base URL nothing listens on: the data file fails before any request.)
  optimize: [
    ...['--system', 'mem0', '-o', join(tmp, 'optimize-out'), '--train', 'conv-26', '--held-out', 'conv-30'],
    ...[
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key-env',
      'NO_KEY',
    ],
  ],
};

/** How a command takes its input file: its first argument, else `--data`; none (chat) → null. */
function withInput(c: Command, path: string): string[] | null {
  if (c.args.min >= 1 && /file|dir/.test(c.args.name)) return [c.name, path, ...(EXTRA[c.name] ?? [])];
  if ('data' in c.options) return [c.name, '--data', path, ...(EXTRA[c.name] ?? [])];
  return null;
}

/** A file of the wrong format for the command: a data set for trace commands, a trace for data set commands. */
const wrongFormat = (c: Command) => ('data' in c.options ? TRACE : LOCOMO);

function expectClearFailure(r: { code: number; stdout: string; stderr: string }, names: string) {
  expect([1, 2]).toContain(r.code);
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  expect(r.stderr).not.toMatch(/unexpected error/);
  const message = r.stderr.trim() || r.stdout.trim(); // validate reports on stdout
  expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(1);
  expect(message.split('\n')[0]).toContain(names);
}

describe.each(COMMANDS.map((c) => [c.name, c] as const))('memtrace %s on wrong input', (_name, c) => {
  const cases: [string, string][] = [
    ['a missing file', missing],
    ['a folder', emptyDir],
    ['an empty file', emptyFile],
    ['a file of the wrong format', wrongFormat(c)],
  ];
  it.each(cases)('%s: exit 1 or 2, one line naming it', async (_what, path) => {
    const argv = withInput(c, path);
    if (!argv) return; // takes no file (chat): only flags apply
    expectClearFailure(await runCli(argv), path);
  });

  it('an unknown flag: exit 2, naming the flag and the usage', async () => {
    const r = await runCli([c.name, '--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--no-such-flag/);
    expect(r.stderr).toContain(`usage: ${c.usage}`);
  });

  it('--help explains every flag, with its default', async () => {
    const r = await runCli([c.name, '--help']);
    expect(r.code).toBe(0);
    for (const [flag, spec] of Object.entries(c.options)) {
      const line = r.stdout.split('\n').find((l) => l.trimStart().startsWith(`--${flag}`));
      expect(line, `--${flag}`).toBeDefined();
      expect(line!.length).toBeGreaterThan(`  --${flag}`.length + 10);
      if (spec.default !== undefined && spec.default !== false)
        expect(line).toContain(`(default: ${String(spec.default)})`);
    }
  });

  it('a wrong number of arguments is a usage error (exit 2)', async () => {
    const argv = c.args.max === 0 ? [c.name, 'extra-argument'] : c.args.min >= 1 ? [c.name] : null;
    if (!argv) return;
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^memtrace ${c.name}: takes `));
  });
});

describe('outputs of the wrong kind are refused before any work', () => {
  it('run -o FOLDER and inject --out FILE', async () => {
    const run = await runCli(['run', '--system', 'rag', '--data', LOCOMO, '-o', emptyDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`memtrace run: -o ${emptyDir}: is a folder; give the path of a file to write\n`);
    const inject = await runCli([
      'inject',
      '--system',
      'rag',
      '--data',
      LOCOMO,
      '--out',
      emptyFile,
      '--per-type',
      '1',
    ]);
    expect(inject.code).toBe(1);
    expect(inject.stderr).toBe(
      `memtrace inject: --out ${emptyFile}: is a file; give a folder to write into\n`,
    );
  });

  it('--offline next to provider flags is refused', async () => {
    const r = await runCli([
      'run',
      '--system',
      'rag',
      '--data',
      LOCOMO,
      '--offline',
      '--model',
      'm',
      '-o',
      join(tmp, 'x.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--offline runs without a model: drop --model/);
  });
});

describe('a closed stdout', () => {
  it('`memtrace validate … | head -1`: the command ends quietly, without an unhandled EPIPE', async () => {
    const bin = resolve(import.meta.dirname, '../../bin/memtrace.mjs');
    const child = spawn(process.execPath, [bin, 'validate', join(SHARED_DATA, 'smartcomment')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Read the first chunk, then close the pipe, as `head -1` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
    expect(code).toBe(0);
  });
});

describe('strict input decoding', () => {
  it('a trace with a bad UTF-8 byte: exit 1 naming the file and the byte offset', async () => {
    const bytes = readFileSync(TRACE);
    const at = bytes.indexOf(0x61, 4000);
    bytes[at] = 0xc0;
    const file = join(tmp, 'bad-utf8.json');
    writeFileSync(file, bytes);
    const r = await runCli(['stats', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^memtrace stats: ${file}: error: not valid UTF-8: byte ${at} \\(line \\d+, 0xc0\\)`),
    );
  });
});
