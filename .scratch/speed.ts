import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { evidenceFlowEngine } from '../src/core/attribution/engines.ts';
import { listCases } from '../src/core/cases/cases.ts';
import { openTrace } from '../src/core/graph/open.ts';
import { corpusFromGraph } from '../src/core/retrieval/corpus.ts';
import { RetrievalIndex } from '../src/core/retrieval/retrieval-index.ts';
import { writeSynthetic } from '../bench/write-synthetic.ts';
import { loadWordVectors } from '../src/core/semantic/word-vectors.node.ts';
import { vectorSimilarity } from '../src/core/semantic/word-vectors.ts';
const FILE = 'bench/out/synthetic-100mb.json';
if (!existsSync(FILE)) { mkdirSync('bench/out', { recursive: true }); await writeSynthetic(FILE, 100); }
const r = openTrace(readFileSync(FILE, 'utf8'), { file: FILE });
if (!r.ok) throw 1;
const g = r.graph;
const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
const similar = vectorSimilarity(loadWordVectors());
const cases = listCases(g);
for (const layer of ['lexical', 'vectors'] as const) {
  const times: number[] = [];
  for (const c of cases.slice(0, 12)) {
    const u0 = process.cpuUsage();
    const a = await evidenceFlowEngine({ graph: g, case: c }, { index, evidenceFlow: { layer, similar } });
    const u = process.cpuUsage(u0);
    times.push((u.user + u.system) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(layer, 'median cpu ms', times[times.length >> 1].toFixed(0), 'max', times.at(-1)!.toFixed(0));
}
