/** `memtrace compare`: what changed between two runs of one conversation, in memory terms. */
import { type Divergence, pairQuestions } from '../../core/compare/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { CliError, printJson, printLine } from '../io.ts';
import { loadGraph } from './load.ts';

export const compare = command({
  name: 'compare',
  usage: 'memtrace compare A.json B.json [--question QUERY_ID] [--json]',
  args: { min: 2, max: 2, name: 'two trace files <A.json> <B.json>' },
  options: {
    ...JSON_FLAG,
    question: {
      type: 'string',
      value: 'QUERY_ID',
      help: 'the memory at the time of this question (its query id in either run) instead of the last one',
    },
  },
  async run({ positionals, values }, io) {
    // Loaded when the command runs: its import is heavy (the NLP libraries under case contexts).
    const { compareMemoryAt, compareRuns } = await import('../../core/compare/index.ts');
    const graphs = [];
    for (const file of positionals) graphs.push(await loadGraph(file, io));
    const [ga, gb] = graphs;
    const out = compareRuns(ga, gb);
    if (typeof values.question === 'string') {
      // The memory at the time of one question (named by its query id in either run).
      const q = values.question;
      const pair = pairQuestions(ga, gb).find((p) => p.a?.queryId === q || p.b?.queryId === q);
      if (!pair) throw new CliError(`no question ${q} in either run`);
      out.memory = {
        ...compareMemoryAt(ga, gb, pair.a, pair.b),
        at: pair.a && pair.b ? { query_id_a: pair.a.queryId, query_id_b: pair.b.queryId } : null,
      };
    }
    if (values.json) {
      printJson(io, out);
      return 0;
    }
    const s = out.summary;
    io.stdout.write(
      `${s.questions} question(s): ${s.fixed} fixed, ${s.broken} broken, ${s.same} same (${s.still_wrong} still wrong); ${s.diverged} with a first divergence\n`,
    );
    for (const q of out.questions.filter((x) => x.change !== 'same'))
      printLine(
        io,
        `${q.change.padEnd(6)} ${q.outcome_a} → ${q.outcome_b}  ${q.query.replace(/\s+/g, ' ').slice(0, 80)}${
          q.first_divergence ? `  (diverges at ${divergenceText(q.first_divergence)})` : ''
        }`,
      );
    const m = out.memory;
    io.stdout.write(
      `memory at the last question: ${m.only_a.length} only in A, ${m.only_b.length} only in B, ${m.changed.length} changed, ${m.same} same\n`,
    );
    return 0;
  },
});

/** `memorize` (step 12, session_1) and what differs: `prompt fact-extraction-prompt, output facts`. */
function divergenceText(d: Divergence): string {
  const op = d.ops.a;
  const differs = d.differences.map((x) => `${x.part} ${x.name}`).join(', ');
  return `${op.name} (step ${op.step}${op.session_id ? `, ${op.session_name ?? op.session_id}` : ''})${differs ? `: ${differs}` : ''}`;
}
