/**
 * How fast the `memtrace` CLI starts and opens a big trace, as whole processes (what a
 * person or a script waits for): `--help`, and `stats` on the ~128 MB synthetic graph
 * against a bare `readFileSync` + `JSON.parse` of the same file. Built bundle and tsx,
 * medians of 5, wall time and the child's CPU time (user + sys).
 * `npx tsx bench/cli-startup.ts` (writes the graph into bench/out if missing, then the
 * `CLI startup` section of RESULTS.md).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { buildBundle } from '../bin/cli-bundle.mjs';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const FILE = 'bench/out/synthetic-128mb.json';
const RUNS = 5;
const HELP_GOAL_S = 0.15;
const STATS_GOAL_RATIO = 1.6;

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

function timeProcess(args: string[], env: NodeJS.ProcessEnv = {}): Timing {
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: childCpuSeconds() - cpu0 };
}

function measure(args: string[], env?: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const runs: Timing[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(timeProcess(args, env));
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

if (!existsSync(FILE)) {
  mkdirSync(dirname(FILE), { recursive: true });
  console.log(`writing ${FILE}…`);
  await writeSynthetic(FILE, 128);
}
await buildBundle();
const size = statSync(FILE).size;
const load0 = loadavg()[0];
const bin = 'bin/memtrace.mjs';
const bare = `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(FILE)}, 'utf8'))`;

const rows: [string, { wall: number; cpu: number }][] = [
  ['`node -e 0` (Node itself)', measure(['-e', '0'])],
  ['`memtrace --help`, bundle', measure([bin, '--help'], { MEMTRACE_CLI: 'bundle' })],
  ['`memtrace --help`, tsx', measure([bin, '--help'], { MEMTRACE_CLI: 'tsx' })],
  ['bare read + `JSON.parse`', measure(['-e', bare])],
  ['`memtrace stats --json`, bundle', measure([bin, 'stats', FILE, '--json'], { MEMTRACE_CLI: 'bundle' })],
  ['`memtrace stats --json`, tsx', measure([bin, 'stats', FILE, '--json'], { MEMTRACE_CLI: 'tsx' })],
];
const load1 = loadavg()[0];
const get = (label: string) => rows.find(([l]) => l.startsWith(label))![1];
const bareT = get('bare');
const help = get('`memtrace --help`, bundle');
const stats = get('`memtrace stats --json`, bundle');
const ratio = (t: { wall: number; cpu: number }) =>
  `${(t.wall / bareT.wall).toFixed(2)}× / ${(t.cpu / bareT.cpu).toFixed(2)}×`;
const body = [
  `\`npx tsx bench/cli-startup.ts\` — whole processes, ${RUNS} runs each, medians; wall time and the child's CPU time (user + sys, 10 ms ticks).`,
  `File: \`${FILE}\`, ${(size / 1e6).toFixed(0)} MB (\`bench/write-synthetic.ts\`). Machine: ${machine}; 1-minute load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after (the machine is shared: wall times above the CPU times are waiting for a core).`,
  '',
  '| process | median wall s | median CPU s | vs bare read + parse (wall / CPU) |',
  '| --- | --- | --- | --- |',
  ...rows.map(([label, t]) => `| ${label} | ${t.wall.toFixed(3)} | ${t.cpu.toFixed(2)} | ${ratio(t)} |`),
  '',
  `Goals: \`--help\` ≤ ${HELP_GOAL_S} s — ${help.wall <= HELP_GOAL_S ? 'met' : 'not met'} (wall ${help.wall.toFixed(3)} s, CPU ${help.cpu.toFixed(2)} s); \`stats\` ≤ ${STATS_GOAL_RATIO}× the bare read + parse — ${stats.wall / bareT.wall <= STATS_GOAL_RATIO ? 'met' : 'not met'} (${ratio(stats)}).`,
].join('\n');
console.log(body);
writeResultsSection('CLI startup', body);
