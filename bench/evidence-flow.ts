/**
 * Evidence-flow seconds per case on the ~100 MB synthetic graph (goal ≤ 1 s), and
 * its accuracy on the labelled real files. `npx tsx bench/evidence-flow.ts`
 * (writes the `Evidence-flow attributor` section of RESULTS.md).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { evidenceFlowEngine } from '../src/core/attribution/engines.ts';
import { listCases } from '../src/core/cases/cases.ts';
import { openTrace } from '../src/core/graph/open.ts';
import { corpusFromGraph } from '../src/core/retrieval/corpus.ts';
import { RetrievalIndex } from '../src/core/retrieval/retrieval-index.ts';
import { median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const FILE = 'bench/out/synthetic-100mb.json';
if (!existsSync(FILE)) {
  mkdirSync('bench/out', { recursive: true });
  await writeSynthetic(FILE, 100);
}
const r = openTrace(readFileSync(FILE, 'utf8'), { file: FILE });
if (!r.ok) throw new Error('synthetic graph did not load');
const g = r.graph;
const t0 = performance.now();
const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
const indexMs = performance.now() - t0;
const cases = listCases(g);
const perCase: number[] = [];
const perCaseLocated: number[] = [];
let answered = 0;
for (const c of cases) {
  let t = performance.now();
  const a = await evidenceFlowEngine({ graph: g, case: c }, { index });
  perCase.push(performance.now() - t);
  if (a.op_id) answered++;
  t = performance.now();
  await evidenceFlowEngine({ graph: g, case: { ...c, evidenceIds: [] } }, { index });
  perCaseLocated.push(performance.now() - t);
}
const body = [
  `Graph: \`${FILE}\` (${g.varId.length} variables, ${g.opId.length} ops; long-context window chain of ${g.varCategory.filter((x) => x === 'memory_store').length} versions of up to 20 kB).`,
  `${cases.length} failed questions; ${answered} attributed to an op. Node ${process.version}.`,
  '',
  '| step | median | max |',
  '| --- | --- | --- |',
  `| messages BM25 index (once per graph) | ${indexMs.toFixed(0)} ms | — |`,
  `| attribute one case, evidence ids given | ${median(perCase).toFixed(1)} ms | ${Math.max(...perCase).toFixed(1)} ms |`,
  `| attribute one case, evidence located by start points | ${median(perCaseLocated).toFixed(1)} ms | ${Math.max(...perCaseLocated).toFixed(1)} ms |`,
  '',
  'Goal: ≤ 1 s per case. Accuracy on labelled files: `npx memtrace bench ../shared/data/smartcomment --method evidence --json`.',
  `Measured with \`npx tsx bench/evidence-flow.ts\` on ${new Date().toISOString().slice(0, 10)}.`,
].join('\n');
console.log(body);
writeResultsSection('Evidence-flow attributor (speed)', body);
