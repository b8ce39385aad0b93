/** Shared by `attribute` and `bench`: method flags, engine dependencies per graph. */
import {
  AGENT_PRESETS,
  type AgentOptions,
  ATTRIBUTION_METHODS,
  type Attribution,
  type AttributionInput,
  type AttributionMethod,
  type CarryJudge,
  DEFAULT_MATCH_LAYER,
  type EngineDeps,
  isAgentStopped,
  JudgePool,
  llmCarryJudge,
  MATCH_LAYERS,
  NEEDS_MODEL,
  sentenceModelJudge,
} from '../core/attribution/index.ts';
import type { TraceGraph } from '../core/graph/index.ts';
import { type ChatModel, isLlmError, spentOfError, type UsageMeter } from '../core/llm/index.ts';
import { corpusFromGraph, type Embedder, RetrievalIndex } from '../core/retrieval/index.ts';
import { vectorSimilarity } from '../core/semantic/index.ts';
import { loadWordVectors } from '../core/semantic/word-vectors.node.ts';
import { flags, type ValuesOf } from './command.ts';
import { openTraceFile } from './files.ts';
import { CliError, type CliIO } from './io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE, type ProviderValues } from './provider-flags.ts';

export const METHODS: readonly AttributionMethod[] = ATTRIBUTION_METHODS;

export const ATTRIBUTION_FLAGS = flags({
  method: {
    type: 'string',
    default: 'evidence',
    choices: METHODS,
    help: "evidence: the deterministic evidence-flow attributor (no model); memtrace, obs: the paper's LLM agents",
  },
  prior: { type: 'boolean', default: false, help: 'LLM agents start from the evidence-flow candidates' },
  preset: {
    type: 'string',
    choices: AGENT_PRESETS,
    help: "LLM agents' budgets: the paper's values, or scaled to the model's window (default: paper)",
  },
  match: {
    type: 'string',
    default: DEFAULT_MATCH_LAYER,
    choices: MATCH_LAYERS,
    help: 'how evidence-flow tells a memory still holds the evidence: words, + lemmas/dates/numbers/speaker, + word vectors',
  },
  'model-dir': {
    type: 'string',
    value: 'DIR',
    help: 'a transformers.js sentence model: decides the matcher’s undecided units and embeds start points',
  },
  'judge-model': {
    type: 'string',
    value: 'M',
    help: 'an LLM (through the provider flags) asked yes/no about the matcher’s undecided units; its calls are counted',
  },
  ...PROVIDER_FLAGS,
});

/** The attribution flags' values (what `attribute` and `bench` share). */
type AttributionValues = ValuesOf<typeof ATTRIBUTION_FLAGS>;

export const ATTRIBUTION_USAGE = `--method ${METHODS.join('|')} [--prior] [--preset ${AGENT_PRESETS.join('|')}] [--match ${MATCH_LAYERS.join('|')}] [--model-dir DIR] [--judge-model M] [${PROVIDER_USAGE}]`;

/** The method, with the flags that only an LLM agent uses refused for the evidence method. */
export function methodOf(values: AttributionValues): AttributionMethod {
  const m = values.method;
  if (!NEEDS_MODEL.has(m)) {
    // --concurrency is shared: it also sets how many cases run at once; provider flags serve
    // --judge-model with the evidence method.
    const judged = values['judge-model'] !== undefined;
    const agentOnly = (
      ['prior', 'preset', ...Object.keys(PROVIDER_FLAGS)] as (keyof AttributionValues)[]
    ).filter(
      (f) =>
        f !== 'concurrency' &&
        !(judged && f in PROVIDER_FLAGS && f !== 'model') &&
        values[f] !== undefined &&
        values[f] !== false,
    );
    if (agentOnly.length)
      throw new CliError(
        `${agentOnly.map((f) => `--${f}`).join(', ')} only apply to the LLM methods (memtrace, obs), not to --method ${m}`,
        2,
      );
  }
  return m;
}

/** The agents' budget preset from --preset (default: the paper's). */
export function agentOptionsOf(values: AttributionValues): AgentOptions {
  return values.preset === undefined ? {} : { preset: values.preset };
}

/** The chat model when the method needs one (created once per command run). */
export function modelFor(
  method: AttributionMethod,
  values: ProviderValues,
  io: CliIO,
  meter?: UsageMeter,
): ChatModel | undefined {
  if (!NEEDS_MODEL.has(method)) return undefined;
  return chatModelFromFlags(values, io, { meter, label: method });
}

/** Why a case has no attribution (the provider failed, the replies were unusable, …). */
export interface CaseFailure {
  kind: string;
  message: string;
}

/**
 * Runs one case; a failure becomes a result that says so (no type, no op) with what the case
 * cost up to it, so one failing case never discards the others.
 */
export async function attributeCase(
  method: AttributionMethod,
  input: AttributionInput,
  deps: EngineDeps,
): Promise<{ result: Attribution; error: CaseFailure | null }> {
  const started = Date.now();
  try {
    // The engines (and the NLP libraries under them) load when a case is attributed, not at startup.
    const { engineFor } = await import('../core/attribution/index.ts');
    return { result: await engineFor(method)(input, deps), error: null };
  } catch (e) {
    const error = {
      kind: isLlmError(e) || isAgentStopped(e) ? e.kind : 'error',
      message: e instanceof Error ? e.message : String(e),
    };
    const spent = spentOfError(e);
    const result: Attribution = {
      query_id: input.case.queryId,
      method,
      error_type: null,
      op_id: null,
      reason: `failed: ${error.message}`,
      path: [],
      candidates: [],
      cost: {
        input_tokens: spent.inputTokens,
        output_tokens: spent.outputTokens,
        seconds: (Date.now() - started) / 1000,
        llm_calls: spent.calls,
      },
    };
    return { result, error };
  }
}

/** What the evidence-flow matcher uses, loaded once per command (word vectors, models). */
interface EvidenceSetup {
  evidenceFlow: NonNullable<EngineDeps['evidenceFlow']>;
  /** Embeds messages for dense + hybrid start points (a model from --model-dir, else the hashed fallback). */
  embedder: Embedder;
}

/**
 * `--match` (default `vectors`: word vectors, built once into a cache from the npm
 * package), `--model-dir` (a transformers.js sentence model: the matcher's middle band and
 * dense start points), `--judge-model` (an LLM asked yes/no about the middle band, through
 * the provider flags; its calls are counted in `meter`).
 */
export async function evidenceSetup(
  values: Pick<AttributionValues, 'method' | 'match'> & Partial<AttributionValues> & { dtype?: string },
  io: CliIO,
  meter?: UsageMeter,
): Promise<EvidenceSetup> {
  const layer = values.match;
  const modelDir = values['model-dir'];
  const judgeModel = values['judge-model'];
  if (judgeModel && modelDir)
    throw new CliError('--judge-model and --model-dir both decide the middle band: give one', 2);
  if ((judgeModel || modelDir) && layer === 'lexical')
    throw new CliError(
      `--match lexical has no middle band for ${judgeModel ? '--judge-model' : '--model-dir'}`,
      2,
    );
  if (judgeModel && NEEDS_MODEL.has(values.method))
    throw new CliError('--judge-model serves --method evidence (the agents use --model)', 2);
  const { loadEmbedder } = await import('./commands/search.ts');
  const embedder = await loadEmbedder(modelDir, values.dtype);
  let similar = null;
  if (layer === 'vectors') {
    try {
      similar = vectorSimilarity(loadWordVectors(undefined, (line) => io.stderr.write(`${line}\n`)));
    } catch (e) {
      throw new CliError(`word vectors: ${(e as Error).message}`);
    }
  }
  let judge: CarryJudge | null = null;
  if (judgeModel)
    judge = llmCarryJudge(
      chatModelFromFlags({ ...values, model: judgeModel }, io, { meter, label: 'judge' }),
    );
  else if (modelDir) judge = sentenceModelJudge(embedder);
  return {
    evidenceFlow: { layer, similar, judge },
    embedder,
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

/**
 * One judge's verdicts pooled across the files of a run (`JudgePool`): a file with too few
 * verdicts of either kind to learn its judge from learns it from the same judge in the others.
 * Reads each file once more before the run (unreadable ones are reported by the run itself).
 */
export async function judgePoolOf(
  files: readonly string[],
  setup: EvidenceSetup['evidenceFlow'],
): Promise<JudgePool | undefined> {
  if (files.length < 2) return undefined;
  const pool = new JudgePool(setup);
  for (const file of files) {
    const r = await openTraceFile(file);
    if (r.ok) pool.add(r.graph);
  }
  return pool;
}

/** What `attribute` and `bench` fix once per command run. */
export interface MethodRun {
  method: AttributionMethod;
  /** The agents' chat model (none for evidence-flow). */
  model: ChatModel | undefined;
  prior: boolean;
  agent: AgentOptions;
  setup: EvidenceSetup;
}

/** The engine dependencies of one graph for these cases (its index, start points only when needed). */
export function caseDeps(
  g: TraceGraph,
  run: MethodRun,
  cases: readonly { evidenceIds: readonly string[] }[],
): Promise<EngineDeps> {
  return depsFor(
    g,
    {
      model: run.model,
      prior: run.prior,
      agent: run.agent,
      evidenceFlow: run.setup.evidenceFlow,
      now: () => performance.now(),
    },
    startPointEmbedder(run.method, cases, run.setup),
  );
}

/** The embedder when start points are needed for these cases with this method (else null: BM25 only). */
function startPointEmbedder(
  method: AttributionMethod,
  cases: readonly { evidenceIds: readonly string[] }[],
  setup: EvidenceSetup,
): Embedder | null {
  return NEEDS_MODEL.has(method) || cases.some((c) => c.evidenceIds.length === 0) ? setup.embedder : null;
}

/** How many cases run at once (`--concurrency`, default 1). */
export function concurrencyOf(values: ProviderValues): number {
  return values.concurrency ?? 1;
}
