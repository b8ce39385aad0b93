/**
 * The report as Markdown. Trace text is escaped: inline text has Markdown and HTML
 * characters neutralised, values go in fenced code blocks whose fence is longer than
 * any backtick run inside, so nothing from a trace renders as markup.
 */
import { maxOf } from '../arrays.ts';
import { escapeControls } from '../text/index.ts';
import { ERROR_TYPES } from '../trace/index.ts';
import { FEATURES } from './features.ts';
import { ci, featureLabel, findings, pct, SMALL_SAMPLE, times } from './findings.ts';
import {
  afterRelation,
  type GroundQuote,
  groundOpText,
  groundQuoteSource,
  notAttributableText,
  percent,
  ruleText,
  type VerdictGrounds,
} from './grounds.ts';
import type { ErrorReport, Exemplar, ValueExcerpt } from './types.ts';

/** Inline trace text: one line, Markdown specials backslash-escaped, HTML specials as entities. */
function mdText(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!]/g, '\\$&');
}

/** A fenced code block that no backtick run in `text` can close early. */
function mdBlock(text: string): string {
  const longest = maxOf(
    (text.match(/`+/g) ?? []).map((r) => r.length),
    0,
  );
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

const SHORT: Record<string, string> = {
  ExtractionError: 'Extraction',
  UpdateError: 'Update',
  DeletionError: 'Deletion',
  RetrievalError: 'Retrieval',
  ResponseError: 'Response',
};

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function values(title: string, list: ValueExcerpt[]): string[] {
  return list.flatMap((v) => [
    `${title} \`${mdText(v.id).replace(/`/g, '')}\`${v.chars > v.text.length ? ` (excerpt of ${v.chars} characters)` : ''}:`,
    '',
    mdBlock(v.text),
    '',
  ]);
}

function quoted(title: string, q: GroundQuote | null): string[] {
  if (!q) return [];
  const matched = q.matched.length ? `; matched: ${q.matched.map(mdText).join(', ')}` : '';
  return [`${mdText(title)} — ${mdText(groundQuoteSource(q))}${matched}:`, '', mdBlock(q.text), ''];
}

/** What a verdict rests on: confidence, test, runner-ups, the held text and what came after it. */
function grounds(gr: VerdictGrounds | null | undefined): string[] {
  if (!gr) return [];
  if (gr.not_attributable)
    return [
      `- ${mdText(notAttributableText(gr.not_attributable))} (${mdText(gr.not_attributable.reason)})`,
      '',
    ];
  const lines = [
    ...(gr.confidence === null ? [] : [`- Confidence: ${percent(gr.confidence)}`]),
    ...(gr.rule ? [`- Test: ${mdText(ruleText(gr.rule))}`] : []),
    ...(gr.judge_disagrees
      ? ["- The test accepts the prediction the trace's judge rejected: a possible judge error."]
      : []),
    ...gr.runners_up.map(
      (r) => `- Runner-up: ${mdText(groundOpText(r))} — ${mdText(r.error_type)}, score ${r.score.toFixed(2)}`,
    ),
    '',
  ];
  return [
    ...lines,
    ...quoted('Held the answer', gr.held),
    ...(gr.held ? quoted(afterRelation(gr.after), gr.after) : []),
  ];
}

function exemplar(e: Exemplar): string[] {
  return [
    `#### ${mdText(e.case_id)}`,
    '',
    `- Question: ${mdText(e.question)}`,
    `- Golden answer: ${mdText(e.golden_answers.join(' | ') || '–')}`,
    `- Prediction: ${mdText(e.prediction ?? '–')}`,
    `- Faulty op: ${e.op_id ? `${e.op_name ? `${mdText(e.op_name)} (${mdText(e.op_category ?? '')}) ` : ''}${mdText(e.op_id)}` : '–'}`,
    `- Why: ${mdText(e.reason || '–')}`,
    ...grounds(e.grounds),
    ...(e.grounds ? [] : ['']),
    ...values('Evidence', e.evidence),
    ...values('Before', e.before),
    ...values('After', e.after),
  ];
}

/** The title, the counts and methods, how to read the numbers, and the findings. */
function intro(r: ErrorReport, title: string): string[] {
  const n = r.cases;
  const out: string[] = [
    `# ${mdText(title)}`,
    '',
    `${n} failed case(s); ${r.attributed} attributed to an error type (${r.uncertain ?? 0} of them uncertain: below the confidence threshold), ${r.no_decisive_error} with no decisive memory error. ` +
      `Attribution: ${
        Object.entries(r.methods)
          .map(([m, k]) => `${mdText(m)} (${k})`)
          .join(', ') || '–'
      }.${r.generated_at ? ` Generated ${mdText(r.generated_at)}.` : ''}`,
    '',
    `Rates are shares of all ${n} failed cases; brackets are 95 % Wilson intervals, wide when the sample is small. ` +
      `Lift = how many times as frequent an error type is among the cases with a feature as among all cases.`,
    '',
  ];
  const f = findings(r);
  if (f.length) {
    out.push('## Findings', '', ...f.slice(0, 12).map((x) => `- ${mdText(x.text)}`), '');
  }
  return out;
}

/** The short error type names, as table heads. */
const TYPE_HEADS = ERROR_TYPES.map((t) => SHORT[t]);

/** The tables of error types and of systems. */
function errorTypes(r: ErrorReport): string[] {
  const n = r.cases;
  return [
    '## Error types',
    '',
    table(
      ['error type', 'cases', 'rate', '95 % interval'],
      [
        ...r.error_type_rates.map((t) => [
          t.error_type,
          String(t.count),
          pct(t.rate),
          ci(t.ci_low, t.ci_high),
        ]),
        [
          'no decisive memory error',
          String(r.no_decisive_error),
          pct(n ? r.no_decisive_error / n : null),
          '',
        ],
      ],
    ),
    '',
    '## By system',
    '',
    table(
      ['system', 'cases', ...TYPE_HEADS, 'none'],
      Object.entries(r.by_system).map(([s, row]) => [
        mdText(s),
        String(row.cases),
        ...ERROR_TYPES.map((t) => String(row.by_error_type[t])),
        String(row.no_decisive_error),
      ]),
    ),
    '',
  ];
}

/** The tables of faulty operations, of the prompts behind them, and of question categories. */
function breakdowns(r: ErrorReport): string[] {
  return [
    '## Faulty operations',
    '',
    table(
      ['op', 'category', 'cases', 'rate', '95 % interval', ...TYPE_HEADS],
      r.by_op.map((o) => [
        mdText(o.op_name),
        mdText(o.op_category),
        String(o.count),
        pct(o.rate),
        ci(o.ci_low, o.ci_high),
        ...ERROR_TYPES.map((t) => String(o.by_error_type[t])),
      ]),
    ),
    '',
    '## Prompts behind the faulty operations',
    '',
    'The prompt variable (category `prompt`) the faulty op reads, or — for a store write — the one read by the op whose decision it applied. ' +
      'Failures without one cannot be fixed by rewriting a prompt ("not optimisable").',
    '',
    table(
      ['prompt', 'cases', 'rate', '95 % interval', ...TYPE_HEADS],
      r.by_prompt.map((p) => [
        p.prompt === null ? 'not optimisable' : mdText(p.prompt),
        String(p.count),
        pct(p.rate),
        ci(p.ci_low, p.ci_high),
        ...ERROR_TYPES.map((t) => String(p.by_error_type[t])),
      ]),
    ),
    '',
    '## Question categories',
    '',
    table(
      ['category', 'cases', ...TYPE_HEADS],
      r.by_question_category.map((c) => [
        mdText(c.category),
        String(c.cases),
        ...ERROR_TYPES.map((t) => String(c.by_error_type[t])),
      ]),
    ),
    '',
  ];
}

function caseFeatures(r: ErrorReport): string[] {
  return [
    '## Case features',
    '',
    `Per feature: the cases that have it, then per error type "count (lift)". Fewer than ${SMALL_SAMPLE} cases with a feature: read with care.`,
    '',
    table(
      ['feature', 'cases with it', ...TYPE_HEADS],
      r.feature_prevalence.map((p) => [
        mdText(p.label),
        `${p.count} (${pct(p.rate)})`,
        ...ERROR_TYPES.map((t) => {
          const row = r.features.find((x) => x.feature === p.feature && x.error_type === t);
          return row && row.with_feature > 0 ? `${row.count} (${times(row.lift)})` : '–';
        }),
      ]),
    ),
    '',
  ];
}

function clusters(r: ErrorReport): string[] {
  return [
    '## Clusters',
    '',
    ...r.clusters.flatMap((c, i) => [
      `### ${i + 1}. ${mdText(c.id)}: ${c.count} case(s), ${pct(c.rate)} ${ci(c.ci_low, c.ci_high)}`,
      '',
      `Systems: ${Object.entries(c.systems)
        .map(([s, k]) => `${mdText(s)} ${k}`)
        .join(', ')}. Prompt: ${c.prompt ? mdText(c.prompt) : 'none'}.` +
        (c.features.length
          ? ` More frequent here: ${c.features.map((x) => `${mdText(featureLabel(x.feature))} (${x.count}, ${times(x.lift)})`).join('; ')}.`
          : ''),
      '',
      ...c.exemplars.flatMap(exemplar),
    ]),
  ];
}

function narrative(r: ErrorReport): string[] {
  const nv = r.narrative;
  if (!nv) return [];
  return [
    '## Narrative',
    '',
    `Written by ${mdText(nv.provider)} model ${mdText(nv.model)}${nv.source === 'file' ? ' (read from error\\_analysis\\_report.json)' : ''}: ` +
      `${nv.batches} batch(es) of up to ${nv.batch_size} cases, ${nv.cost.calls} call(s) (${nv.cost.cached} cached), ` +
      `${nv.cost.inputTokens} input and ${nv.cost.outputTokens} output tokens${nv.cost.estimated ? ' (partly estimated)' : ''}. ` +
      `${nv.dropped_citations.length} citation(s) of cases the model was not shown were removed.`,
    '',
    ...nv.text.split(/\n\s*\n/).flatMap((p) => [mdText(p), '']),
    ...(nv.citations.length
      ? ['Cited cases:', '', ...nv.citations.map((x) => `- ${x.ref}: ${mdText(x.case_id)}`), '']
      : []),
  ];
}

/** The whole report as a Markdown document. */
export function reportMarkdown(r: ErrorReport, options: { title?: string } = {}): string {
  const out = [
    ...intro(r, options.title ?? 'Error report'),
    ...errorTypes(r),
    ...breakdowns(r),
    ...caseFeatures(r),
    ...clusters(r),
    ...narrative(r),
    '## Definitions',
    '',
    ...FEATURES.map((x) => `- ${mdText(x.label)}: ${mdText(x.rule)}.`),
    '',
  ];
  // Control characters from traces (ESC, BEL, C1) are shown as \uXXXX, never written raw.
  return escapeControls(out.join('\n'));
}
