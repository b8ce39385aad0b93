/**
 * Writes the benchmark of LLM-written memories (`memtrace make-bench --kind llm-memories`) on
 * the shared data — LoCoMo's 7 conversations and RealMem's 3 personas, recorded memories
 * replayed by the fact-store, session-summary and vector-store shapes — into
 * bench/out/llm-bench/ (ignored by git: LoCoMo has no licence), and its counts into the
 * "LLM-written memories benchmark" section of bench/RESULTS.md. Exits 1 when a type has fewer
 * than --min-per-type cases. Usage: npx tsx scripts/make-llm-bench.ts [--verify] [--min-per-type 40]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts, writeResultsSection } from '../bench/stats-util.ts';
import { main } from '../src/cli/main.ts';
import { ERROR_TYPES, type LlmBenchSummary } from '../src/systems/index.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench/out/llm-bench' },
    data: { type: 'string', default: '../shared/data' },
    'min-per-type': { type: 'string', default: '40' },
    verify: { type: 'boolean', default: false },
  },
});
const realmem = readdirSync(join(values.data, 'realmem'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => join(values.data, 'realmem', f));
const code = await main(
  [
    'make-bench',
    '--kind',
    'llm-memories',
    '--out',
    values.out,
    '--locomo',
    join(values.data, 'locomo/locomo-dev.json'),
    '--realmem',
    realmem.join(','),
    '--min-per-type',
    values['min-per-type'],
    '--compact',
    ...(values.verify ? ['--verify'] : []),
  ],
  { stdout: process.stdout, stderr: process.stderr, env: process.env },
);
const cpu = process.cpuUsage();
const s = JSON.parse(readFileSync(join(values.out, 'summary.json'), 'utf8')) as LlmBenchSummary & {
  seconds: number;
};
const cells = (c: Record<string, number>) => ERROR_TYPES.map((t) => c[t] ?? 0).join(' / ');
const body = [
  '`npx tsx scripts/make-llm-bench.ts` (`memtrace make-bench --kind llm-memories`; rules in',
  '`docs/llm-memory-benchmark.md`). The shapes replay the recorded LLM memories of LoCoMo (7',
  'conversations) and RealMem (3 personas); every failed question is labelled by counterfactual',
  'repair with judged carrying or dropped with a reason; injected faults fill the types short of',
  `${s.minPerType}. Files: \`bench/out/llm-bench/<split>/\` with \`summary.json\` and \`manifest.json\`.`,
  '',
  '| split | graphs | failed / questions | natural Extr/Upd/Del/Ret/Resp | injected Extr/Upd/Del/Ret/Resp |',
  '| --- | --- | --- | --- | --- |',
  ...Object.values(s.byShape).map(
    (b) =>
      `| ${b.split} | ${b.graphs} | ${b.failed} / ${b.questions} | ${cells(b.natural)} | ${cells(b.injected)} |`,
  ),
  `| all | ${s.graphs} | | ${cells(s.natural)} | ${cells(s.injected)} |`,
  '',
  `Cases: ${s.cases} (total per type ${cells(s.total)}; every type ≥ ${s.minPerType}: ${s.meetsMinimum ? 'yes' : 'no'}).`,
  `Held out (${s.heldout.conversations.join(', ')}): ${s.heldout.graphs} graphs, ${s.heldout.cases} cases.`,
  `Dropped failures: ${Object.entries(s.drops)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}.`,
  `Injection: ${s.injection.tried} tried, ${s.injection.survived} survived, ${s.injection.earlierFault} dropped (an earlier natural fault was decisive).`,
  `Labels re-verified by rerun: ${s.verified}${values.verify ? '' : ' (run with --verify to recheck every label)'}.`,
  '',
  `Generated in ${(s.seconds / 60).toFixed(1)} min wall, ${((cpu.user + cpu.system) / 60e6).toFixed(1)} min CPU`,
  `(load average ${loadavg()[0].toFixed(1)} at the end) on ${machine}.`,
].join('\n');
writeResultsSection('LLM-written memories benchmark', body);
console.log(body);
process.exit(code);
