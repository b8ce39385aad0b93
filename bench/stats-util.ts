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

/** A verdict as calibration sees it: right or not, and the confidence it was given. */
export interface Calibrated {
  right: boolean;
  confidence: number;
}

/**
 * ECE over 10 equal-width bins, the accuracy of the most confident half (`topHalfAccuracy`), and
 * the verdicts below `uncertainBelow` with the right ones among them.
 */
export function calibrationStats(rows: readonly Calibrated[], uncertainBelow: number) {
  let ece = 0;
  for (let b = 0; b < 10; b++) {
    const bin = rows.filter((r) => Math.min(9, Math.floor(r.confidence * 10)) === b);
    if (bin.length === 0) continue;
    const acc = bin.filter((r) => r.right).length / bin.length;
    const conf = bin.reduce((s, r) => s + r.confidence, 0) / bin.length;
    ece += (bin.length / rows.length) * Math.abs(acc - conf);
  }
  const unsure = rows.filter((r) => r.confidence < uncertainBelow);
  return {
    ece,
    topHalf: topHalfAccuracy(rows),
    unsure: unsure.length,
    unsureRight: unsure.filter((r) => r.right).length,
  };
}

/**
 * The accuracy of the most confident half, verdicts of equal confidence taken in random order:
 * a group of ties that straddles the half counts by its own accuracy (its expected share of right
 * ones), not by the order the verdicts happened to come in.
 */
export function topHalfAccuracy(rows: readonly Calibrated[]): number {
  const groups = new Map<number, { n: number; right: number }>();
  for (const r of rows) {
    const g = groups.get(r.confidence) ?? { n: 0, right: 0 };
    g.n++;
    if (r.right) g.right++;
    groups.set(r.confidence, g);
  }
  const half = Math.ceil(rows.length / 2);
  let left = half;
  let right = 0;
  for (const [, g] of [...groups].sort((a, b) => b[0] - a[0])) {
    const taken = Math.min(left, g.n);
    right += (taken * g.right) / g.n;
    left -= taken;
    if (left === 0) break;
  }
  return half === 0 ? Number.NaN : right / half;
}
