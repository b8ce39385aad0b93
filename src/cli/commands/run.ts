/** `memtrace run`: a reference memory system over a data set conversation, traced to a smartcomment file. */
import { dirname } from 'node:path';
import { UsageMeter } from '../../core/llm/index.ts';
import { fileSink } from '../../sdk/file-sink.node.ts';
import { Tracer } from '../../sdk/index.ts';
import { otelFileSink } from '../../sdk/otel-file.node.ts';
import {
  type Conversation,
  createShape,
  createSystem,
  DATASETS,
  type DatasetName,
  loadDataset,
  runSystem,
  SHAPE_NAMES,
  SHAPE_SPLIT,
  type ShapeName,
  SPLIT_OF,
  SYSTEM_NAMES,
  type SystemName,
  TOP_K_SYSTEMS,
  withinSessions,
} from '../../systems/index.ts';
import { command, flags, oneOf, type ValuesOf } from '../command.ts';
import { outputFile, readText } from '../files.ts';
import { CliError, type CliIO } from '../io.ts';
import { JUDGE_RULE_FLAG } from '../judge-rule-flag.ts';
import {
  chatModelFromFlags,
  PROVIDER_FLAGS,
  PROVIDER_USAGE,
  type ProviderValues,
  usageLine,
} from '../provider-flags.ts';
import { beginWrite, removeNow, spoolFolder } from '../write.ts';

/**
 * The data set flags of `run` and `optimize`. `--system` is checked by `readDataArgs` against
 * the names the command runs (they differ: `optimize` adds mem0ai, `run` the memory shapes).
 */
export const DATA_FLAGS = flags({
  system: {
    type: 'string',
    value: 'rag|long-context|mem0|evermemos|fact-store|session-summary|vector-store|per-user-store',
    help: 'the reference memory system or memory shape (required)',
  },
  dataset: {
    type: 'string',
    choices: DATASETS,
    help: 'the data set format (default: detected from the file)',
  },
  data: { type: 'string', value: 'FILE', help: 'the data set file (required)' },
  conversation: {
    type: 'string',
    value: 'ID',
    help: 'the conversation to use (required when the file holds several)',
  },
  sessions: {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'only the first N sessions, and only the questions about them (default: all)',
  },
  offline: {
    type: 'boolean',
    default: false,
    help: 'deterministic components, no model (also the default without --provider)',
  },
});
type DataValues = ValuesOf<typeof DATA_FLAGS>;

const isShape = (name: string): name is ShapeName => (SHAPE_NAMES as readonly string[]).includes(name);

interface DataArgs<N extends string = SystemName> {
  system: N;
  /** As given by --dataset, else detected from the file's shape. */
  dataset: DatasetName;
  conversations: Conversation[];
  maxSessions?: number;
}

/** `--top-k N`: the retrieval depth of rag and mem0 (their default, 10, when absent). */
function topKOf(topK: number | undefined, system: string): number | undefined {
  if (topK === undefined) return undefined;
  if (!(TOP_K_SYSTEMS as readonly string[]).includes(system))
    throw new CliError(
      `--top-k sets the retrieval depth of ${TOP_K_SYSTEMS.join(' and ')}; ${system} has none`,
      2,
    );
  return topK;
}

/** Reads --system (one of `names`), --dataset, --data, --conversation and --sessions. */
export async function readDataArgs<N extends string = SystemName>(
  values: DataValues,
  names: readonly N[] = SYSTEM_NAMES as readonly string[] as readonly N[],
): Promise<DataArgs<N>> {
  const system = oneOf('system', names, values.system ?? '');
  const given = values.dataset;
  const file = values.data;
  if (typeof file !== 'string') throw new CliError('--data FILE is required', 2);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readText(file));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${file}: not JSON (${(e as Error).message})`);
  }
  let conversations: Conversation[];
  try {
    conversations = loadDataset(given, parsed, file);
  } catch (e) {
    throw new CliError(`${file}: ${(e as Error).message}`);
  }
  const dataset = given ?? conversations[0].dataset;
  if (typeof values.conversation === 'string') {
    conversations = conversations.filter((c) => c.id === values.conversation);
    if (!conversations.length) throw new CliError(`${file}: no conversation "${values.conversation}"`);
  }
  if (conversations.every((c) => c.sessions.length === 0))
    throw new CliError(`${file}: no session has any turn, so there is nothing to run`);
  const sessions = values.sessions;
  if (sessions !== undefined) conversations = conversations.map((c) => withinSessions(c, sessions));
  return { system, dataset, conversations, maxSessions: sessions };
}

/** The model the provider flags name (none offline); every request it makes is recorded in `meter`. */
export function modelFromValues(
  values: ProviderValues & { offline?: boolean },
  io: CliIO,
  meter?: UsageMeter,
) {
  const given = (Object.keys(PROVIDER_FLAGS) as (keyof ProviderValues)[]).filter(
    (f) => values[f] !== undefined,
  );
  if (values.offline && given.length)
    throw new CliError(`--offline runs without a model: drop ${given.map((f) => `--${f}`).join(', ')}`, 2);
  if (values.offline || values.provider === undefined) return undefined;
  return chatModelFromFlags(values, io, { label: 'run', meter });
}

export const run = command({
  name: 'run',
  usage:
    'memtrace run --system rag|long-context|mem0|evermemos|fact-store|session-summary|vector-store|per-user-store ' +
    '[--dataset locomo|realmem|longmemeval] --data FILE [--conversation ID] [--sessions N] [--top-k N] [--memories offline|recorded] ' +
    '[--judge-rule offline|containment|token-f1|half-words] ' +
    `[--offline | ${PROVIDER_USAGE}] [--format smartcomment|otlp|openinference [--standard-only]] -o OUT.json`,
  args: { min: 0, max: 0, name: '' },
  options: {
    ...DATA_FLAGS,
    'top-k': {
      type: 'string',
      value: 'N',
      int: { min: 1 },
      help: 'retrieval depth of rag and mem0 (default: 10; other systems have none)',
    },
    ...PROVIDER_FLAGS,
    out: { type: 'string', short: 'o', value: 'OUT.json', help: 'the execution graph to write (required)' },
    memories: {
      type: 'string',
      default: 'offline',
      choices: ['offline', 'recorded'],
      help: "extraction: the offline components' own, or the data set's recorded LLM-written memories",
    },
    ...JUDGE_RULE_FLAG,
    format: {
      type: 'string',
      default: 'smartcomment',
      choices: ['smartcomment', 'otlp', 'openinference'],
      help: 'the file to write: smartcomment JSON, or the same run as OTLP/JSON spans (GenAI or OpenInference names)',
    },
    'standard-only': {
      type: 'boolean',
      default: false,
      help: 'OTLP: only the standard attributes, without the memtrace.* records that make it lossless',
    },
  },
  async run({ values }, io) {
    const out = values.out;
    if (typeof out !== 'string') throw new CliError('-o OUT.json is required', 2);
    await outputFile(out, '-o');
    const format = values.format;
    const memories = values.memories;
    const judgeRule = values['judge-rule'];
    const args = await readDataArgs<SystemName | ShapeName>(values, [...SYSTEM_NAMES, ...SHAPE_NAMES]);
    const system = args.system;
    const topK = topKOf(values['top-k'], system);
    if (args.conversations.length !== 1)
      throw new CliError(
        `${args.conversations.length} conversations in the file; pick one with --conversation (${args.conversations
          .slice(0, 8)
          .map((c) => c.id)
          .join(', ')}${args.conversations.length > 8 ? ', …' : ''})`,
        2,
      );
    const conv = args.conversations[0];
    const meter = new UsageMeter();
    const llm = modelFromValues(values, io, meter);
    const mode = llm ? `model ${llm.model}` : 'offline (deterministic components, no model)';
    io.stderr.write(
      `${system} on ${conv.id} (${conv.sessions.length} sessions, ${conv.questions.length} questions), ${mode}\n`,
    );
    // Written beside OUT and renamed into place at the end: an interrupted run leaves OUT as it was.
    const target = await beginWrite(out);
    const spool = format === 'smartcomment' ? spoolFolder(dirname(target.temp)) : undefined;
    const tracer = new Tracer({
      // otlp / openinference: the same run as OpenTelemetry spans, written by the OpenTelemetry SDK.
      sink:
        format === 'smartcomment'
          ? fileSink(target.temp, { spoolDir: spool })
          : otelFileSink(target.temp, {
              flavour: format === 'otlp' ? 'genai' : 'openinference',
              exact: values['standard-only'] !== true,
              serviceName: `memtrace-${system}`,
            }),
      filename: `memtrace-${system}`,
      metadata: {
        system: isShape(system) ? SHAPE_SPLIT[system] : SPLIT_OF[system],
        dataset: args.dataset,
        conversation: conv.id,
        mode: llm ? 'llm' : 'offline',
        llm_model: llm ? llm.model : 'offline-deterministic',
        memories,
        ...(topK !== undefined ? { top_k: topK } : {}),
      },
    });
    const started = Date.now();
    let result: Awaited<ReturnType<typeof runSystem>>;
    try {
      result = await runSystem(isShape(system) ? createShape(system) : createSystem(system, { topK }), conv, {
        tracer,
        llm,
        memories,
        judgeRule,
        maxSessions: args.maxSessions,
        onProgress: (done, total, label) => io.stderr.write(`[${done}/${total}] ${label}\n`),
      });
      await tracer.finish();
      await target.commit();
    } catch (e) {
      await target.discard();
      if (llm) io.stderr.write(`before the failure: ${usageLine(meter.totals())}\n`);
      throw e;
    } finally {
      if (spool) removeNow(spool);
    }
    const correct = result.answers.filter((a) => a.correct).length;
    io.stderr.write(
      `${out}: ${tracer.counts.nodes} variables, ${tracer.counts.operations} ops, ${tracer.counts.edges} edges; ` +
        `${correct}/${result.answers.length} answers judged correct; ${((Date.now() - started) / 1000).toFixed(1)} s` +
        (llm ? `; ${usageLine(meter.totals())}` : '') +
        '\n',
    );
    return 0;
  },
});
