import { type AnswerRuleUsed, describeAnswerRule, judgeFitOf } from '../../core/attribution/index.ts';
import { listCases } from '../../core/cases/index.ts';
import { oneLine } from '../../core/text/index.ts';
import { ATTRIBUTION_FLAGS, evidenceSetup, judgePoolOf } from '../attribution-setup.ts';
import { command, JSON_FLAG } from '../command.ts';
import { eachTraceFile, traceFilesIn } from '../files.ts';
import { printJson, printLine } from '../io.ts';

/** A question whose verdict the fitted carrying test contradicts: a candidate judge error. */
interface JudgeDisagreementJson {
  query_id: string;
  question: string;
  golden_answers: string[];
  prediction: string | null;
  /** What the trace's judge said; the fitted test says the opposite. */
  judged: 'correct' | 'wrong';
}

/** One trace's judge as learned from its verdicts (`memtrace judge --json`, one per file). */
interface JudgeJson {
  file: string;
  graph_id: string;
  rule: {
    source: AnswerRuleUsed['source'];
    description: string;
    agreement: number | null;
    passed: number;
    failed: number;
  };
  disagreements: JudgeDisagreementJson[];
}

export const judge = command({
  name: 'judge',
  usage: 'memtrace judge <files or dirs…> [--match lexical|normalised|vectors] [--json]',
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '<files or dirs…>' },
  options: { ...JSON_FLAG, match: ATTRIBUTION_FLAGS.match },
  async run({ positionals, values }, io) {
    const files = await traceFilesIn(positionals);
    const { evidenceFlow } = await evidenceSetup({ method: 'evidence', match: values.match }, io);
    evidenceFlow.judgePool = await judgePoolOf(files, evidenceFlow);
    const out: JudgeJson[] = [];
    const failedFiles = await eachTraceFile(files, io, (g, file) => {
      const { fit, source } = judgeFitOf(g, evidenceFlow);
      const byId = new Map(listCases(g, { includePassed: true }).map((c) => [c.queryId, c]));
      out.push({
        file,
        graph_id: g.doc.graph_id,
        rule: {
          source,
          description: describeAnswerRule(fit.rule),
          agreement: fit.agreement,
          passed: fit.passed,
          failed: fit.failed,
        },
        disagreements: fit.disagreements.map((d) => {
          const c = byId.get(d.query_id);
          return {
            query_id: d.query_id,
            question: c?.question ?? '',
            golden_answers: c?.goldenAnswers ?? [],
            prediction: c?.prediction ?? null,
            judged: d.judged,
          };
        }),
      });
    });
    if (values.json) printJson(io, out);
    else for (const j of out) printJudge(io, j);
    return failedFiles > 0 ? 1 : 0;
  },
});

function printJudge(io: Parameters<typeof printLine>[0], j: JudgeJson): void {
  const share = j.rule.agreement === null ? 'no verdicts' : `${(100 * j.rule.agreement).toFixed(1)} %`;
  printLine(
    io,
    oneLine(
      `${j.file}: ${j.rule.source} rule, reproduces ${share} of ${j.rule.passed + j.rule.failed} verdicts`,
    ),
  );
  printLine(io, oneLine(`  ${j.rule.description}`));
  for (const d of j.disagreements)
    printLine(
      io,
      // Two spaces between fields: printLine shows a tab as an escape, as it does in trace text.
      [
        ' ',
        d.query_id,
        `judged ${d.judged}`,
        d.question.slice(0, 80),
        `→ ${(d.prediction ?? '').slice(0, 80)}`,
      ]
        .map(oneLine)
        .join('  '),
    );
}
