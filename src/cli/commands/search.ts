/**
 * `memtrace search`: rank a trace's variables for a query by BM25, dense embeddings or
 * hybrid RRF. The index is cached in `$MEMTRACE_CACHE_DIR` (default
 * `.cache/memtrace/retrieval/` under the working directory), one file per
 * (trace path, scope, model); the file stores its content key and is rebuilt when the
 * trace's documents or the model change.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  corpusFromGraph,
  type DocScope,
  type Dtype,
  type Embedder,
  FALLBACK_LABEL,
  HashedNgramEmbedder,
  indexKey,
  RetrievalIndex,
  SEARCH_METHODS,
  TransformersEmbedder,
} from '../../core/retrieval/index.ts';
import { nodeModelDir } from '../../core/retrieval/transformers.node.ts';
import { command, JSON_FLAG } from '../command.ts';
import { CliError, type CliIO, printJson, printLine } from '../io.ts';
import { writeAtomic } from '../write.ts';
import { loadGraph } from './load.ts';

const SCOPES: readonly DocScope[] = ['messages', 'all'];

function cacheDir(io: CliIO): string {
  return resolve(io.env.MEMTRACE_CACHE_DIR ?? join('.cache', 'memtrace', 'retrieval'));
}

export async function loadEmbedder(
  modelDir: string | undefined,
  dtype: string | undefined,
): Promise<Embedder> {
  if (!modelDir) return new HashedNgramEmbedder();
  try {
    return await TransformersEmbedder.load({
      location: nodeModelDir(modelDir),
      dtype: (dtype ?? 'fp32') as Dtype,
    });
  } catch (e) {
    throw new CliError(`--model-dir ${modelDir}: cannot load the model (${(e as Error).message})`);
  }
}

export const search = command({
  name: 'search',
  usage:
    'memtrace search <file> --query "…" [--method bm25|dense|hybrid] [--k 10] [--docs messages|all] ' +
    '[--model-dir DIR] [--dtype fp32|q8|…] [--no-cache] [--json]',
  args: { min: 1, max: 1, name: '<file>' },
  options: {
    query: { type: 'string', short: 'q', value: 'TEXT', help: 'what to search for (required)' },
    method: { type: 'string', default: 'bm25', choices: SEARCH_METHODS, help: 'ranking' },
    k: { type: 'string', default: '10', value: 'N', int: { min: 1 }, help: 'how many hits' },
    docs: {
      type: 'string',
      default: 'messages',
      choices: SCOPES,
      help: 'the message variables, or every value',
    },
    'model-dir': {
      type: 'string',
      value: 'DIR',
      help: 'a transformers.js model folder for dense/hybrid (default: the hashed n-gram fallback, not a neural model)',
    },
    dtype: { type: 'string', value: 'fp32|q8|…', help: 'which model file of --model-dir (default: fp32)' },
    'no-cache': { type: 'boolean', default: false, help: 'do not read or write the index cache' },
    ...JSON_FLAG,
  },
  async run({ positionals, values }, io) {
    const query = values.query;
    if (typeof query !== 'string' || query.trim() === '') throw new CliError('--query is required', 2);
    const method = values.method;
    const scope = values.docs;
    const k = values.k;
    const modelDir = values['model-dir'];

    const file = positionals[0];
    const graph = await loadGraph(file, io);
    const corpus = corpusFromGraph(graph, scope);
    let embedder: Embedder | null = null;
    if (method !== 'bm25') {
      embedder = await loadEmbedder(modelDir, values.dtype);
      if (!modelDir)
        io.stderr.write(`memtrace search: no --model-dir: dense ranking uses the ${FALLBACK_LABEL}\n`);
      else io.stderr.write(`memtrace search: dense ranking uses ${embedder.label}\n`);
    }

    const key = indexKey(corpus, embedder?.id ?? null);
    const slot = createHash('sha256')
      .update(`${resolve(file)}\n${scope}\n${embedder?.id ?? 'bm25'}`)
      .digest('hex')
      .slice(0, 24);
    const cachePath = join(cacheDir(io), `${slot}.mtrx`);
    const useCache = !values['no-cache'];
    let index: RetrievalIndex | null = null;
    if (useCache) {
      try {
        const candidate = RetrievalIndex.deserialize(new Uint8Array(await readFile(cachePath)));
        if (candidate.key === key) index = candidate;
      } catch {
        // missing or unreadable: build
      }
    }
    if (!index) {
      index = await RetrievalIndex.build(corpus, { embedder });
      if (useCache) {
        await mkdir(cacheDir(io), { recursive: true });
        await writeAtomic(cachePath, index.serialize());
      }
    }

    const hits = await index.search(query, { method, k, embedder });
    const rows = hits.map((h) => ({
      full_node_id: h.full_node_id,
      score: h.score,
      rank: h.rank,
      ...(method === 'hybrid' ? { bm25_rank: h.bm25Rank ?? null, dense_rank: h.denseRank ?? null } : {}),
    }));
    if (values.json) printJson(io, rows);
    else {
      if (rows.length === 0) io.stdout.write('no matching documents\n');
      for (const h of hits) {
        const text = corpus.texts[h.doc].replace(/\s+/g, ' ').slice(0, 100);
        printLine(
          io,
          `${String(h.rank).padStart(3)}  ${h.score.toFixed(4).padStart(9)}  ${h.full_node_id}  ${text}`,
        );
      }
    }
    return 0;
  },
});
