/**
 * Generates the fault-injected benchmark on the shared data: for each reference system
 * (offline mode), LoCoMo (7 conversations) and RealMem (3 personas) → base graphs with
 * counterfactual labels and one graph per injected fault, in MemTraceBench's layout under
 * bench/out/faultbench/<split>/. Writes the counts into the "Fault-injected benchmark"
 * section of bench/RESULTS.md.
 * Usage: npx tsx scripts/make-fault-bench.ts [--per-type 20] [--natural 10] [--systems rag,mem0]
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts, writeResultsSection } from '../bench/stats-util.ts';
import { exportSmartcomment } from '../src/core/trace/index.ts';
import {
  type BenchmarkSummary,
  type Conversation,
  generateBenchmark,
  loadLocomo,
  loadRealmem,
  SYSTEM_NAMES,
  type SystemName,
} from '../src/systems/index.ts';

const machine = machineFacts(); // at the start, as the other scripts read it

const { values } = parseArgs({
  options: {
    'per-type': { type: 'string', default: '20' },
    'realmem-per-type': { type: 'string', default: '4' },
    natural: { type: 'string', default: '10' },
    systems: { type: 'string', default: SYSTEM_NAMES.join(',') },
    out: { type: 'string', default: 'bench/out/faultbench' },
    data: { type: 'string', default: '../shared/data' },
  },
});
const out = values.out;
const data = values.data;
const locomo = loadLocomo(JSON.parse(readFileSync(join(data, 'locomo/locomo-dev.json'), 'utf8')));
const realmem: Conversation[] = readdirSync(join(data, 'realmem'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) =>
    loadRealmem(JSON.parse(readFileSync(join(data, 'realmem', f), 'utf8')), {
      id: f.replace(/_dialogues.*$/, ''),
    }),
  );

const write = (rel: string, doc: Parameters<typeof exportSmartcomment>[0]) => {
  const file = join(out, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, exportSmartcomment(doc, { indent: 0 }));
};

const chosen = values.systems.split(',') as SystemName[];
const summaryPath = join(out, 'summary.json');
// Rows of systems not regenerated now are kept from the last run.
const rows: { summary: BenchmarkSummary; seconds: number }[] = (() => {
  try {
    const old = JSON.parse(readFileSync(summaryPath, 'utf8')) as {
      summary: BenchmarkSummary;
      seconds: number;
    }[];
    return old.filter((r) => !chosen.includes(r.summary.system));
  } catch {
    return [];
  }
})();
for (const system of chosen) {
  for (const [dataset, conversations, perType] of [
    ['locomo', locomo, Number(values['per-type'])],
    ['realmem', realmem, Number(values['realmem-per-type'])],
  ] as const) {
    const started = Date.now();
    const summary = await generateBenchmark({
      system,
      dataset,
      conversations,
      perType,
      naturalPerConversation: Number(values.natural),
      write,
      onProgress: (m) => console.error(`[${system}/${dataset}] ${m}`),
    });
    rows.push({ summary, seconds: (Date.now() - started) / 1000 });
    writeFileSync(summaryPath, JSON.stringify(rows, null, 2));
  }
}

const TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];
const KIND = ['extraction', 'update', 'deletion', 'retrieval', 'response'];
const bySplit = new Map<
  string,
  { inj: number[]; cf: number[]; graphs: number; unresolved: number; seconds: number }
>();
for (const { summary: s, seconds } of rows) {
  const r = bySplit.get(s.split) ?? {
    inj: [0, 0, 0, 0, 0],
    cf: [0, 0, 0, 0, 0],
    graphs: 0,
    unresolved: 0,
    seconds: 0,
  };
  KIND.forEach((k, i) => {
    r.inj[i] += s.injected[k] ?? 0;
  });
  TYPES.forEach((t, i) => {
    r.cf[i] += s.counterfactual[t] ?? 0;
  });
  r.graphs += s.graphs;
  r.unresolved += s.unresolved;
  r.seconds += seconds;
  bySplit.set(s.split, r);
}
const lines = [
  '`npx tsx scripts/make-fault-bench.ts` (offline mode of the four reference systems; LoCoMo: the 7',
  'conversations of `locomo-dev.json`, RealMem: the 3 personas). Per system: one base graph per',
  `conversation with up to ${values.natural} ordinary failures labelled by counterfactual repair, and one graph per`,
  `injected fault (${values['per-type']} per type on LoCoMo, up to ${values['realmem-per-type']} per type on RealMem).`,
  'Files: `bench/out/faultbench/<split>/` (not committed: LoCoMo has no licence).',
  '',
  '| split | graphs | labelled | injected Extr/Upd/Del/Ret/Resp | counterfactual Extr/Upd/Del/Ret/Resp | unresolved | minutes |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...[...bySplit].map(([split, r]) => {
    const total = r.inj.reduce((a, b) => a + b, 0) + r.cf.reduce((a, b) => a + b, 0);
    return `| ${split} | ${r.graphs} | ${total} | ${r.inj.join(' / ')} | ${r.cf.join(' / ')} | ${r.unresolved} | ${(r.seconds / 60).toFixed(1)} |`;
  }),
  '',
  '"unresolved": ordinary failures no single repair rescued (e.g. an evidence id the data set',
  'points to wrongly) — not annotated. Generated on ' + new Date().toISOString().slice(0, 10) + '.',
  '',
];
writeResultsSection('Fault-injected benchmark', [...lines, `Machine: ${machine}.`].join('\n'));
console.log(lines.join('\n'));
