/** Small helpers shared by the benchmark scripts. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function timeIt(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Replaces (or appends) the `## heading` section of bench/RESULTS.md, leaving the other sections alone. */
export function writeResultsSection(
  heading: string,
  body: string,
  path = new URL('./RESULTS.md', import.meta.url),
) {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = '# Benchmark results\n\nEach section is written by the script it names; rerun it to refresh.\n';
  }
  const start = text.indexOf(`\n## ${heading}\n`);
  const section = `\n## ${heading}\n\n${body.trim()}\n`;
  if (start === -1) text = `${text.trimEnd()}\n${section}`;
  else {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start) + section + (next === -1 ? '' : text.slice(next));
  }
  writeFileSync(path, text);
}

/** What the measuring machine was, as seen by the script: cores, CPU model, memory, load, Node, the commit, the date. */
export function machineFacts(): string {
  const cores = cpus();
  let commit = 'unknown commit';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    if (dirty) commit += ' + uncommitted changes';
  } catch {
    /* not a git checkout */
  }
  return (
    `${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `load average ${loadavg()[0].toFixed(1)} at the start (other jobs share the cores), ` +
    `Node ${process.version}, commit ${commit}, ${new Date().toISOString().slice(0, 10)}`
  );
}

/** The trace files under `p` (a file or a folder, recursively; summary.json / manifest.json left out), sorted. */
export function jsonFiles(p: string): string[] {
  if (!existsSync(p)) return [];
  if (!statSync(p).isDirectory()) return p.endsWith('.json') ? [p] : [];
  return readdirSync(p)
    .sort()
    .filter((f) => f !== 'summary.json' && f !== 'manifest.json')
    .flatMap((f) => jsonFiles(join(p, f)));
}
