/** `memtrace make-bench --kind llm-memories`: the labelled benchmark of LLM-written (recorded) memories. */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { appendAll } from '../../core/arrays.ts';
import { exportSmartcomment } from '../../core/trace/index.ts';
import {
  type Conversation,
  defaultLlmBenchParts,
  ERROR_TYPES,
  generateLlmBenchmark,
  type LlmBenchSummary,
  loadLocomo,
  loadRealmem,
} from '../../systems/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { CliError, printJson } from '../io.ts';
import { JUDGE_RULE_FLAG } from '../judge-rule-flag.ts';
import { writeAtomic } from '../write.ts';

const list = (v: string | undefined) => (typeof v === 'string' ? v.split(',').filter(Boolean) : []);

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError(`${file}: not JSON (${(e as Error).message})`);
  }
}

async function load(
  file: string,
  parse: (data: unknown) => Conversation[],
  what: string,
): Promise<Conversation[]> {
  const data = await readJson(file);
  let convs: Conversation[];
  try {
    convs = parse(data);
  } catch (e) {
    throw new CliError(`${file}: ${(e as Error).message}`);
  }
  const empty = convs.findIndex((c) => c.sessions.length === 0);
  if (convs.length === 0 || empty >= 0)
    throw new CliError(
      `${file}: ${convs.length ? `conversation ${empty} has no sessions` : 'no conversations'} (not a ${what} file?)`,
    );
  return convs;
}

/** One line per count: what the benchmark holds and what was dropped. */
function describeLlmBench(s: LlmBenchSummary): string {
  const row = (c: Record<string, number>) =>
    ERROR_TYPES.map((t) => `${t.replace('Error', '')} ${c[t] ?? 0}`).join(', ');
  return [
    `judge rule ${s.judgeRule}: ${s.graphs} graphs, ${s.cases} labelled cases (${s.heldout.cases} held out: ${s.heldout.conversations.join(', ')})`,
    `natural:  ${row(s.natural)}`,
    `injected: ${row(s.injected)}`,
    `total:    ${row(s.total)} — ${s.meetsMinimum ? 'every' : 'NOT every'} type has ≥ ${s.minPerType}`,
    `dropped:  ${Object.entries(s.drops)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `injection: ${s.injection.tried} tried, ${s.injection.survived} survived the fault, ${s.injection.earlierFault} had an earlier decisive natural fault`,
    `verified by a second rerun: ${s.verified} labels`,
    ...Object.values(s.byShape).map(
      (b) =>
        `${b.split}: ${b.graphs} graphs, ${b.failed}/${b.questions} failed; natural ${row(b.natural)}; injected ${row(b.injected)}`,
    ),
  ].join('\n');
}

export const makeBench = command({
  name: 'make-bench',
  usage:
    'memtrace make-bench --kind llm-memories --out DIR [--locomo FILE] [--realmem FILE,FILE…] ' +
    '[--heldout conv-47,conv-44,Liam_O_Connor] [--min-per-type 40] [--judge-rule offline|containment|token-f1|half-words] ' +
    '[--verify] [--compact] [--json]',
  args: { min: 0, max: 0, name: '' },
  options: {
    ...JSON_FLAG,
    kind: {
      type: 'string',
      choices: ['llm-memories'],
      help: 'the benchmark to write (required; only llm-memories)',
    },
    out: { type: 'string', value: 'DIR', help: 'the folder to write into (required)' },
    locomo: { type: 'string', value: 'FILE', help: 'a LoCoMo file (either layout)' },
    realmem: { type: 'string', value: 'FILE,FILE…', help: 'RealMem persona files, comma-separated' },
    heldout: {
      type: 'string',
      default: 'conv-47,conv-44,Liam_O_Connor',
      value: 'ID,ID…',
      help: 'conversations marked held out in manifest.json',
    },
    'min-per-type': {
      type: 'string',
      default: '40',
      value: 'N',
      int: { min: 0 },
      help: 'cases every error type must have (exit 1 below it)',
    },
    ...JUDGE_RULE_FLAG,
    verify: {
      type: 'boolean',
      default: false,
      help: 're-check every label by rerunning with its op repaired',
    },
    compact: { type: 'boolean', default: false, help: 'write graphs without indentation' },
  },
  async run({ values }, io) {
    if (values.kind === undefined) throw new CliError('--kind llm-memories is required', 2);
    const out = values.out;
    if (typeof out !== 'string') throw new CliError('--out DIR is required', 2);
    const minPerType = values['min-per-type'];
    const judgeRule = values['judge-rule'];
    if (typeof values.locomo !== 'string' && typeof values.realmem !== 'string')
      throw new CliError('give --locomo FILE and/or --realmem FILE,…', 2);
    const locomo =
      typeof values.locomo === 'string' ? await load(values.locomo, (d) => loadLocomo(d), 'LoCoMo') : [];
    const realmem: Conversation[] = [];
    for (const f of list(values.realmem))
      appendAll(
        realmem,
        await load(f, (d) => [loadRealmem(d, { id: basename(f).replace(/_dialogues.*$/, '') })], 'RealMem'),
      );
    const started = Date.now();
    const summary = await generateLlmBenchmark({
      parts: defaultLlmBenchParts(locomo, realmem),
      heldout: list(values.heldout),
      minPerType,
      judgeRule,
      verify: values.verify === true,
      write: async (rel, doc) => {
        const file = join(out, rel);
        await mkdir(dirname(file), { recursive: true });
        await writeAtomic(file, exportSmartcomment(doc, { indent: values.compact ? 0 : 2 }));
      },
      onProgress: (m) => io.stderr.write(`${m}\n`),
    });
    const seconds = (Date.now() - started) / 1000;
    await writeAtomic(join(out, 'summary.json'), `${JSON.stringify({ ...summary, seconds }, null, 2)}\n`);
    const files = (part: string) => summary.manifest.filter((m) => m.part === part).map((m) => m.file);
    await writeAtomic(
      join(out, 'manifest.json'),
      `${JSON.stringify({ dev: files('dev'), heldout: files('heldout') }, null, 2)}\n`,
    );
    if (values.json) printJson(io, { ...summary, seconds });
    else io.stdout.write(`${describeLlmBench(summary)}\n${seconds.toFixed(0)} s\n`);
    return summary.meetsMinimum ? 0 : 1;
  },
});
