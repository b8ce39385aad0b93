/** `memtrace inject`: a fault-injected, counterfactually labelled benchmark in MemTraceBench's layout. */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UsageMeter } from '../../core/llm/index.ts';
import { exportSmartcomment } from '../../core/trace/index.ts';
import { FAULT_KINDS, generateBenchmark } from '../../systems/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { outputDir } from '../files.ts';
import { CliError, printJson } from '../io.ts';
import { PROVIDER_FLAGS, PROVIDER_USAGE, usageLine } from '../provider-flags.ts';
import { writeAtomic } from '../write.ts';
import { DATA_FLAGS, modelFromValues, readDataArgs } from './run.ts';

export const inject = command({
  name: 'inject',
  usage:
    'memtrace inject --system rag|long-context|mem0|evermemos [--dataset locomo|realmem|longmemeval] --data FILE ' +
    '[--conversation ID] [--sessions N] --out DIR --per-type N [--natural N] [--types extraction,update,…] [--compact] ' +
    `[--offline | ${PROVIDER_USAGE}] [--json]`,
  args: { min: 0, max: 0, name: '' },
  options: {
    ...DATA_FLAGS,
    ...PROVIDER_FLAGS,
    ...JSON_FLAG,
    out: { type: 'string', value: 'DIR', help: 'the benchmark folder to write (required)' },
    'per-type': {
      type: 'string',
      value: 'N',
      int: { min: 0 },
      help: 'injected faults wanted per error type (required)',
    },
    natural: {
      type: 'string',
      value: 'N',
      int: { min: 0 },
      help: 'ordinary failures labelled by counterfactual repair per conversation (default: 20)',
    },
    types: {
      type: 'string',
      value: 'LIST',
      choices: FAULT_KINDS,
      list: true,
      help: 'fault types, comma-separated (default: extraction,update,deletion,retrieval,response)',
    },
    compact: { type: 'boolean', default: false, help: 'write graphs without indentation' },
  },
  async run({ values }, io) {
    const out = values.out;
    if (typeof out !== 'string') throw new CliError('--out DIR is required', 2);
    await outputDir(out, '--out');
    const perType = values['per-type'];
    if (perType === undefined) throw new CliError('--per-type N (a whole number) is required', 2);
    const natural = values.natural ?? 20;
    const kinds = values.types ?? [...FAULT_KINDS];
    const args = await readDataArgs(values);
    const meter = new UsageMeter();
    const llm = modelFromValues(values, io, meter);
    if (llm)
      io.stderr.write(
        'note: counterfactual reruns need a deterministic model (temperature 0 and a response cache, --cache-dir)\n',
      );
    const summary = await generateBenchmark({
      system: args.system,
      dataset: args.dataset,
      conversations: args.conversations,
      perType,
      naturalPerConversation: natural,
      kinds,
      llm,
      maxSessions: args.maxSessions,
      write: async (rel, doc) => {
        const file = join(out, rel);
        await mkdir(dirname(file), { recursive: true });
        await writeAtomic(file, exportSmartcomment(doc, { indent: values.compact ? 0 : 2 }));
      },
      onProgress: (m) => io.stderr.write(`${m}\n`),
    });
    if (llm) io.stderr.write(`${usageLine(meter.totals())}\n`);
    if (values.json) printJson(io, summary);
    else
      io.stdout.write(
        `${summary.split}: ${summary.graphs} graphs; injected ${JSON.stringify(summary.injected)}; ` +
          `counterfactual ${JSON.stringify(summary.counterfactual)}; unresolved ${summary.unresolved}; survived ${summary.survived}\n`,
      );
    const short = kinds.filter((k) => summary.injected[k] < perType);
    const injected = kinds.reduce((n, k) => n + summary.injected[k], 0);
    const labelled = Object.values(summary.counterfactual).reduce((n, c) => n + c, 0);
    if (short.length)
      io.stderr.write(
        `warning: fewer faults than asked (${short.map((k) => `${k} ${summary.injected[k]}/${perType}`).join(', ')}): ` +
          `faults are planted only into questions the base run answered correctly, and ${summary.correct} were\n`,
      );
    if (perType > 0 && injected === 0 && labelled === 0)
      throw new CliError(
        `no fault could be injected and no failure was labelled, so the benchmark holds no labelled case (written to ${out})`,
      );
    return 0;
  },
});
