/**
 * How fast the `memtrace` CLI starts, as whole processes (what a person or a script waits
 * for), against what Node itself costs: `--help` and `validate` of the demo trace against
 * `node -e 0`, and `stats` on the ~128 MB synthetic graph against a bare `readFileSync` +
 * `JSON.parse` of the same file. The built bundle of this tree, and with `--before COMMIT` the
 * bundle of that commit too (its `bin` and `src` from `git archive`, built by its own builder).
 * Runs go in rounds (every process once per round, in turn), so a ratio is taken within a
 * round and drift of a shared machine hits both sides; medians of wall time, of the child's CPU
 * time (user + sys) and of the per-round ratios.
 * `npx tsx bench/cli-startup.ts [--before COMMIT] [--runs N]` (writes the graph into bench/out
 * if missing, then the `CLI startup` section of RESULTS.md).
 */
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildBundle } from '../bin/cli-bundle.mjs';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values: opts } = parseArgs({
  options: { before: { type: 'string' }, runs: { type: 'string', default: '7' } },
});
const RUNS = Number(opts.runs);
const BIG = 'bench/out/synthetic-128mb.json';
const SMALL = 'public/demo/demo-trace.json';
/** The issue's goals: start-up within 2× Node itself, `stats` within 1.6× read + parse. */
const NODE_GOAL = 2;
const STATS_GOAL = 1.6;

/** CPU seconds of waited-for children so far (cutime + cstime of /proc/self/stat). */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: state is field 3, cutime 16 and cstime 17 (1-based) → indexes 13, 14.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

interface Timing {
  wall: number;
  cpu: number;
}

/** One process: `node ARGS…` with the bundle forced, waited for. */
function timeProcess(args: string[]): Timing {
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    env: { ...process.env, MEMTRACE_CLI: 'bundle' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: childCpuSeconds() - cpu0 };
}

/** The tree of `commit` (bin, src, package.json) in a temporary folder with this checkout's packages, its bundle built. */
async function treeAt(commit: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-before-'));
  execSync(`git archive ${commit} bin src package.json | tar -x -C ${dir}`);
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
  execSync(`${process.execPath} ${join(dir, 'bin/cli-bundle.mjs')}`);
  return dir;
}

interface Row {
  label: string;
  args: string[];
  /** The row it is compared with (a label), if any. */
  against?: string;
  runs: Timing[];
}

/** The CLI rows for one tree (its bin), compared with Node itself or the bare read + parse. */
function cliRows(bin: string, tag: string): Row[] {
  return [
    { label: `\`memtrace --help\`${tag}`, args: [bin, '--help'], against: 'node', runs: [] },
    {
      label: `\`memtrace validate\` demo trace${tag}`,
      args: [bin, 'validate', SMALL],
      against: 'node',
      runs: [],
    },
    {
      label: `\`memtrace stats --json\` 128 MB${tag}`,
      args: [bin, 'stats', BIG, '--json'],
      against: 'bare',
      runs: [],
    },
  ];
}

if (!existsSync(BIG)) {
  mkdirSync(dirname(BIG), { recursive: true });
  console.log(`writing ${BIG}…`);
  await writeSynthetic(BIG, 128);
}
await buildBundle();
const before = opts.before ? await treeAt(opts.before) : undefined;
const bare = `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(BIG)}, 'utf8'))`;
const rows: Row[] = [
  { label: '`node -e 0` (Node itself)', args: ['-e', '0'], runs: [] },
  { label: 'bare read + `JSON.parse` of the 128 MB file', args: ['-e', bare], runs: [] },
  ...(before ? cliRows(join(before, 'bin/memtrace.mjs'), `, before (${opts.before})`) : []),
  ...cliRows('bin/memtrace.mjs', before ? ', after' : ''),
];
const base = { node: rows[0], bare: rows[1] };

const load0 = loadavg()[0];
for (const r of rows) timeProcess(r.args); // one warm-up each (file cache, bundle chunks)
for (let i = 0; i < RUNS; i++) for (const r of rows) r.runs.push(timeProcess(r.args));
const load1 = loadavg()[0];
if (before) rmSync(before, { recursive: true, force: true });

/** Median of the per-round ratios of `r` to its comparison row. */
function ratio(r: Row, k: keyof Timing): number | null {
  if (!r.against) return null;
  const b = base[r.against as keyof typeof base];
  return median(r.runs.map((t, i) => t[k] / b.runs[i][k]));
}
const fmt = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)}×`);
const against = (r: Row) => (r.against === 'node' ? '`node -e 0`' : r.against ? 'bare read + parse' : '—');

const goalLine = (label: string, goal: number) => {
  const r = rows.find((x) => x.label === label)!;
  const w = ratio(r, 'wall')!;
  const c = ratio(r, 'cpu')!;
  return `${label.replace(/, after$/, '')}: ≤ ${goal}× ${against(r)} — ${w <= goal && c <= goal ? 'met' : w <= goal || c <= goal ? 'met on one of wall / CPU' : 'not met'} (wall ${fmt(w)}, CPU ${fmt(c)})`;
};
const tag = before ? ', after' : '';
const body = [
  `\`npx tsx bench/cli-startup.ts${before ? ` --before ${opts.before}` : ''} --runs ${RUNS}\` — whole processes, ${RUNS} rounds (each process once per round, in turn, after one warm-up each); medians of wall time, of the child's CPU time (user + sys, 10 ms ticks) and of the per-round ratios. The built bundle (\`MEMTRACE_CLI=bundle\`).`,
  `Files: \`${SMALL}\` (${(statSync(SMALL).size / 1e3).toFixed(0)} kB), \`${BIG}\` (${(statSync(BIG).size / 1e6).toFixed(0)} MB, \`bench/write-synthetic.ts\`). Machine: ${machine}; 1-minute load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after (the machine is shared: wall times above the CPU times are waiting for a core).`,
  '',
  '| process | median wall s | median CPU s | against | ratio wall | ratio CPU |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${r.label} | ${median(r.runs.map((t) => t.wall)).toFixed(3)} | ${median(r.runs.map((t) => t.cpu)).toFixed(2)} | ${against(r)} | ${fmt(ratio(r, 'wall'))} | ${fmt(ratio(r, 'cpu'))} |`,
  ),
  '',
  `Goals (issue 33): ${[
    goalLine(`\`memtrace --help\`${tag}`, NODE_GOAL),
    goalLine(`\`memtrace validate\` demo trace${tag}`, NODE_GOAL),
    goalLine(`\`memtrace stats --json\` 128 MB${tag}`, STATS_GOAL),
  ].join('; ')}.`,
].join('\n');
console.log(body);
writeResultsSection('CLI startup', body);
