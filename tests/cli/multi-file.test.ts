/**
 * One bad file never stops a command over many: a file with an invalid UTF-8 byte (and one
 * with broken JSON) is reported with its place, every other file is still read, `--json`
 * still prints its JSON, and the exit status is 1 at the end.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'memtrace-multi-'));
const good = smartcommentFiles().find((f) => f.endsWith('conv-26-fault-1.json'))!;
/** Sorted file names, as the commands walk the folder: a bad file comes first. */
const badUtf8 = join(dir, 'a-bad-utf8.json');
const badJson = join(dir, 'b-bad-json.json');
const copy = join(dir, 'c-good.json');
let offset = 0;

beforeAll(() => {
  const bytes = readFileSync(good);
  offset = bytes.indexOf(0x61, 5000);
  bytes[offset] = 0xff;
  writeFileSync(badUtf8, bytes);
  writeFileSync(badJson, '{"graph_id": "x", "data": {"nodes": [}}');
  writeFileSync(copy, readFileSync(good)); // a temporary copy, outside the repository
});

/** The line naming the undecodable file and its first bad byte. */
const utf8Line = () => new RegExp(`${badUtf8}: error: not valid UTF-8: byte ${offset} \\(line \\d+, 0xff\\)`);

describe('a folder with an undecodable file', () => {
  it('validate reports every file (the undecodable one with its byte offset), --json prints all, exit 1', async () => {
    const r = await runCli(['validate', dir, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      file: string;
      ok: boolean;
      issues: { code: string; message: string }[];
    }[];
    expect(out.map((x) => [x.file, x.ok])).toEqual([
      [badUtf8, false],
      [badJson, false],
      [copy, true],
    ]);
    expect(out[0].issues[0]).toMatchObject({ code: 'not-utf8' });
    expect(out[0].issues[0].message).toMatch(new RegExp(`^not valid UTF-8: byte ${offset} `));
    const human = await runCli(['validate', dir]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(utf8Line());
    expect(human.stdout).toMatch(new RegExp(`ok +${copy}`));
  });

  it('cases --json lists the good file’s cases exactly as alone, and names the bad files on stderr', async () => {
    const alone = await runCli(['cases', copy, '--json']);
    const r = await runCli(['cases', dir, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(alone.stdout));
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(utf8Line());
    expect(r.stderr).toMatch(new RegExp(`${badJson}:1:\\d+: error: invalid JSON`));
  });

  it('bench scores the good file and counts the unreadable ones', async () => {
    const r = await runCli(['bench', dir, '--method', 'evidence', '--json']);
    expect(r.code).toBe(1);
    const s = JSON.parse(r.stdout);
    expect(s.unreadable_files).toBe(2);
    expect(s.total_cases).toBeGreaterThan(0);
    expect(r.stderr).toMatch(utf8Line());
  }, 120_000);

  it('report still writes its JSON over the good file', async () => {
    const r = await runCli(['report', dir, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).cases).toBeGreaterThan(0);
    expect(r.stderr).toMatch(utf8Line());
  }, 120_000);

  it('agreement reads the other label files and prints its JSON', async () => {
    const r = await runCli(['agreement', dir, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).annotators.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(new RegExp(`${badUtf8}: not valid UTF-8`));
  });

  it('a single undecodable file still fails the command with its one line', async () => {
    const r = await runCli(['stats', badUtf8]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^memtrace stats: ${badUtf8}: error: not valid UTF-8: byte ${offset} `),
    );
  });
});
