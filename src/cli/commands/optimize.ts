/**
 * `memtrace optimize`: the closed prompt-optimisation loop over a reference memory system
 * in LLM mode (or, `--system mem0ai`, the npm mem0ai `Memory` with its `customPrompt`),
 * with an acceptance test on held-out conversations. Every round is saved in
 * the output folder (`state.json`, `iteration_N/round.json` and `iteration_N/update_results.json`
 * in the paper's shape); `--resume` continues an interrupted run; calls are cached in
 * `<out>/cache` (or --cache-dir), so a resumed round replays its calls free.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Conversation } from '../../systems/index.ts';
import type { OptimizeState, OptimizeStore } from '../../systems/optimize/index.ts';
import { referenceTarget } from '../../systems/optimize/target.ts';
import { SYSTEM_NAMES, type SystemName } from '../../systems/system.ts';
import { METHODS } from '../attribution-setup.ts';
import { command, flags, oneOf, type ValuesOf } from '../command.ts';
import { CliError, type CliIO } from '../io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from '../provider-flags.ts';
import { writeAtomic } from '../write.ts';
import { DATA_FLAGS, readDataArgs } from './run.ts';

async function writeJson(path: string, value: unknown) {
  await writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The run's folder: the state, and per round the record and the paper's update_results.json. */
function folderStore(dir: string): OptimizeStore {
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(join(dir, 'state.json'), 'utf8');
      } catch {
        return null;
      }
      try {
        return JSON.parse(text) as OptimizeState;
      } catch (e) {
        throw new CliError(
          `${join(dir, 'state.json')}: not JSON (${(e as Error).message}); remove it to start over`,
        );
      }
    },
    async save(state) {
      // The loop is loaded when the command runs: its import is heavy (systems, attribution, NLP libraries).
      const { updateResults } = await import('../../systems/optimize/index.ts');
      await mkdir(dir, { recursive: true });
      for (const r of state.rounds) {
        const it = join(dir, `iteration_${r.round}`);
        await mkdir(it, { recursive: true });
        await writeJson(join(it, 'round.json'), r);
        await writeJson(join(it, 'update_results.json'), updateResults(r.prompts_after, state.allowed));
      }
      await writeJson(join(dir, 'update_results.json'), updateResults(state.prompts, state.allowed));
      await writeJson(join(dir, 'state.json'), state);
    },
  };
}

/** The reference systems in LLM mode, and the npm mem0ai `Memory` through the SDK wrapper. */
type TargetName = SystemName | 'mem0ai';
const TARGET_NAMES: readonly TargetName[] = [...SYSTEM_NAMES, 'mem0ai'];

/** The npm mem0ai target (Node only), after checking its optional packages load: a one-line error if not. */
async function mem0aiTarget() {
  const lib = await import('../../systems/optimize/mem0ai-target.node.ts');
  try {
    await lib.loadMem0ai();
  } catch (e) {
    throw new CliError(`--system mem0ai: ${(e as Error).message}`);
  }
  return lib.mem0aiTarget();
}

function list(v: string | undefined): string[] | undefined {
  return typeof v === 'string'
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;
}

const OPTIMIZE_FLAGS = flags({
  ...DATA_FLAGS,
  system: {
    type: 'string',
    value: 'mem0|rag|long-context|evermemos|mem0ai',
    help: 'the system whose prompts change: a reference system in LLM mode, or mem0ai (the npm mem0ai Memory, Node only) (required)',
  },
  ...PROVIDER_FLAGS,
  out: { type: 'string', short: 'o', value: 'DIR', help: 'the folder the run is saved in (required)' },
  train: { type: 'string', value: 'ID[,ID…]', help: 'conversations the feedback comes from (required)' },
  'held-out': {
    type: 'string',
    value: 'ID[,ID…]',
    help: 'conversations a rewrite must not make worse (required; never used for feedback)',
  },
  rounds: {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'rounds of attribute → feedback → rewrite (default 3)',
  },
  'train-questions': {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'questions per training conversation (default: all)',
  },
  'held-out-questions': {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'questions per held-out conversation (default: all)',
  },
  prompts: { type: 'string', value: 'NAME,…', help: 'the prompts that may change (default: every prompt)' },
  method: {
    type: 'string',
    default: 'evidence',
    choices: METHODS,
    help: 'the attribution engine used on the failures',
  },
  'max-tokens': {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'stop before a call would pass this many tokens in all',
  },
  'max-round-tokens': {
    type: 'string',
    value: 'N',
    int: { min: 1 },
    help: 'stop a round before it passes this many tokens',
  },
  seed: { type: 'string', value: 'N', int: { min: 0 }, help: 'seed of the question sampling (default 0)' },
  resume: { type: 'boolean', default: false, help: 'continue the run saved in -o DIR from its last round' },
  'qa-model': { type: 'string', value: 'M', help: 'model that runs the memory system (default --model)' },
  'judge-model': { type: 'string', value: 'M', help: 'model of the LLM judge (default --model)' },
  'attribution-model': {
    type: 'string',
    value: 'M',
    help: 'model of the attribution agents (default --model)',
  },
  'optimizer-model': {
    type: 'string',
    value: 'M',
    help: 'model that writes feedback and rewrites (default --model)',
  },
});
type OptimizeValues = ValuesOf<typeof OPTIMIZE_FLAGS>;

/** The --train and --held-out conversations of the data: each given and found, the two apart. */
function pickConversations(values: OptimizeValues, conversations: readonly Conversation[]) {
  const pick = (flag: 'train' | 'held-out') => {
    const ids = list(values[flag]);
    if (!ids?.length) throw new CliError(`--${flag} ID[,ID…] is required`, 2);
    return ids.map((id) => {
      const c = conversations.find((x) => x.id === id);
      if (!c)
        throw new CliError(
          `${values.data}: no conversation "${id}" (${conversations
            .slice(0, 8)
            .map((x) => x.id)
            .join(', ')}${conversations.length > 8 ? ', …' : ''})`,
        );
      return c;
    });
  };
  const train = pick('train');
  const heldOut = pick('held-out');
  const overlap = train.filter((c) => heldOut.includes(c));
  if (overlap.length)
    throw new CliError(`--train and --held-out share ${overlap.map((c) => c.id).join(', ')}`, 2);
  return { train, heldOut };
}

/** The run's models, each from its --…-model flag (default --model), cached in `<out>/cache` unless --cache-dir. */
function roleModels(values: OptimizeValues, io: CliIO, out: string) {
  const cacheDir = values['cache-dir'] ?? join(out, 'cache');
  const model = (role: string, flag: 'qa-model' | 'judge-model' | 'optimizer-model' | 'attribution-model') =>
    chatModelFromFlags({ ...values, 'cache-dir': cacheDir, model: values[flag] ?? values.model }, io, {
      label: role,
    });
  return {
    qa: model('qa', 'qa-model'),
    judge: model('judge', 'judge-model'),
    optimizer: model('optimizer', 'optimizer-model'),
    attribution: values.method === 'evidence' ? undefined : model('attribution', 'attribution-model'),
  };
}

/** The --prompts the run may change: each one the target has. */
function allowedPrompts(values: OptimizeValues, system: TargetName, target: { prompts: object }) {
  const allowed = list(values.prompts);
  for (const p of allowed ?? [])
    if (!(p in target.prompts))
      throw new CliError(
        `--prompts: ${system} has no prompt "${p}" (${Object.keys(target.prompts).join(', ')})`,
        2,
      );
  return allowed;
}

/** Each round's decision and cost, then how the run ended, on stderr. */
function printOutcome(io: CliIO, state: OptimizeState, out: string): void {
  for (const r of state.rounds) {
    const tokens = Object.values(r.cost).reduce((s, c) => s + c.inputTokens + c.outputTokens, 0);
    const calls = Object.values(r.cost).reduce((s, c) => s + c.calls, 0);
    io.stderr.write(
      `round ${r.round} (${r.conversation}): ${r.decision} — ${r.reason}; ${calls} call(s), ${tokens} tokens\n`,
    );
  }
  io.stderr.write(
    `${state.status}: ${state.message}; ${state.tokens_used} tokens in all; ${join(out, 'update_results.json')}\n`,
  );
}

export const optimize = command({
  name: 'optimize',
  usage:
    'memtrace optimize --system mem0|rag|long-context|evermemos|mem0ai --dataset locomo|realmem|longmemeval --data FILE ' +
    '--train ID[,ID…] --held-out ID[,ID…] -o DIR [--rounds 3] [--train-questions N] [--held-out-questions N] [--sessions N] ' +
    `[--prompts NAME,…] [--method ${METHODS.join('|')}] [--max-tokens N] [--max-round-tokens N] [--seed N] [--resume] ` +
    `[--qa-model M] [--judge-model M] [--attribution-model M] [--optimizer-model M] ${PROVIDER_USAGE}`,
  args: { min: 0, max: 0, name: '' },
  options: OPTIMIZE_FLAGS,
  async run({ values }, io: CliIO) {
    const { optimizePrompts } = await import('../../systems/optimize/index.ts'); // heavy: loaded when run
    const out = values.out;
    if (typeof out !== 'string') throw new CliError('-o DIR is required (the run is saved there)', 2);
    const system = oneOf('system', TARGET_NAMES, values.system ?? '');
    const method = values.method;
    if (values.provider === undefined && !io.env.MEMTRACE_PROVIDER)
      throw new CliError(`optimize needs a model: ${PROVIDER_USAGE}`, 2);
    const args = await readDataArgs({ ...values, conversation: undefined }, TARGET_NAMES);
    const { train, heldOut } = pickConversations(values, args.conversations);

    const store = folderStore(out);
    const saved = await store.load();
    if (saved && !values.resume)
      throw new CliError(
        `${out} already holds a run (${saved.rounds.length} round(s), ${saved.status}); pass --resume to continue it`,
      );

    const target = system === 'mem0ai' ? await mem0aiTarget() : referenceTarget(system);
    const allowed = allowedPrompts(values, system, target);
    const state = await optimizePrompts(
      target,
      {
        train,
        heldOut,
        rounds: values.rounds ?? 3,
        trainQuestions: values['train-questions'],
        heldOutQuestions: values['held-out-questions'],
        maxSessions: args.maxSessions,
        prompts: allowed,
        method,
        seed: values.seed,
        budget: {
          maxTokens: values['max-tokens'],
          maxRoundTokens: values['max-round-tokens'],
        },
        models: roleModels(values, io, out),
      },
      store,
      { onProgress: (m) => io.stderr.write(`${m}\n`) },
    );
    printOutcome(io, state, out);
    return state.status === 'done' ? 0 : 1;
  },
});
