/**
 * Files survive interruptions: real `memtrace run` and `memtrace export` processes are
 * killed (SIGKILL, SIGINT, SIGTERM) while they write, and the previous output must still be
 * there byte for byte; whatever a killed process left behind (its temporary file, its spool
 * folder) is removed by the next write into that folder; an error mid-run (the model's
 * endpoint failing) leaves the old file and no spool either.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeAtomic } from '../../src/cli/write.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { useMockLlmServer } from '../llm/mock-llm-server.ts';

const BIN = resolve(import.meta.dirname, '../../bin/memtrace.mjs');
const LOCOMO = join(SHARED_DATA, 'locomo/locomo-dev.json');
const RUN = ['run', '--system', 'mem0', '--data', LOCOMO, '--conversation', 'conv-26', '--offline'];
const server = useMockLlmServer();

/** The previous output: bytes no run would write, so any change shows. */
const OLD = Buffer.from(`{"previous": "output", "bytes": "${'\u00e9'.repeat(5000)}"}\n`);

function folderWithOldOutput(): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-interrupt-'));
  const out = join(dir, 'out.json');
  writeFileSync(out, OLD);
  return { dir, out };
}

/** What a writer leaves beside its output while it works: temporaries and spool folders. */
const leftovers = (dir: string) =>
  readdirSync(dir).filter((n) => n.includes('.memtrace-tmp-') || n.startsWith('.memtrace-spool-'));

/** Total bytes of the spool files under `dir`. */
function spooled(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir).filter((x) => x.startsWith('.memtrace-spool-')))
    for (const f of readdirSync(join(dir, name)))
      n += statSync(join(dir, name, f), { throwIfNoEntry: false })?.size ?? 0;
  return n;
}

function start(
  args: string[],
): ChildProcess & { exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return Object.assign(child, { exited, stderrText: () => stderr });
}

/** Polls until `ready()` holds (or the process ends first: then the test cannot say anything). */
async function waitFor(child: { exitCode: number | null; signalCode: string | null }, ready: () => boolean) {
  for (;;) {
    if (ready()) return;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error('the process ended before it was caught mid-write');
    await new Promise((r) => setTimeout(r, 2));
  }
}

beforeAll(() => {
  // Build the CLI bundle once, so the processes below start the same way and at once.
  expect(spawnSync(process.execPath, [BIN, '--help']).status).toBe(0);
}, 180_000);

describe('memtrace run interrupted', () => {
  it('SIGKILL mid-run: the old output is intact byte for byte; the next run removes the dead spool', async () => {
    const { dir, out } = folderWithOldOutput();
    const child = start([...RUN, '-o', out]);
    // Mid-write: records are being spooled to disk and the temporary output exists.
    await waitFor(child, () => spooled(dir) > 0 && leftovers(dir).some((n) => n.includes('.memtrace-tmp-')));
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(readFileSync(out).equals(OLD)).toBe(true);
    // A killed process cannot clean up: its temporary and spool are still there …
    expect(
      leftovers(dir)
        .sort()
        .map((n) => n.replace(/\d+-.*$/, '')),
    ).toEqual(['.memtrace-spool-', '.out.json.memtrace-tmp-']);
    // … until the next run writes into the folder.
    const next = await runCli([...RUN, '--sessions', '1', '-o', out]);
    expect(next.code, next.stderr).toBe(0);
    expect(leftovers(dir)).toEqual([]);
    expect(JSON.parse(readFileSync(out, 'utf8')).data.nodes.length).toBeGreaterThan(0);
  }, 180_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    it(`${signal} mid-run: the old output is intact and nothing is left behind`, async () => {
      const { dir, out } = folderWithOldOutput();
      const child = start([...RUN, '-o', out]);
      await waitFor(child, () => spooled(dir) > 0);
      child.kill(signal);
      expect((await child.exited).signal).toBe(signal);
      expect(readFileSync(out).equals(OLD)).toBe(true);
      expect(leftovers(dir)).toEqual([]);
    }, 180_000);

  it('the model endpoint failing mid-run: exit 1, the old output intact, no spool left', async () => {
    const { dir, out } = folderWithOldOutput();
    // A few answers, then the server fails for good.
    server.plan({ reply: '[]' }, { reply: '[]' }, { reply: '[]' });
    server.always({ status: 500, body: { error: { message: 'the model crashed' } } });
    const r = await runCli(
      [
        'run',
        '--system',
        'mem0',
        '--data',
        LOCOMO,
        '--conversation',
        'conv-26',
        '--provider',
        'openai',
      ].concat(['--base-url', server.openaiBase, '--model', 'm', '--retries', '0', '-o', out]),
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/server: .*the model crashed/);
    expect(server.requests.length).toBeGreaterThan(3);
    expect(readFileSync(out).equals(OLD)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  }, 180_000);
});

describe('memtrace export interrupted', () => {
  it('SIGKILL while the output is being written: the old file is intact; the next export cleans up', async () => {
    const { dir, out } = folderWithOldOutput();
    // A ~120 MB trace, so writing its export takes a while.
    const big = join(dir, 'big.json');
    const value = `'${'x'.repeat(1 << 20)}'`;
    const nodes = Array.from({ length: 120 }, (_, i) => ({
      name: `v${i}`,
      version: 1,
      class_name: null,
      value,
      category: 'message',
      created_at: '2024-01-01 00:00:00.000',
      filename: 'f.py',
      lineno: 1,
      metadata: {},
    }));
    writeFileSync(
      big,
      JSON.stringify({ graph_id: 'big', data: { nodes, edges: [], operations: [], sessions: [] } }),
    );
    const child = start(['export', big, '--format', 'smartcomment', '-o', out]);
    const temp = () => leftovers(dir).find((n) => n.includes('.memtrace-tmp-'));
    await waitFor(child, () => {
      const t = temp();
      return t !== undefined && (statSync(join(dir, t), { throwIfNoEntry: false })?.size ?? 0) > 0;
    });
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(readFileSync(out).equals(OLD)).toBe(true);
    expect(temp()).toBeDefined();
    // The next write into the folder removes the dead process's temporary.
    const small = join(dir, 'small.json');
    writeFileSync(
      small,
      JSON.stringify({ graph_id: 's', data: { nodes: [], edges: [], operations: [], sessions: [] } }),
    );
    const r = await runCli(['export', small, '-o', join(dir, 'other.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(leftovers(dir)).toEqual([]);
    expect(readFileSync(out).equals(OLD)).toBe(true);
  }, 180_000);
});

describe('what the next write removes', () => {
  it('temporaries and spools of processes that are gone; never a live process’s; old-style spools once untouched for an hour', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-sweep-'));
    const dead = 2 ** 22 + 12345; // above the largest pid Linux can give (pid_max ≤ 2^22): no such process
    const names = {
      deadTemp: `.out.json.memtrace-tmp-${dead}-abc`,
      deadSpool: `.memtrace-spool-${dead}-xyz123`,
      liveSpool: '.memtrace-spool-1-xyz123', // pid 1 is always running
      oldLegacy: '.memtrace-spool-aB3dE9',
      newLegacy: '.memtrace-spool-Zz9yY8',
      unrelated: '.memtrace-spool-notes.txt',
    };
    writeFileSync(join(dir, names.deadTemp), 'half');
    for (const n of [names.deadSpool, names.liveSpool, names.oldLegacy, names.newLegacy]) {
      mkdirSync(join(dir, n));
      writeFileSync(join(dir, n, 'nodes.part'), 'x');
    }
    writeFileSync(join(dir, names.unrelated), 'mine');
    const hoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(dir, names.oldLegacy, 'nodes.part'), hoursAgo, hoursAgo);
    utimesSync(join(dir, names.oldLegacy), hoursAgo, hoursAgo);
    await writeAtomic(join(dir, 'new.json'), '{}');
    expect(readdirSync(dir).sort()).toEqual(
      ['new.json', names.liveSpool, names.newLegacy, names.unrelated].sort(),
    );
    expect(readFileSync(join(dir, 'new.json'), 'utf8')).toBe('{}');
  });
});
