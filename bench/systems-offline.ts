/**
 * The four reference systems in the offline mode on the shared data sets: accuracy by the
 * offline judge and run time → the `## Offline systems` section of bench/RESULTS.md.
 *   npx tsx bench/systems-offline.ts [--label after] [--systems mem0,…] [--datasets locomo,realmem] [--limit N] [--render]
 * Each run is kept in bench/out/systems-offline-<label>.json; the section shows the run
 * labelled `after` (accuracy and time per system and data set) and, when both exist, the
 * run times of `before` and `after` side by side (the mem0 search fix was measured so).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tracer } from '../src/sdk/index.ts';
import {
  type Conversation,
  createSystem,
  loadDataset,
  NullSink,
  runSystem,
  SYSTEM_NAMES,
  type SystemName,
} from '../src/systems/index.ts';
import { machineFacts, writeResultsSection } from './stats-util.ts';

const DATA = join(import.meta.dirname, '../../shared/data');
const SETS = {
  locomo: ['locomo/locomo-dev.json'],
  realmem: [
    'realmem/Kenta_Tanaka_dialogues_256k.json',
    'realmem/Liam_O_Connor_dialogues_256k.json',
    'realmem/Pak_Budi_dialogues_256k.json',
  ],
} as const;
type SetName = keyof typeof SETS;

const { values } = parseArgs({
  options: {
    label: { type: 'string', default: 'after' },
    systems: { type: 'string', default: SYSTEM_NAMES.join(',') },
    datasets: { type: 'string', default: Object.keys(SETS).join(',') },
    /** At most this many conversations per data set (default all). */
    limit: { type: 'string' },
    render: { type: 'boolean', default: false },
  },
});

interface Row {
  system: SystemName;
  dataset: SetName;
  conversations: number;
  questions: number;
  correct: number;
  /** Wall seconds per conversation (a whole run: every session added, every question answered). */
  seconds: number[];
}
interface Run {
  label: string;
  machine: string;
  command: string;
  rows: Row[];
}

const outFile = (label: string) => `bench/out/systems-offline-${label}.json`;

async function measure(): Promise<Run> {
  const machine = machineFacts(); // before the work: the commit and tree measured
  const systems = values.systems.split(',') as SystemName[];
  const sets = values.datasets.split(',') as SetName[];
  const rows: Row[] = [];
  for (const set of sets) {
    const convs: Conversation[] = SETS[set]
      .flatMap((f) => loadDataset(set, JSON.parse(readFileSync(join(DATA, f), 'utf8')), f))
      .slice(0, values.limit === undefined ? undefined : Number(values.limit));
    for (const system of systems) {
      const row: Row = { system, dataset: set, conversations: 0, questions: 0, correct: 0, seconds: [] };
      for (const conv of convs) {
        const t0 = performance.now();
        const r = await runSystem(createSystem(system), conv, {
          tracer: new Tracer({ sink: new NullSink() }),
        });
        row.seconds.push((performance.now() - t0) / 1000);
        row.conversations++;
        row.questions += r.answers.length;
        row.correct += r.answers.filter((a) => a.correct).length;
        console.error(
          `${system} ${set} ${conv.id}: ${r.answers.filter((a) => a.correct).length}/${r.answers.length}, ${row.seconds.at(-1)!.toFixed(1)} s`,
        );
      }
      rows.push(row);
    }
  }
  const args = process.argv.slice(2).join(' ');
  return {
    label: values.label,
    machine,
    command: `npx tsx bench/systems-offline.ts${args ? ` ${args}` : ''}`,
    rows,
  };
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '—');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function render(after: Run, before: Run | null): string {
  const lines = [
    `\`${after.command}\` — ${after.machine}. Every system runs a whole conversation (all sessions, every question) in the offline mode, traced with the SDK into a null sink; the offline judge (\`src/systems/judge.ts\`: containment, token F1 ≥ 0.5, or — for golden answers ≥ 3× longer than the prediction, such as RealMem's whole replies — support of the prediction's added content words by the golden answer) decides correctness.`,
    '',
    '| system | data set | conversations | questions | judged correct | median s per conversation | max s |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...after.rows.map(
      (r) =>
        `| ${r.system} | ${r.dataset} | ${r.conversations} | ${r.questions} | ${r.correct} (${pct(r.correct, r.questions)}) | ${median(r.seconds).toFixed(1)} | ${Math.max(...r.seconds).toFixed(1)} |`,
    ),
  ];
  if (before) {
    lines.push(
      '',
      `Run time before / after the offline search fix (\`LexicalIndex.search\` scored every stored document for every query — quadratic as Mem0's store grows, since every fact holds the speaker's name; it now takes query terms rarest first through postings and stops once no unseen document can reach the top k, with identical scores and order). Wall-clock seconds on shared cores: the two runs saw different loads. Before: \`${before.command}\` — ${before.machine}.`,
      '',
      '| system | data set | median s before | median s after | after / before |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const b of before.rows) {
      const a = after.rows.find((r) => r.system === b.system && r.dataset === b.dataset);
      if (!a) continue;
      const mb = median(b.seconds);
      const ma = median(a.seconds);
      lines.push(
        `| ${b.system} | ${b.dataset} | ${mb.toFixed(1)} | ${ma.toFixed(1)} | ${(ma / mb).toFixed(2)}× |`,
      );
      if (a.correct !== b.correct)
        lines.push(`| | | (answers changed: ${b.correct} → ${a.correct} correct) | | |`);
    }
  }
  return lines.join('\n');
}

let run: Run;
if (values.render) run = JSON.parse(readFileSync(outFile(values.label), 'utf8')) as Run;
else {
  run = await measure();
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(outFile(run.label), JSON.stringify(run, null, 2));
}
if (run.label === 'after') {
  const before = existsSync(outFile('before'))
    ? (JSON.parse(readFileSync(outFile('before'), 'utf8')) as Run)
    : null;
  const body = render(run, before);
  console.log(body);
  writeResultsSection('Offline systems (accuracy and run time)', body);
} else console.log(`${outFile(run.label)} written; run with --label after to write the section.`);
