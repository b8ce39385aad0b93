/** Shared by `attribute` and `bench`: method flags, engine dependencies per graph, a bounded pool. */
import { type CarryJudge, llmCarryJudge, sentenceModelJudge } from '../core/attribution/carry-judge.ts';
import { type EngineDeps, NEEDS_MODEL } from '../core/attribution/engines.ts';
import { MATCH_LAYERS, type MatchLayer } from '../core/attribution/evidence-match.ts';
import { loadWordVectors } from '../core/semantic/word-vectors.node.ts';
import { vectorSimilarity } from '../core/semantic/word-vectors.ts';
import type { Embedder } from '../core/retrieval/embedder.ts';
import type { AttributionMethod } from '../core/attribution/types.ts';
import type { TraceGraph } from '../core/graph/graph.ts';
import type { ChatModel, UsageMeter } from '../core/llm/index.ts';
import { corpusFromGraph } from '../core/retrieval/corpus.ts';
import { RetrievalIndex } from '../core/retrieval/retrieval-index.ts';
import type { Options, Values } from './command.ts';
import { CliError, type CliIO } from './io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from './provider-flags.ts';

export const METHODS: AttributionMethod[] = ['evidence', 'memtrace', 'obs'];

export const ATTRIBUTION_FLAGS: Options = {
  method: { type: 'string', default: 'evidence' },
  prior: { type: 'boolean', default: false },
  match: { type: 'string', default: 'vectors' },
  'model-dir': { type: 'string' },
  'judge-model': { type: 'string' },
  ...PROVIDER_FLAGS,
};

export const ATTRIBUTION_USAGE = `--method evidence|memtrace|obs [--prior] [--match lexical|normalised|vectors] [--model-dir DIR] [--judge-model M] [${PROVIDER_USAGE}]`;

export function methodOf(values: Values): AttributionMethod {
  const m = values.method as string;
  if (!(METHODS as string[]).includes(m))
    throw new CliError(`--method must be one of ${METHODS.join(', ')} (got "${m}")`, 2);
  return m as AttributionMethod;
}

/** The chat model when the method needs one (created once per command run). */
export function modelFor(
  method: AttributionMethod,
  values: Values,
  io: CliIO,
  meter?: UsageMeter,
): ChatModel | undefined {
  if (!NEEDS_MODEL.has(method)) return undefined;
  return chatModelFromFlags(values, io, { meter, label: method });
}

/** What the evidence-flow matcher uses, loaded once per command (word vectors, models). */
export interface EvidenceSetup {
  evidenceFlow: NonNullable<EngineDeps['evidenceFlow']>;
  /** Embeds messages for dense + hybrid start points (a model from --model-dir, else the hashed fallback). */
  embedder: Embedder;
  now: () => number;
}

/**
 * `--match` (default `vectors`: word vectors, built once into a cache from the npm
 * package), `--model-dir` (a transformers.js sentence model: the matcher's middle band and
 * dense start points), `--judge-model` (an LLM asked yes/no about the middle band, through
 * the provider flags; its calls are counted in `meter`).
 */
export async function evidenceSetup(values: Values, io: CliIO, meter?: UsageMeter): Promise<EvidenceSetup> {
  const layer = values.match as string;
  if (!(MATCH_LAYERS as readonly string[]).includes(layer))
    throw new CliError(`--match must be one of ${MATCH_LAYERS.join(', ')} (got "${layer}")`, 2);
  const modelDir = values['model-dir'] as string | undefined;
  const judgeModel = values['judge-model'] as string | undefined;
  if (judgeModel && modelDir)
    throw new CliError('--judge-model and --model-dir both decide the middle band: give one', 2);
  if ((judgeModel || modelDir) && layer === 'lexical')
    throw new CliError(`--match lexical has no middle band for ${judgeModel ? '--judge-model' : '--model-dir'}`, 2);
  const { loadEmbedder } = await import('./commands/search.ts');
  const embedder = await loadEmbedder(modelDir, values.dtype as string | undefined);
  let similar = null;
  if (layer === 'vectors') {
    try {
      similar = vectorSimilarity(loadWordVectors(undefined, (line) => io.stderr.write(`${line}\n`)));
    } catch (e) {
      throw new CliError(`word vectors: ${(e as Error).message}`);
    }
  }
  let judge: CarryJudge | null = null;
  if (judgeModel) judge = llmCarryJudge(chatModelFromFlags({ ...values, model: judgeModel }, io, { meter, label: 'judge' }));
  else if (modelDir) judge = sentenceModelJudge(embedder);
  return {
    evidenceFlow: { layer: layer as MatchLayer, similar, judge, now: () => performance.now() },
    embedder,
    now: () => performance.now(),
  };
}

/**
 * Per-graph dependencies: the messages index used to locate evidence and start points —
 * BM25, plus dense vectors (hybrid start points) when `embedder` is given; pass it only
 * when some case names no evidence or an agent needs start points (embedding every
 * message of a big trace is not free).
 */
export async function depsFor(
  g: TraceGraph,
  base: Omit<EngineDeps, 'index'>,
  embedder?: Embedder | null,
): Promise<EngineDeps> {
  const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'), { embedder: embedder ?? null });
  return { ...base, index, embedder: embedder ?? null };
}

/** The embedder when start points are needed for these cases with this method (else null: BM25 only). */
export function startPointEmbedder(
  method: AttributionMethod,
  cases: readonly { evidenceIds: readonly string[] }[],
  setup: EvidenceSetup,
): Embedder | null {
  return NEEDS_MODEL.has(method) || cases.some((c) => c.evidenceIds.length === 0) ? setup.embedder : null;
}

/** Runs tasks with at most `limit` at once, keeping result order. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i], i);
    }
  });
  await Promise.all(lanes);
  return out;
}

export function concurrencyOf(values: Values): number {
  const v = values.concurrency;
  if (v === undefined) return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`--concurrency must be an integer ≥ 1 (got "${v}")`, 2);
  return n;
}
