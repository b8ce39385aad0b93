/** `memtrace run`: a reference memory system over a data set conversation, traced to a smartcomment file. */
import { readFile } from 'node:fs/promises';
import { fileSink } from '../../sdk/file-sink.node.ts';
import { Tracer } from '../../sdk/index.ts';
import {
  type Conversation,
  createSystem,
  DATASETS,
  type DatasetName,
  loadDataset,
  runSystem,
  SPLIT_OF,
  SYSTEM_NAMES,
  type SystemName,
  TOP_K_SYSTEMS,
} from '../../systems/index.ts';
import type { Command, Values } from '../command.ts';
import { CliError, type CliIO } from '../io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from '../provider-flags.ts';

export const DATA_FLAGS = {
  system: { type: 'string' },
  dataset: { type: 'string' },
  data: { type: 'string' },
  conversation: { type: 'string' },
  sessions: { type: 'string' },
  offline: { type: 'boolean', default: false },
} as const;

export interface DataArgs {
  system: SystemName;
  dataset: DatasetName;
  conversations: Conversation[];
  maxSessions?: number;
}

/** `--top-k N`: the retrieval depth of rag and mem0 (their default, 10, when absent). */
function topKOf(values: Values, system: SystemName): number | undefined {
  if (values['top-k'] === undefined) return undefined;
  const topK = Number(values['top-k']);
  if (!(Number.isInteger(topK) && topK > 0)) throw new CliError('--top-k must be a positive integer', 2);
  if (!TOP_K_SYSTEMS.includes(system))
    throw new CliError(
      `--top-k sets the retrieval depth of ${TOP_K_SYSTEMS.join(' and ')}; ${system} has none`,
      2,
    );
  return topK;
}

/** Reads --system, --dataset, --data, --conversation and --sessions. */
export async function readDataArgs(values: Values): Promise<DataArgs> {
  const system = String(values.system ?? '') as SystemName;
  if (!SYSTEM_NAMES.includes(system))
    throw new CliError(`--system must be one of ${SYSTEM_NAMES.join('|')}`, 2);
  const dataset = String(values.dataset ?? '') as DatasetName;
  if (!DATASETS.includes(dataset)) throw new CliError(`--dataset must be one of ${DATASETS.join('|')}`, 2);
  const file = values.data;
  if (typeof file !== 'string') throw new CliError('--data FILE is required', 2);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: cannot read as JSON (${(e as Error).message})`);
  }
  let conversations: Conversation[];
  try {
    conversations = loadDataset(dataset, parsed, file);
  } catch (e) {
    throw new CliError(`${file}: ${(e as Error).message}`);
  }
  if (typeof values.conversation === 'string') {
    conversations = conversations.filter((c) => c.id === values.conversation);
    if (!conversations.length) throw new CliError(`${file}: no conversation "${values.conversation}"`);
  }
  const sessions = values.sessions === undefined ? undefined : Number(values.sessions);
  if (sessions !== undefined && !(Number.isInteger(sessions) && sessions > 0))
    throw new CliError('--sessions must be a positive integer', 2);
  return { system, dataset, conversations, maxSessions: sessions };
}

export function modelFromValues(values: Values, io: CliIO) {
  if (values.offline || values.provider === undefined) return undefined;
  return chatModelFromFlags(values, io, { label: 'run' });
}

export const run: Command = {
  name: 'run',
  summary: 'run a reference memory system on a data set conversation and write its execution graph',
  usage:
    'memtrace run --system rag|long-context|mem0|evermemos --dataset locomo|realmem|longmemeval --data FILE ' +
    `[--conversation ID] [--sessions N] [--top-k N] [--offline | ${PROVIDER_USAGE}] -o OUT.json`,
  options: {
    ...DATA_FLAGS,
    'top-k': { type: 'string' },
    ...PROVIDER_FLAGS,
    out: { type: 'string', short: 'o' },
  },
  async run({ values }, io) {
    const out = values.out;
    if (typeof out !== 'string') throw new CliError('-o OUT.json is required', 2);
    const args = await readDataArgs(values);
    const topK = topKOf(values, args.system);
    if (args.conversations.length !== 1)
      throw new CliError(
        `${args.conversations.length} conversations in the file; pick one with --conversation (${args.conversations
          .slice(0, 8)
          .map((c) => c.id)
          .join(', ')}${args.conversations.length > 8 ? ', …' : ''})`,
        2,
      );
    const conv = args.conversations[0];
    const llm = modelFromValues(values, io);
    const mode = llm ? `model ${llm.model}` : 'offline (deterministic components, no model)';
    io.stderr.write(
      `${args.system} on ${conv.id} (${conv.sessions.length} sessions, ${conv.questions.length} questions), ${mode}\n`,
    );
    const tracer = new Tracer({
      sink: fileSink(out),
      filename: `memtrace-${args.system}`,
      metadata: {
        system: SPLIT_OF[args.system],
        dataset: args.dataset,
        conversation: conv.id,
        mode: llm ? 'llm' : 'offline',
        llm_model: llm ? llm.model : 'offline-deterministic',
        ...(topK !== undefined ? { top_k: topK } : {}),
      },
    });
    const started = Date.now();
    const result = await runSystem(createSystem(args.system, { topK }), conv, {
      tracer,
      llm,
      maxSessions: args.maxSessions,
      onProgress: (done, total, label) => io.stderr.write(`[${done}/${total}] ${label}\n`),
    });
    await tracer.finish();
    const correct = result.answers.filter((a) => a.correct).length;
    io.stderr.write(
      `${out}: ${tracer.counts.nodes} variables, ${tracer.counts.operations} ops, ${tracer.counts.edges} edges; ` +
        `${correct}/${result.answers.length} answers judged correct; ${((Date.now() - started) / 1000).toFixed(1)} s` +
        (result.llmCalls ? `; ${result.llmCalls} model calls` : '') +
        '\n',
    );
    return 0;
  },
};
