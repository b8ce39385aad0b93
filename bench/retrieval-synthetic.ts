/**
 * Retrieval speed on the ~100 MB synthetic graph (bench/synthetic.ts): index build and
 * query time for BM25 and the hashed n-gram fallback, over every message and over every
 * value. Builds are repeated `runs` times in this process (medians quoted); queries are
 * 20 fixed queries, each repeated `runs` times.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { openTrace } from '../src/core/graph/index.ts';
import {
  Bm25Index,
  corpusFromGraph,
  DenseIndex,
  type DocScope,
  HashedNgramEmbedder,
  indexKey,
  reciprocalRankFusion,
} from '../src/core/retrieval/index.ts';
import { median } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const SYNTHETIC_FILE = 'bench/out/synthetic-100mb.json';

const QUERIES = [
  'When did Caroline go to the support group?\nyesterday',
  'What did Melanie paint?\na sunrise',
  'adoption agency interview',
  'marathon race training plan',
  'birthday party at the beach',
  'guitar class on the weekend',
  'Jon job interview deadline',
  'hotel flight city trip',
  'soup recipe bread cake',
  'museum concert painting',
  'sister brother wedding',
  'doctor appointment morning',
  'camping hiking mountain lake',
  'teacher school course',
  'coffee lunch dinner',
  'garden park dog cat',
  'festival evening train',
  'piano project idea',
  'Gina Tim Maria Joanna Nate Audrey',
  'swimming plan new big small',
];

interface ScopeResult {
  scope: DocScope;
  docs: number;
  chars: number;
  /** Taking the documents from the graph (ids + valueText). */
  corpusMs: number[];
  bm25BuildMs: number[];
  bm25Terms: number;
  bm25Postings: number;
  bm25Bytes: number;
  bm25LoadMs: number[];
  bm25QueryMs: number[];
  keyMs: number[];
  fallbackBuildMs: number[];
  fallbackBytes: number;
  fallbackQueryMs: number[];
  hybridQueryMs: number[];
}

const time = async (fn: () => unknown | Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

export async function benchSynthetic(runs: number, log: (s: string) => void) {
  if (!existsSync(SYNTHETIC_FILE)) {
    mkdirSync(dirname(SYNTHETIC_FILE), { recursive: true });
    log(`writing ${SYNTHETIC_FILE}…`);
    await writeSynthetic(SYNTHETIC_FILE, 100);
  }
  const bytes = statSync(SYNTHETIC_FILE).size;
  const r = openTrace(readFileSync(SYNTHETIC_FILE, 'utf8'), { file: SYNTHETIC_FILE });
  if (!r.ok) throw new Error('synthetic file did not load');
  const out: ScopeResult[] = [];
  for (const scope of ['messages', 'all'] as DocScope[]) {
    const corpusMs: number[] = [];
    let corpus = corpusFromGraph(r.graph, scope);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      corpus = corpusFromGraph(r.graph, scope);
      corpusMs.push(performance.now() - t0);
    }
    const chars = corpus.texts.reduce((s, t) => s + t.length, 0);
    log(`${scope}: ${corpus.ids.length} documents, ${(chars / 1e6).toFixed(1)} M chars`);
    const res: ScopeResult = {
      scope,
      docs: corpus.ids.length,
      chars,
      corpusMs,
      bm25BuildMs: [],
      bm25Terms: 0,
      bm25Postings: 0,
      bm25Bytes: 0,
      bm25LoadMs: [],
      bm25QueryMs: [],
      keyMs: [],
      fallbackBuildMs: [],
      fallbackBytes: 0,
      fallbackQueryMs: [],
      hybridQueryMs: [],
    };
    let bm25: Bm25Index | null = null;
    let dense: DenseIndex | null = null;
    const embedder = new HashedNgramEmbedder();
    for (let i = 0; i < runs; i++) {
      res.bm25BuildMs.push(
        await time(async () => {
          bm25 = await Bm25Index.build(corpus.texts);
        }),
      );
      res.keyMs.push(await time(() => indexKey(corpus, embedder.id)));
      res.fallbackBuildMs.push(
        await time(async () => {
          dense = await DenseIndex.build(embedder, corpus.texts);
        }),
      );
      log(
        `  run ${i + 1}: bm25 ${res.bm25BuildMs[i].toFixed(0)} ms, fallback ${res.fallbackBuildMs[i].toFixed(0)} ms`,
      );
    }
    const b = bm25 as unknown as Bm25Index;
    const d = dense as unknown as DenseIndex;
    res.bm25Terms = b.terms.length;
    res.bm25Postings = b.postDocs.length;
    const ser = b.serialize();
    res.bm25Bytes = ser.byteLength;
    for (let i = 0; i < runs; i++) res.bm25LoadMs.push(await time(() => Bm25Index.deserialize(ser)));
    res.fallbackBytes = d.serialize().byteLength;
    for (let i = 0; i < runs; i++)
      for (const q of QUERIES) {
        res.bm25QueryMs.push(await time(() => b.search(q, 10)));
        res.fallbackQueryMs.push(await time(async () => d.search(await embedder.embed([q]), 10)));
        res.hybridQueryMs.push(
          await time(async () =>
            reciprocalRankFusion([b.search(q, 20), d.search(await embedder.embed([q]), 20)], 10),
          ),
        );
      }
    out.push(res);
  }
  return { file: SYNTHETIC_FILE, bytes, results: out };
}

export function syntheticTable(s: Awaited<ReturnType<typeof benchSynthetic>>): string {
  const f = (xs: number[]) => median(xs).toFixed(xs.length && median(xs) < 10 ? 2 : 0);
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  const rows = s.results.map(
    (r) =>
      `| ${r.scope === 'messages' ? 'every message' : 'every value'} | ${r.docs.toLocaleString('en')} | ${(r.chars / 1e6).toFixed(1)} M | ${f(r.corpusMs)} | ` +
      `${f(r.bm25BuildMs)} | ${r.bm25Terms.toLocaleString('en')} / ${r.bm25Postings.toLocaleString('en')} | ${mb(r.bm25Bytes)} | ${f(r.bm25LoadMs)} | ${f(r.bm25QueryMs)} | ` +
      `${f(r.fallbackBuildMs)} | ${mb(r.fallbackBytes)} | ${f(r.fallbackQueryMs)} | ${f(r.hybridQueryMs)} | ${f(r.keyMs)} |`,
  );
  return [
    '| documents | count | chars | texts from graph ms | BM25 build ms | terms / postings | BM25 index size | BM25 load ms | BM25 query ms | fallback build ms | fallback index size | fallback query ms | hybrid query ms | content key ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}
