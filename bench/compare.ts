/**
 * Comparing two ~100 MB runs of one conversation (`memtrace compare`): the synthetic
 * long-context graph of `bench/synthetic.ts` with its default 20,000-character window, and the
 * same conversation (same turns and questions) with a 19,000-character window — one setting
 * changed — written by `bench/write-synthetic.ts` into bench/out/ when missing. Each run is a fresh process:
 * read + parse + validate + build both graphs (`openTrace`), then `compareRuns`.
 * `npx tsx bench/compare.ts [runs]` writes the `Compare two runs` section of RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { compareMemoryAt, compareRuns, pairQuestions } from '../src/core/compare/index.ts';
import { openTrace } from '../src/core/graph/index.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const A = 'bench/out/synthetic-100mb.json';
const B = 'bench/out/synthetic-100mb-window19k.json';

/** Wall and CPU milliseconds of a step. */
function timed<T>(f: () => T): { value: T; ms: number; cpuMs: number } {
  const t = performance.now();
  const c = process.cpuUsage();
  const value = f();
  const d = process.cpuUsage(c);
  return { value, ms: performance.now() - t, cpuMs: (d.user + d.system) / 1000 };
}

function child() {
  const open = (file: string) => {
    const r = openTrace(readFileSync(file, 'utf8'), { file });
    if (!r.ok) throw new Error(`${file} did not load`);
    return r.graph;
  };
  const load = timed(() => [open(A), open(B)] as const);
  const [ga, gb] = load.value;
  const cmp = timed(() => compareRuns(ga, gb));
  const out = cmp.value;
  // The memory part alone (compareRuns did the same at the last question), to show the split.
  const pair = pairQuestions(ga, gb).find((p) => p.a?.queryId === out.memory.at?.query_id_a) ?? null;
  const mem = timed(() => compareMemoryAt(ga, gb, pair?.a ?? null, pair?.b ?? null));
  console.log(
    JSON.stringify({
      load: { ms: load.ms, cpuMs: load.cpuMs },
      compare: { ms: cmp.ms, cpuMs: cmp.cpuMs },
      memory: { ms: mem.ms, cpuMs: mem.cpuMs },
      summary: out.summary,
      units: {
        only_a: out.memory.only_a.length,
        only_b: out.memory.only_b.length,
        changed: out.memory.changed.length,
      },
    }),
  );
}

interface ChildResult {
  load: { ms: number; cpuMs: number };
  compare: { ms: number; cpuMs: number };
  memory: { ms: number; cpuMs: number };
  summary: Record<string, number>;
  units: Record<string, number>;
}

if (process.argv[2] === '--child') child();
else {
  const runs = Number(process.argv[2] ?? 5);
  mkdirSync('bench/out', { recursive: true });
  if (!existsSync(A)) await writeSynthetic(A, 100);
  if (!existsSync(B)) {
    const doc = JSON.parse(readFileSync(A, 'utf8'));
    const turns = doc.data.nodes.filter((n: { category: string }) => n.category === 'message').length;
    await writeSynthetic(B, 100, { windowChars: 19_000, turns });
  }
  const results: ChildResult[] = [];
  const load: number[] = [];
  for (let i = 0; i < runs; i++) {
    load.push(loadavg()[0]);
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/compare.ts', '--child'], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    results.push(JSON.parse(out.trim().split('\n').pop()!));
  }
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  const row = (label: string, pick: (r: ChildResult) => { ms: number; cpuMs: number }) =>
    `| ${label} | ${ms(results.map((r) => pick(r).ms))} | ${ms(results.map((r) => pick(r).cpuMs))} |`;
  const total = results.map((r) => r.load.ms + r.compare.ms);
  const totalCpu = results.map((r) => r.load.cpuMs + r.compare.cpuMs);
  const s = results[0].summary;
  const mb = (f: string) => (statSync(f).size / 1e6).toFixed(0);
  const body = [
    `Files: \`${A}\` (${mb(A)} MB, 20,000-character window) and \`${B}\` (${mb(B)} MB, the same turns and questions with a 19,000-character window), from \`bench/write-synthetic.ts\`.`,
    `Machine: ${machine}; 1-minute load average ${median(load).toFixed(1)} at the runs; ${runs} runs, each in a fresh process; medians.`,
    '',
    '| step | median wall | median CPU |',
    '| --- | --- | --- |',
    row('read + parse + validate + build both graphs', (r) => r.load),
    row(
      '`compareRuns`: pairing, first divergence of every question, memory at the last question',
      (r) => r.compare,
    ),
    row('… of which the memory at the last question (`caseContext` of both runs)', (r) => r.memory),
    `| end to end (\`memtrace compare A B\` without printing) | ${ms(total)} | ${ms(totalCpu)} |`,
    '',
    `What it found: ${s.questions} questions, ${s.fixed} fixed, ${s.broken} broken, ${s.same} same; ${s.diverged} with a first divergence; memory at the last question: ${results[0].units.changed} unit(s) changed, ${results[0].units.only_a} only in A, ${results[0].units.only_b} only in B.`,
    `Goal: compare of two ~100 MB traces ≤ 5 s — end to end median ${(median(total) / 1000).toFixed(1)} s wall, ${(median(totalCpu) / 1000).toFixed(1)} s CPU (${median(total) <= 5000 ? 'met' : median(totalCpu) <= 5000 ? 'met in CPU time, not in wall time on this loaded machine' : 'not met'}).`,
    `Measured with \`npx tsx bench/compare.ts ${runs}\`.`,
  ].join('\n');
  console.log(body);
  writeResultsSection('Compare two runs', body);
}
