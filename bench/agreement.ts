/**
 * `memtrace agreement` with many annotators: 1,000 and 10,000 people, each labelling 20 of
 * 5,000 cases (50 graphs × 100 questions; every 10th label re-labelled later, the newer one
 * counting), exported as annotations files of 100 people each — and a crowd of 10,000 who all
 * labelled the same 5 cases (~50 M pairs exist). Timed end to end as a real process
 * (`node bin/memtrace.mjs agreement DIR --json`, the CLI bundle; reading and validating the
 * files included), wall time and peak memory from GNU time (`/usr/bin/time -f "%e %M"`), the
 * size of the JSON it prints; median of `--runs` (default 3). With the default `--max-pairs`
 * (1000) and, for 1,000 people, `--max-pairs 100000000` (every pair that shares a case).
 * Also the core `agreement()` alone on the records (median of 5). Files go to
 * bench/out/agreement/ (ignored by git). `npx tsx bench/agreement.ts [--runs 3]` writes its
 * section of RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { agreement } from '../src/core/agreement/index.ts';
import { type LabelRecord, toAnnotationsFile } from '../src/core/labels/index.ts';
import { seededRandom } from '../src/core/random.ts';
import { machineFacts, median, timeIt, writeResultsSection } from './stats-util.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench/out/agreement');
const TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];

interface Scenario {
  name: string;
  people: number;
  /** Cases each person labels, drawn from `cases`. */
  perPerson: number;
  cases: number;
}

/** The labels of a scenario: seeded, so every run measures the same input. */
function labelsOf(s: Scenario): LabelRecord[] {
  const r = seededRandom(s.people * 31 + s.cases);
  const out: LabelRecord[] = [];
  for (let p = 0; p < s.people; p++) {
    const annotator = `person-${String(p).padStart(5, '0')}`;
    const picked = new Set<number>();
    while (picked.size < Math.min(s.perPerson, s.cases)) picked.add(Math.floor(r() * s.cases));
    for (const [k, c] of [...picked].entries()) {
      const times = k % 10 === 0 ? 2 : 1; // a re-labelled case: the newer record counts
      for (let t = 0; t < times; t++)
        out.push({
          graphId: `graph-${String(Math.floor(c / 100)).padStart(2, '0')}`,
          queryId: `query:q${c % 100}@1`,
          errorType: TYPES[Math.floor(r() * TYPES.length)],
          opId: `op-${Math.floor(r() * 4)}`,
          reason: `${annotator}'s reading`,
          source: 'person',
          annotator,
          createdAt: `2026-01-0${1 + t}T00:00:00.000Z`,
          origin: 'workbench',
        });
    }
  }
  return out;
}

/** Annotations files of 100 people each, as the app exports them. */
function writeFiles(s: Scenario, labels: LabelRecord[]): string {
  const dir = join(OUT, s.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const byFile = new Map<number, LabelRecord[]>();
  for (const l of labels) {
    const k = Math.floor(Number(l.annotator.slice(7)) / 100);
    const list = byFile.get(k) ?? [];
    list.push(l);
    byFile.set(k, list);
  }
  for (const [k, list] of byFile)
    writeFileSync(join(dir, `people-${k}.json`), JSON.stringify(toAnnotationsFile(list)));
  return dir;
}

interface Measured {
  seconds: number;
  peakMb: number;
  outputMb: number;
  annotators: number;
  shared: number;
  pairs: number;
  truncated: boolean;
  disputed: number;
}

/** One run of the real CLI under GNU time: wall seconds, peak resident memory, what it printed. */
function runCli(dir: string, extra: string[]): Measured {
  const stats = join(OUT, 'time.txt');
  const bin = join(ROOT, 'bin/memtrace.mjs');
  const stdout = execFileSync(
    '/usr/bin/time',
    ['-f', '%e %M', '-o', stats, process.execPath, bin, 'agreement', dir, '--json', ...extra],
    { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 },
  );
  const [seconds, kb] = readFileSync(stats, 'utf8').trim().split(/\s+/).map(Number);
  const report = JSON.parse(stdout.toString('utf8'));
  return {
    seconds,
    peakMb: kb / 1024,
    outputMb: stdout.length / 1e6,
    annotators: report.annotators.length,
    shared: report.shared_cases,
    pairs: report.pairs.length,
    truncated: report.pairs_truncated,
    disputed: report.disputed.length,
  };
}

const SCENARIOS: Scenario[] = [
  { name: 'people-1k', people: 1_000, perPerson: 20, cases: 5_000 },
  { name: 'people-10k', people: 10_000, perPerson: 20, cases: 5_000 },
  { name: 'crowd-10k', people: 10_000, perPerson: 5, cases: 5 },
];
const ALL_PAIRS = ['--max-pairs', '100000000'];

// Build the CLI bundle first (bin/memtrace.mjs rebuilds it when the sources are newer), so no run times a build.
execFileSync(process.execPath, [join(ROOT, 'bin/memtrace.mjs'), '--help'], { stdio: 'ignore' });

const rows: string[] = [];
for (const s of SCENARIOS) {
  const labels = labelsOf(s);
  const dir = writeFiles(s, labels);
  const core = median(Array.from({ length: 5 }, () => timeIt(() => agreement(labels))));
  const variants: [string, string[]][] = [['default (1000)', []]];
  if (s.people <= 1_000) variants.push(['all pairs', ALL_PAIRS]);
  for (const [cap, extra] of variants) {
    const runs = Array.from({ length: RUNS }, () => runCli(dir, extra));
    const m = runs[0];
    const line =
      `| ${s.name}: ${s.people.toLocaleString('en')} people × ${s.perPerson} of ${s.cases.toLocaleString('en')} cases | ` +
      `${labels.length.toLocaleString('en')} | ${cap} | ${median(runs.map((r) => r.seconds)).toFixed(2)} | ` +
      `${median(runs.map((r) => r.peakMb)).toFixed(0)} | ${m.outputMb.toFixed(2)} | ${m.shared.toLocaleString('en')} | ` +
      `${m.pairs.toLocaleString('en')}${m.truncated ? ' (truncated)' : ''} | ${m.disputed.toLocaleString('en')} | ` +
      `${cap.startsWith('default') ? (core / 1000).toFixed(2) : '–'} |`;
    console.log(line);
    rows.push(line);
  }
}

writeResultsSection(
  'Agreement with many annotators',
  `\`npx tsx bench/agreement.ts\` — ${machine}.

Seeded labels written as annotations files of 100 people each (bench/out/agreement/), read by the real
CLI (\`node bin/memtrace.mjs agreement DIR --json\`, bundle): wall time and peak resident memory by GNU
time, median of ${RUNS} runs; the JSON printed; "core" = \`agreement()\` alone on the same records (median
of 5). Pairs are found through shared cases and listed up to \`--max-pairs\` (default 1000), so the work
and the output follow the labels and the cap, not annotators². The crowd scenario (every person labelled
the same 5 cases: ~50 M pairs exist) shows the cap bounding both.

| scenario | labels | --max-pairs | seconds | peak MB | JSON MB | shared cases | pairs listed | disputed | core seconds |
| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}`,
);
console.log('wrote the "Agreement with many annotators" section of bench/RESULTS.md');
