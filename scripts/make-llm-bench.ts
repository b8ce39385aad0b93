/**
 * Writes the benchmark of LLM-written memories (`memtrace make-bench --kind llm-memories`) on
 * the shared data — LoCoMo's 7 conversations and RealMem's 3 personas, recorded memories
 * replayed by the fact-store, session-summary, vector-store and per-user-store shapes — under
 * one judge rule per folder, bench/out/llm-bench-<rule>/ (ignored by git: LoCoMo has no
 * licence), and the counts of every rule found there into the "LLM-written memories benchmark"
 * section of bench/RESULTS.md. Exits 1 when a type of a rule generated now has fewer than
 * --min-per-type cases.
 * Usage: npx tsx scripts/make-llm-bench.ts [--judge-rule R | --all-rules] [--verify] [--min-per-type 40]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts, writeResultsSection } from '../bench/stats-util.ts';
import { main } from '../src/cli/main.ts';
import {
  ERROR_TYPES,
  isJudgeRule,
  JUDGE_RULES,
  type JudgeRule,
  type LlmBenchSummary,
} from '../src/systems/index.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({
  options: {
    'out-root': { type: 'string', default: 'bench/out' },
    data: { type: 'string', default: '../shared/data' },
    'min-per-type': { type: 'string', default: '40' },
    'judge-rule': { type: 'string', default: 'offline' },
    'all-rules': { type: 'boolean', default: false },
    verify: { type: 'boolean', default: false },
  },
});
const rule = values['judge-rule'];
if (!isJudgeRule(rule)) {
  console.error(`--judge-rule must be one of ${JUDGE_RULES.join('|')}`);
  process.exit(2);
}
const rules: readonly JudgeRule[] = values['all-rules'] ? JUDGE_RULES : [rule];
/** The folder of one rule's benchmark. */
const outOf = (r: JudgeRule) => join(values['out-root'], `llm-bench-${r}`);

const realmem = readdirSync(join(values.data, 'realmem'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => join(values.data, 'realmem', f));
let code = 0;
for (const r of rules) {
  const status = await main(
    [
      'make-bench',
      '--kind',
      'llm-memories',
      '--judge-rule',
      r,
      '--out',
      outOf(r),
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
  code = Math.max(code, status);
}
const cpu = process.cpuUsage();

type Summary = LlmBenchSummary & { seconds: number };
const cells = (c: Record<string, number>) => ERROR_TYPES.map((t) => c[t] ?? 0).join(' / ');
const sum = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(ERROR_TYPES.map((t) => [t, (a[t] ?? 0) + (b[t] ?? 0)]));

/** One rule's rows: per design, natural + injected per type, and the drops. */
function ruleRows(r: JudgeRule, s: Summary): string[] {
  const drops = (d: Record<string, number>) =>
    `${d['evidence-does-not-carry'] ?? 0} / ${Object.entries(d)
      .filter(([k]) => k !== 'evidence-does-not-carry')
      .reduce((n, [, v]) => n + v, 0)}`;
  return [
    ...Object.values(s.byShape).map(
      (b) =>
        `| ${r} | ${b.split} | ${b.graphs} | ${b.failed} / ${b.questions} | ${cells(sum(b.natural, b.injected))} | ${cells(b.injected)} | ${drops(b.drops)} |`,
    ),
    `| ${r} | **all** | ${s.graphs} | | ${cells(s.total)} | ${cells(s.injected)} | ${drops(s.drops)} |`,
  ];
}

const found = JUDGE_RULES.filter((r) => existsSync(join(outOf(r), 'summary.json'))).map((r) => ({
  r,
  s: JSON.parse(readFileSync(join(outOf(r), 'summary.json'), 'utf8')) as Summary,
}));
const body = [
  '`npx tsx scripts/make-llm-bench.ts --all-rules` (or `--judge-rule R` for one; each is',
  '`memtrace make-bench --kind llm-memories --judge-rule R`; rules in `docs/llm-memory-benchmark.md`).',
  'The shapes replay the recorded LLM memories of LoCoMo (7 conversations) and RealMem (3 personas);',
  "every failed question is labelled by counterfactual repair with judged carrying (the rule's own",
  'reading of "this memory answers it") or dropped with a reason; injected faults fill the types',
  `short of ${found[0]?.s.minPerType ?? values['min-per-type']} over the whole benchmark of a rule. Files: \`bench/out/llm-bench-<rule>/<split>/\` with`,
  '`summary.json` and `manifest.json`. Cases per type: Extraction / Update / Deletion / Retrieval /',
  'Response (natural + injected); drops: evidence-does-not-carry / other reasons.',
  '',
  '| judge rule | split | graphs | failed / questions | cases Extr/Upd/Del/Ret/Resp | of them injected | dropped: not carried / other |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...found.flatMap(({ r, s }) => ruleRows(r, s)),
  '',
  ...found.map(
    ({ r, s }) =>
      `- ${r}: ${s.cases} cases (every type ≥ ${s.minPerType}: ${s.meetsMinimum ? 'yes' : 'no'}), held out ${s.heldout.graphs} graphs / ${s.heldout.cases} cases; injection ${s.injection.tried} tried, ${s.injection.survived} survived, ${s.injection.earlierFault} dropped (an earlier natural fault was decisive); labels re-verified by rerun: ${s.verified}; generated in ${(s.seconds / 60).toFixed(1)} min wall.`,
  ),
  '',
  `Held out: ${found[0]?.s.heldout.conversations.join(', ') ?? ''}. This run generated ${rules.join(', ')} in`,
  `${((cpu.user + cpu.system) / 60e6).toFixed(1)} min CPU (load average ${loadavg()[0].toFixed(1)} at the end) on ${machine}.`,
].join('\n');
writeResultsSection('LLM-written memories benchmark', body);
console.log(body);
process.exit(code);
