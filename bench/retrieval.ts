/**
 * Retrieval benchmarks → the `## Retrieval` section of bench/RESULTS.md.
 *   npx tsx bench/retrieval.ts [--runs 3] [--model-dir DIR [--dtype q8]] [--skip-synthetic] [--no-write] [--render]
 * Speed on the ~100 MB synthetic graph (bench/retrieval-synthetic.ts) and evidence
 * recall on LoCoMo (bench/retrieval-locomo.ts). With --model-dir, the recall table
 * adds dense and hybrid rows for that transformers.js model folder.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type Dtype,
  type Embedder,
  HashedNgramEmbedder,
  TransformersEmbedder,
} from '../src/core/retrieval/index.ts';
import { nodeModelDir } from '../src/core/retrieval/transformers.node.ts';
import { benchLocomo, LOCOMO_FILE, locomoTable } from './retrieval-locomo.ts';
import { benchSynthetic, syntheticTable } from './retrieval-synthetic.ts';
import { machineFacts, writeResultsSection } from './stats-util.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'model-dir': { type: 'string' },
    dtype: { type: 'string', default: 'fp32' },
    'skip-synthetic': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    /** Re-render the section from bench/out/retrieval.json without measuring. */
    render: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const log = (s: string) => console.error(s);

type Results = {
  synthetic: Awaited<ReturnType<typeof benchSynthetic>> | null;
  locomo: Awaited<ReturnType<typeof benchLocomo>>;
};
let results: Results;
if (values.render) results = JSON.parse(readFileSync('bench/out/retrieval.json', 'utf8')) as Results;
else {
  const embedders: Embedder[] = [new HashedNgramEmbedder()];
  if (values['model-dir'])
    embedders.push(
      await TransformersEmbedder.load({
        location: nodeModelDir(values['model-dir']),
        dtype: values.dtype as Dtype,
      }),
    );
  const synthetic = values['skip-synthetic'] ? null : await benchSynthetic(runs, log);
  results = { synthetic, locomo: await benchLocomo(embedders, log) };
  if (!values['no-write']) {
    mkdirSync('bench/out', { recursive: true });
    writeFileSync('bench/out/retrieval.json', JSON.stringify(results, null, 2));
  }
}
const { synthetic, locomo } = results;

const cmd = `npx tsx bench/retrieval.ts --runs ${runs}${values['model-dir'] ? ` --model-dir ${values['model-dir']}` : ''}`;
const body = [
  `\`${cmd}\` (${machine} — expect ±20 %). Raw numbers: \`bench/out/retrieval.json\`.`,
  '',
  '"fallback" is the **model-free hashed character n-gram embedder** (`fallback (hashed n-grams, not a neural model)`): it measures spelling overlap, not meaning. **No real embedding model can be downloaded here** (no model hub offline), so no neural dense numbers are reported; anyone with a transformers.js model folder can add them with `--model-dir DIR` (e.g. all-MiniLM-L6-v2: `--model-dir models/all-MiniLM-L6-v2 --dtype q8`).',
  '',
  ...(synthetic
    ? [
        `### Speed on the synthetic graph (\`${synthetic.file}\`, ${(synthetic.bytes / 1e6).toFixed(0)} MB)`,
        '',
        `Medians: builds over ${runs} runs in one process; queries over 20 queries × ${runs} runs, top 10 (hybrid: 20 + 20 fused). Fallback query time includes embedding the query; dense search is an exact scan. "every value" = every non-sentinel variable.`,
        '',
        syntheticTable(synthetic),
        '',
        'Notes: the synthetic text is generated from a small word list, so the vocabulary is tiny (≈4.5k terms) and the "every value" corpus is dominated by long window values repeated across versions; real traces have larger vocabularies (more hash-table entries, same linear scan). "texts from graph" is taking the ids and `valueText` of each document (a fast path for single-quoted Python reprs, checked equal to `valueText`); the content key is the hash a stored index is checked against. First builds in a process are slower (JIT warm-up, heap growth); the median drops them. BM25 and the fallback build run single-threaded; in the app they run in the retrieval worker.',
        '',
      ]
    : []),
  `### Evidence recall on LoCoMo (\`${LOCOMO_FILE}\`, ${locomo.conversations} conversations, ${locomo.turns} turns)`,
  '',
  'Share of questions whose gold evidence turns are **all** in the top 8 (in brackets: at least one is). Documents = turns ("Speaker: text" + image caption); query = question + "\\n" + golden answer, as the paper\'s start points. Adversarial questions have no golden answer (query = question only) and are kept out of the 1–4 total.' +
    (locomo.skipped ? ` ${locomo.skipped} questions whose evidence names no turn were skipped.` : ''),
  '',
  locomoTable(locomo),
  '',
  'The golden answer is part of the query (as in the paper), so lexical overlap with the evidence turn is high for single-hop questions; multi-hop questions need every one of several turns in 8 slots, hence "all" is far below "any". The fallback is a spelling-similarity baseline and hurts the BM25 ranking when fused; a neural model is expected to help on paraphrased evidence — run with `--model-dir` to measure it.',
].join('\n');
if (!values['no-write']) writeResultsSection('Retrieval', body);
console.log(body);
