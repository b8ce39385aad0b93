/**
 * The report as one self-contained, printable HTML file: inline CSS and SVG charts, no
 * scripts and no external assets (a Content-Security-Policy forbids any), every piece of
 * trace text escaped (control characters shown as `\uXXXX`).
 */
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
  quoteMarks,
  ruleText,
  type VerdictGrounds,
} from './grounds.ts';
import { escapeHtml as esc, rateBars, stackedBars, TYPE_COLOURS } from './svg.ts';
import type { ErrorReport, Exemplar, ValueExcerpt } from './types.ts';

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;color:#222;max-width:1000px;margin:24px auto;padding:0 16px}
svg{max-width:100%;height:auto}
h1{font-size:24px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:12px 0 4px;font-family:ui-monospace,monospace;word-break:break-all}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;border:1px solid #e5e5e5;padding:6px 8px;font-size:12px;margin:4px 0 8px}
.muted{color:#666}.small{font-size:12px}.case{border-left:3px solid #ddd;padding-left:10px;margin:10px 0}
mark{background:#fde68a;color:inherit}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
@media print{body{margin:0;max-width:none}.case,table,svg{break-inside:avoid}h2{break-after:avoid}}
`;

function cell(text: string, numeric = false): string {
  return `<td${numeric ? ' class="n"' : ''}>${esc(text)}</td>`;
}

function table(head: string[], rows: string[][], numericFrom = 1): string {
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((x, i) => cell(x, i >= numericFrom)).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function values(title: string, list: ValueExcerpt[]): string {
  return list
    .map(
      (v) =>
        `<div class="small muted">${esc(title)} <code>${esc(v.id)}</code>${v.chars > v.text.length ? ` (excerpt of ${v.chars} characters)` : ''}</div><pre>${esc(v.text)}</pre>`,
    )
    .join('');
}

/** A quoted text in a block, its matched words marked (every piece escaped). */
function quoted(title: string, q: GroundQuote | null): string {
  if (!q) return '';
  let at = 0;
  let body = '';
  for (const [start, length] of quoteMarks(q)) {
    if (start < at) continue;
    body += `${esc(q.text.slice(at, start))}<mark>${esc(q.text.slice(start, start + length))}</mark>`;
    at = start + length;
  }
  body += esc(q.text.slice(at));
  return `<div class="small muted">${esc(title)} — ${esc(groundQuoteSource(q))}</div><pre class="quote">${body}</pre>`;
}

/** What a verdict rests on: confidence, test, runner-ups, the held text and what came after it. */
function grounds(gr: VerdictGrounds | null | undefined): string {
  if (!gr) return '';
  if (gr.not_attributable)
    return `<div><b>${esc(notAttributableText(gr.not_attributable))}</b> (${esc(gr.not_attributable.reason)})</div>`;
  const runners = gr.runners_up
    .map((r) => `<li>${esc(groundOpText(r))} — ${esc(r.error_type)}, score ${r.score.toFixed(2)}</li>`)
    .join('');
  return `${gr.confidence === null ? '' : `<div><b>Confidence:</b> ${esc(percent(gr.confidence))}</div>`}
${gr.rule ? `<div class="small"><b>Test:</b> ${esc(ruleText(gr.rule))}</div>` : ''}
${gr.judge_disagrees ? `<div class="small">The test accepts the prediction the trace's judge rejected: a possible judge error.</div>` : ''}
${runners ? `<div class="small"><b>Runner-up ops:</b></div><ul class="small">${runners}</ul>` : ''}
${quoted('Held the answer', gr.held)}${gr.held ? quoted(afterRelation(gr.after), gr.after) : ''}`;
}

function exemplar(e: Exemplar, anchor: string): string {
  return `<div class="case" id="${esc(anchor)}"><h4>${esc(e.case_id)}</h4>
<div><b>Question:</b> ${esc(e.question)}</div>
<div><b>Golden answer:</b> ${esc(e.golden_answers.join(' | ') || '–')}</div>
<div><b>Prediction:</b> ${esc(e.prediction ?? '–')}</div>
<div><b>Faulty op:</b> ${e.op_name ? `${esc(e.op_name)} (${esc(e.op_category ?? '')}) ` : ''}<code>${esc(e.op_id ?? '–')}</code></div>
<div><b>Why:</b> ${esc(e.reason || '–')}</div>
${grounds(e.grounds)}${values('Evidence', e.evidence)}${values('Before', e.before)}${values('After', e.after)}</div>`;
}

function heat(lift: number | null): string {
  if (lift === null) return '';
  const t = Math.max(0, Math.min(1, (lift - 1) / 3));
  return lift > 1 ? ` style="background:rgba(225,87,89,${(0.1 + 0.6 * t).toFixed(2)})"` : '';
}

/** Error types of a table's head: the type names without their `Error` suffix. */
const TYPE_HEADS = ERROR_TYPES.map((t) => t.replace(/Error$/, ''));

function documentHead(title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head><body>
<h1>${esc(title)}</h1>`;
}

/** The counts, the methods, how to read the numbers, and the findings. */
function summary(r: ErrorReport): string {
  const n = r.cases;
  const f = findings(r);
  return `<p>${n} failed case(s); ${r.attributed} attributed to an error type (${r.uncertain ?? 0} of them uncertain: below the confidence threshold), ${r.no_decisive_error} with no decisive memory error. Attribution: ${esc(
    Object.entries(r.methods)
      .map(([m, k]) => `${m} (${k})`)
      .join(', ') || '–',
  )}.${r.generated_at ? ` Generated ${esc(r.generated_at)}.` : ''}</p>
<p class="small muted">Rates are shares of all ${n} failed cases; whiskers and brackets are 95 % Wilson intervals, wide when the sample is small. Lift = how many times as frequent an error type is among the cases with a feature as among all cases.</p>
${
  f.length
    ? `<h2>Findings</h2><ul>${f
        .slice(0, 12)
        .map((x) => `<li>${esc(x.text)}</li>`)
        .join('')}</ul>`
    : ''
}`;
}

function errorTypes(r: ErrorReport): string {
  const n = r.cases;
  const typeChart = rateBars([
    ...r.error_type_rates.map((t) => ({
      label: t.error_type,
      rate: t.rate ?? 0,
      low: t.ci_low,
      high: t.ci_high,
      note: `${t.count} · ${pct(t.rate)}`,
      colour: TYPE_COLOURS[t.error_type],
    })),
  ]);
  return `<h2>Error types</h2>${typeChart}
${table(
  ['error type', 'cases', 'rate', '95 % interval'],
  [
    ...r.error_type_rates.map((t) => [t.error_type, String(t.count), pct(t.rate), ci(t.ci_low, t.ci_high)]),
    ['no decisive memory error', String(r.no_decisive_error), pct(n ? r.no_decisive_error / n : null), ''],
  ],
)}`;
}

function bySystem(r: ErrorReport): string {
  const systemChart = stackedBars(
    Object.entries(r.by_system).map(([s, row]) => ({
      label: s,
      parts: [
        ...ERROR_TYPES.map((t) => ({ key: t, value: row.by_error_type[t] })),
        { key: 'none', value: row.no_decisive_error },
      ],
    })),
    [...ERROR_TYPES, 'none'],
  );
  return `<h2>By system</h2>${systemChart}`;
}

/** The tables of faulty operations, of the prompts behind them, and of question categories. */
function breakdowns(r: ErrorReport): string {
  return `<h2>Faulty operations</h2>${table(
    ['op', 'category', 'cases', 'rate', '95 % interval', ...TYPE_HEADS],
    r.by_op.map((o) => [
      o.op_name,
      o.op_category,
      String(o.count),
      pct(o.rate),
      ci(o.ci_low, o.ci_high),
      ...ERROR_TYPES.map((t) => String(o.by_error_type[t])),
    ]),
    2,
  )}
<h2>Prompts behind the faulty operations</h2>
<p class="small muted">The prompt variable (category prompt) the faulty op reads, or — for a store write — the one read by the op whose decision it applied. Failures without one cannot be fixed by rewriting a prompt.</p>
${table(
  ['prompt', 'cases', 'rate', '95 % interval', ...TYPE_HEADS],
  r.by_prompt.map((p) => [
    p.prompt ?? 'not optimisable',
    String(p.count),
    pct(p.rate),
    ci(p.ci_low, p.ci_high),
    ...ERROR_TYPES.map((t) => String(p.by_error_type[t])),
  ]),
)}
<h2>Question categories</h2>${table(
    ['category', 'cases', ...TYPE_HEADS],
    r.by_question_category.map((c) => [
      c.category,
      String(c.cases),
      ...ERROR_TYPES.map((t) => String(c.by_error_type[t])),
    ]),
  )}`;
}

/** Per feature its cases, then per error type "count (lift)", red where more frequent than overall. */
function caseFeatures(r: ErrorReport): string {
  const featureRows = r.feature_prevalence
    .map((p) => {
      const cells = ERROR_TYPES.map((t) => {
        const row = r.features.find((x) => x.feature === p.feature && x.error_type === t);
        if (!row || row.with_feature === 0) return '<td class="n">–</td>';
        return `<td class="n"${heat(row.lift)} title="${esc(`${row.count} of ${row.with_feature}: ${pct(row.rate)} ${ci(row.ci_low, row.ci_high)}`)}">${row.count} (${esc(times(row.lift))})</td>`;
      }).join('');
      return `<tr><td>${esc(p.label)}</td><td class="n">${p.count} (${esc(pct(p.rate))})</td>${cells}</tr>`;
    })
    .join('');
  return `<h2>Case features</h2>
<p class="small muted">Per feature: the cases that have it, then per error type "count (lift)"; red cells are more frequent than overall. Fewer than ${SMALL_SAMPLE} cases with a feature: read with care. Hover a cell for its rate and interval.</p>
<table><thead><tr><th>feature</th><th>cases with it</th>${ERROR_TYPES.map((t) => `<th><span class="swatch" style="background:${TYPE_COLOURS[t]}"></span>${esc(t.replace(/Error$/, ''))}</th>`).join('')}</tr></thead><tbody>${featureRows}</tbody></table>`;
}

/** The anchor of the j-th exemplar of the i-th cluster (0-based), which narrative citations link to. */
function exemplarAnchor(i: number, j: number): string {
  return `case-${i + 1}-${j + 1}`;
}

function clusters(r: ErrorReport): string {
  const clusterChart = rateBars(
    r.clusters.slice(0, 12).map((c) => ({
      label: c.id.length > 34 ? `${c.id.slice(0, 33)}…` : c.id,
      rate: c.rate ?? 0,
      low: c.ci_low,
      high: c.ci_high,
      note: `${c.count} · ${pct(c.rate)}`,
      colour: TYPE_COLOURS[c.error_type ?? 'none'],
    })),
  );
  return `<h2>Clusters</h2>${clusterChart}
${r.clusters
  .map(
    (
      c,
      i,
    ) => `<h3>${i + 1}. ${esc(c.id)}: ${c.count} case(s), ${esc(pct(c.rate))} ${esc(ci(c.ci_low, c.ci_high))}</h3>
<p class="small">Systems: ${esc(
      Object.entries(c.systems)
        .map(([s, k]) => `${s} ${k}`)
        .join(', '),
    )}. Prompt: ${esc(c.prompt ?? 'none')}.${
      c.features.length
        ? ` More frequent here: ${esc(c.features.map((x) => `${featureLabel(x.feature)} (${x.count}, ${times(x.lift)})`).join('; '))}.`
        : ''
    }</p>
${c.exemplars.map((e, j) => exemplar(e, exemplarAnchor(i, j))).join('')}`,
  )
  .join('')}`;
}

/** The model's narrative with its cost, and its cited cases linked to their exemplars when shown. */
function narrative(r: ErrorReport): string {
  if (!r.narrative) return '';
  const anchors = new Map<string, string>();
  for (const [i, c] of r.clusters.entries())
    for (const [j, e] of c.exemplars.entries()) anchors.set(e.case_id, exemplarAnchor(i, j));
  return `<h2>Narrative</h2><p class="small muted">Written by ${esc(r.narrative.provider)} model ${esc(r.narrative.model)}${
    r.narrative.source === 'file' ? ' (read from error_analysis_report.json)' : ''
  }: ${r.narrative.batches} batch(es) of up to ${r.narrative.batch_size} cases, ${r.narrative.cost.calls} call(s) (${r.narrative.cost.cached} cached), ${r.narrative.cost.inputTokens} input and ${r.narrative.cost.outputTokens} output tokens${
    r.narrative.cost.estimated ? ' (partly estimated)' : ''
  }. ${r.narrative.dropped_citations.length} citation(s) of cases the model was not shown were removed.</p>${r.narrative.text
    .split(/\n\s*\n/)
    .map((p) => `<p>${esc(p)}</p>`)
    .join('')}${
    r.narrative.citations.length
      ? `<p class="small">Cited cases:</p><ul class="small">${r.narrative.citations
          .map((x) => {
            const a = anchors.get(x.case_id);
            return `<li>${esc(x.ref)}: ${a ? `<a href="#${esc(a)}">${esc(x.case_id)}</a>` : esc(x.case_id)}</li>`;
          })
          .join('')}</ul>`
      : ''
  }`;
}

/** The whole report as a standalone HTML document. */
export function reportHtml(r: ErrorReport, options: { title?: string } = {}): string {
  const sections = [
    documentHead(options.title ?? 'Error report'),
    summary(r),
    errorTypes(r),
    bySystem(r),
    breakdowns(r),
    caseFeatures(r),
    clusters(r),
    narrative(r),
    `<h2>Definitions</h2><ul class="small">${FEATURES.map((x) => `<li>${esc(x.label)}: ${esc(x.rule)}.</li>`).join('')}</ul>`,
    '</body></html>',
    '',
  ];
  // Control characters from traces (ESC, BEL, C1) are shown as \uXXXX, never written raw.
  return escapeControls(sections.join('\n'));
}
