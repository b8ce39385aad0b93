/**
 * Report generation time for 1,000 attributed cases, no model. Cases: failed questions of
 * the fault-injected benchmark (bench/out/faultbench, `npx tsx scripts/make-fault-bench.ts`),
 * taken file by file over the LoCoMo graphs of the rag, mem0 and evermemos splits in turn (base graphs first),
 * attributed by evidence-flow (not timed: that
 * is `memtrace attribute`'s cost). Timed, median of 5 runs: reading the report facts from
 * the opened graphs (`reportCase`), aggregating (`buildReport`), and rendering Markdown,
 * HTML and JSON. Parsing the files is import, measured in "Trace import".
 * `npx tsx bench/report.ts [--cases 1000] [--runs 5]` writes its section of RESULTS.md.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { depsFor } from '../src/cli/attribution-setup.ts';
import { collectTraceFiles, openTraceFile } from '../src/cli/files.ts';
import { type Attribution, evidenceFlowEngine } from '../src/core/attribution/index.ts';
import { listCases, type TraceCase } from '../src/core/cases/index.ts';
import type { TraceGraph } from '../src/core/graph/index.ts';
import { buildReport, reportCase, reportHtml, reportMarkdown } from '../src/core/report/index.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const WANT = Number(values.cases);
const RUNS = Number(values.runs);
const FAULTS = 'bench/out/faultbench';
if (!existsSync(FAULTS))
  throw new Error(`${FAULTS} is missing: run npx tsx scripts/make-fault-bench.ts first`);
// Long-context graphs are the largest to load (every window version) and the RealMem base graphs
// (200 sessions) too; the LoCoMo graphs of the other splits give the cases, their base graphs first.
const splits = readdirSync(FAULTS)
  .filter((s) => !s.includes('.') && s !== 'long_context')
  .sort();
const isBase = (f: string) => /\/conv-[^/]*-base\.json$/.test(f);
const lists = await Promise.all(
  splits.map(async (s) =>
    (await collectTraceFiles([join(FAULTS, s)]))
      .filter((f) => /\/conv-/.test(f))
      .sort((a, b) => Number(!isBase(a)) - Number(!isBase(b)) || (a < b ? -1 : 1)),
  ),
);

const work: { g: TraceGraph; file: string; c: TraceCase; a: Attribution }[] = [];
const bySplit: Record<string, number> = {};
let files = 0;
for (let k = 0; work.length < WANT && lists.some((l) => k < l.length); k++)
  for (const [i, list] of lists.entries()) {
    const file = list[k];
    if (!file || work.length >= WANT) continue;
    const r = await openTraceFile(file);
    if (!r.ok) continue;
    files++;
    console.error(`${file}: ${work.length} cases so far`);
    const deps = await depsFor(r.graph, {});
    for (const c of listCases(r.graph).filter((x) => x.failed || x.label)) {
      if (work.length >= WANT) break;
      work.push({ g: r.graph, file, c, a: await evidenceFlowEngine({ graph: r.graph, case: c }, deps) });
      bySplit[splits[i]] = (bySplit[splits[i]] ?? 0) + 1;
    }
  }
console.error(`${work.length} cases from ${files} files: ${JSON.stringify(bySplit)}`);
// Report caches per graph (unit splits) make reruns on the same graphs cheaper: the first run is the cold one.

const t = { facts: [] as number[], build: [] as number[], render: [] as number[], total: [] as number[] };
let sizes = { md: 0, html: 0, json: 0 };
let report: ReturnType<typeof buildReport> | null = null;
for (let run = 0; run < RUNS; run++) {
  const t0 = performance.now();
  const cases = work.map((w) => reportCase(w.g, w.c, w.a, { file: w.file }));
  const t1 = performance.now();
  report = buildReport(cases, { generatedAt: 'bench' });
  const t2 = performance.now();
  const md = reportMarkdown(report);
  const html = reportHtml(report);
  const json = JSON.stringify(report);
  const t3 = performance.now();
  sizes = { md: md.length, html: html.length, json: json.length };
  t.facts.push(t1 - t0);
  t.build.push(t2 - t1);
  t.render.push(t3 - t2);
  t.total.push(t3 - t0);
  console.error(`run ${run + 1}: ${(t3 - t0).toFixed(0)} ms`);
}
const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
const body = [
  `\`npx tsx bench/report.ts\` — ${work.length} attributed failed cases from ${files} files of the fault-injected benchmark`,
  `(${Object.entries(bySplit)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ')}), attributed by evidence-flow beforehand (not timed). No model. Machine: ${machine};`,
  `medians of ${RUNS} runs in one process (the first includes JIT warm-up).`,
  '',
  '| step | median | runs |',
  '| --- | --- | --- |',
  `| report facts from the graphs (\`reportCase\`: evidence, faulty op, prompt, before/after, features) | ${ms(t.facts)} | ${t.facts.map((x) => x.toFixed(0)).join(', ')} |`,
  `| aggregate (\`buildReport\`: counts, Wilson intervals, lifts, clusters) | ${ms(t.build)} | ${t.build.map((x) => x.toFixed(0)).join(', ')} |`,
  `| render Markdown + HTML + JSON | ${ms(t.render)} | ${t.render.map((x) => x.toFixed(0)).join(', ')} |`,
  `| **whole report, first run (cold: nothing cached for these graphs)** | **${t.total[0].toFixed(0)} ms** | |`,
  `| whole report, median of all runs (later runs reuse the per-graph unit caches) | ${ms(t.total)} | ${t.total.map((x) => x.toFixed(0)).join(', ')} |`,
  '',
  `Goal ≤ 2 s for 1,000 cases. Output sizes: Markdown ${(sizes.md / 1024).toFixed(0)} kB, HTML ${(sizes.html / 1024).toFixed(0)} kB, JSON ${(sizes.json / 1024).toFixed(0)} kB`,
  `(${report?.clusters.length ?? 0} clusters). Machine: ${machine}.`,
].join('\n');
writeResultsSection('Error report (no model)', body);
console.log(body);
