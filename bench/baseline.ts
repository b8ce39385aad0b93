/**
 * "Before": `memtrace bench` of another commit on the same files, in a temporary worktree
 * (node_modules linked from this one), so a benchmark script can show the attributor before
 * and after a change side by side.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSummary, ScoredCase } from '../src/core/bench/index.ts';

/** One case as `memtrace bench --out` writes it. */
export type BaselineCase = ScoredCase & { file: string; query_id: string };

/** Runs `fn` with a worktree of `ref` checked out beside `root`; removes it afterwards. */
export async function withWorktree<T>(
  root: string,
  ref: string,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-baseline-'));
  try {
    execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: root, stdio: 'ignore' });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return await fn(dir);
  } finally {
    try {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
    } catch {
      /* not added */
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `memtrace bench FILES --method evidence --out …` in the worktree `dir`: its summary and every
 * case (null when it wrote nothing). A non-zero exit (an unreadable file, a failed case) still
 * yields what it wrote.
 */
export async function benchAt(
  dir: string,
  files: string[],
): Promise<{ summary: BenchSummary; cases: BaselineCase[] } | null> {
  const out = join(dir, `baseline-bench-${++benchRuns}.json`);
  const child = spawn(
    process.execPath,
    [join(dir, 'bin/memtrace.mjs'), 'bench', ...files, '--method', 'evidence', '--out', out],
    { cwd: dir, stdio: 'ignore' },
  );
  const status = await new Promise<number | null>((done) => child.on('close', done));
  try {
    return JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    console.error(`baseline: memtrace bench wrote no results (exit ${status})`);
    return null;
  }
}
let benchRuns = 0;

/** `memtrace bench` of commit `ref` on `files` (its JSON summary), in a temporary worktree. */
export async function baselineSummary(
  root: string,
  ref: string,
  files: string[],
): Promise<BenchSummary | null> {
  try {
    return await withWorktree(root, ref, async (dir) => (await benchAt(dir, files))?.summary ?? null);
  } catch (e) {
    console.error(`baseline ${ref}: ${(e as Error).message.split('\n')[0]}`);
    return null;
  }
}
