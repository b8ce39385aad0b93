/**
 * Does the evidence-flow attributor generalise? Its default matcher (word vectors), run as
 * `memtrace bench --method evidence` runs it (the CLI's own setup, the whole graph per file),
 * on labelled failures it was not tuned on:
 *   - `llm`: the LLM-written-memories benchmark under every judge rule generated
 *     (`scripts/make-llm-bench.ts --all-rules` → bench/out/llm-bench-<rule>/), per memory design,
 *     dev and held-out parts apart;
 *   - `faultbench`: the extractive fault-injected benchmark (`scripts/make-fault-bench.ts`);
 *   - `shared`: the labelled real files of the shared data;
 *   - `memeval`: real Mem0 failures labelled by people (../shared/data/memeval-dev; type
 *     accuracy is the figure there, op labels are approximate), with LoCoMo's adversarial
 *     questions (category 5, no golden answer) also counted apart.
 * Beside each: a naive baseline (`naiveAttribution`) and, with `--baseline REF`, the attributor
 * of another commit (`memtrace bench` in a temporary worktree). Writes the section
 * "Attribution generalisation (judge rules, designs, human labels)" of bench/RESULTS.md.
 *
 * `npx tsx bench/attribution-generalisation.ts [--sets llm,faultbench,shared,memeval]
 *   [--rules offline,containment,token-f1,half-words] [--baseline REF] [--cache]`
 *
 * `--cache` keeps each file's outcomes in bench/out/generalisation-cache/, keyed by the file's
 * path, size and time and the commit checked out, so runs of a few sets at a time can be
 * joined by one last run; uncommitted changes to the attributor are not part of the key.
 * `--cached-only` (with `--cache`) scores only files already in the cache and lists the others
 * as not measured. `--write-calibration` writes the calibration table fitted here on every dev
 * verdict as src/core/attribution/calibration-table.ts (`fitCalibration`).
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { attributeCase, caseDeps, judgePoolOf, type MethodRun } from '../src/cli/attribution-setup.ts';
import { openTraceFile } from '../src/cli/files.ts';
import {
  type AnswerRuleUsed,
  calibrationKeys,
  confidenceFrom,
  MIN_VERDICTS,
  UNCERTAIN_BELOW,
} from '../src/core/attribution/index.ts';
import { type BenchSummary, type ScoredCase, summarize } from '../src/core/bench/index.ts';
import { listCases, systemOf } from '../src/core/cases/index.ts';
import { caseKey, FILE_CHOICE, fileLabels, labelsFor } from '../src/core/labels/index.ts';
import { JUDGE_RULES } from '../src/systems/index.ts';
import { type Goal, type GoalCase, goalTable } from './attribution-goals.ts';
import {
  benchEvidenceSetup,
  conversationOf,
  HELDOUT,
  naiveAttribution,
  type Source,
  setSources,
} from './attribution-sets.ts';
import { type BaselineCase, benchAt, withWorktree } from './baseline.ts';
import {
  halvings,
  levelsOf,
  MEMEVAL_HALVINGS,
  outOfFold,
  tableOf,
  writeCalibrationTable,
} from './calibration-fit.ts';
import { type Calibrated, calibrationStats, machineFacts, writeResultsSection } from './stats-util.ts';

const SET_KEYS = ['llm', 'faultbench', 'shared', 'memeval'] as const;
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: SET_KEYS.join(',') },
    rules: { type: 'string', default: JUDGE_RULES.join(',') },
    baseline: { type: 'string' },
    cache: { type: 'boolean', default: false },
    'cached-only': { type: 'boolean', default: false },
    'write-calibration': { type: 'boolean', default: false },
  },
});
const machine = machineFacts();
const started = performance.now();
const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench/out');
const _SHARED = resolve(ROOT, '../shared/data');
const wanted = new Set(values.sets.split(','));
const TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];

/** One attributed case: the attributor's and the naive rule's answers (and, later, the baseline's). */
interface Outcome extends ScoredCase {
  src: Source;
  key: string;
  naive: { type: string | null; op: string | null };
  adversarial: boolean;
  /** The carrying test the attributor ran on this case's trace, and how well it reproduced the trace's judge. */
  judge?: AnswerRuleUsed;
  /** The verdict's calibration keys, coarse to fine (`calibrationKeys`). */
  keys: string[];
  before?: BaselineCase;
}

// ---- running the attributor as `memtrace bench` does ----------------------------------------

const setup = await benchEvidenceSetup();
const run: MethodRun = { method: 'evidence', model: undefined, prior: false, agent: {}, setup };

const CACHE = join(OUT, 'generalisation-cache');
/** Files that did not load (reported, not scored). */
const unreadable: string[] = [];
/** Files left out by `--cached-only` (reported). */
const unmeasured: string[] = [];
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();

/** `attributeFile`, its outcomes kept in the cache (`--cache`) under the file's path, size, time and the commit. */
async function attributeCached(src: Source): Promise<Outcome[]> {
  if (!values.cache) return attributeFile(src);
  const st = statSync(src.file);
  const key = createHash('sha1').update(`${HEAD}\n${src.file}\n${st.size}\n${st.mtimeMs}`).digest('hex');
  const path = join(CACHE, `${key}.json`);
  if (values['cached-only'] && !existsSync(path)) {
    unmeasured.push(src.file);
    return [];
  }
  if (existsSync(path))
    return (JSON.parse(readFileSync(path, 'utf8')) as Omit<Outcome, 'src'>[]).map((o) => ({ ...o, src }));
  const before = unreadable.length;
  const out = await attributeFile(src);
  if (unreadable.length > before) return out; // not loaded: never cached
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(path, JSON.stringify(out.map(({ src: _, ...o }) => o)));
  return out;
}

/**
 * The baseline's `memtrace bench` on every source, one run per benchmark (a set; for `llm`, a
 * judge rule), each kept in the cache (`--cache`) under the ref and that benchmark's files, so
 * a run of other sets reuses it. A benchmark is one judge, so a baseline that pools a judge's
 * verdicts across files sees the same pool as given every file at once.
 */
async function baselineCases(ref: string): Promise<BaselineCase[]> {
  const groups = new Map<string, string[]>();
  for (const s of srcs) {
    const key = `${s.set}/${s.rule ?? ''}`;
    const files = groups.get(key) ?? [];
    if (!files.includes(s.file)) files.push(s.file);
    groups.set(key, files);
  }
  const sha = execFileSync('git', ['rev-parse', ref], { cwd: ROOT, encoding: 'utf8' }).trim();
  const cachePath = (files: string[]) =>
    join(
      CACHE,
      `baseline-${createHash('sha1')
        .update(`${sha}\n${[...files].sort().join('\n')}`)
        .digest('hex')}.json`,
    );
  const results = new Map<string[], { cases: BaselineCase[] } | null>();
  for (const files of groups.values())
    if (values.cache && existsSync(cachePath(files)))
      results.set(files, JSON.parse(readFileSync(cachePath(files), 'utf8')));
  const missing = [...groups.values()].filter((files) => !results.has(files));
  if (missing.length)
    await withWorktree(ROOT, ref, async (dir) => {
      for (const files of missing) {
        const out = await benchAt(dir, files);
        results.set(files, out);
        if (!out || !values.cache) continue;
        mkdirSync(CACHE, { recursive: true });
        writeFileSync(cachePath(files), JSON.stringify(out));
      }
    });
  return [...results.values()].flatMap((r) => r?.cases ?? []);
}

/**
 * As `memtrace bench` given every file: one judge's verdicts pooled across the files (a judge
 * is its ops' name, description and settings, so each rule's benchmark is one judge). Built at
 * the first file not in the cache.
 */
async function poolJudges(): Promise<void> {
  if (setup.evidenceFlow.judgePool) return;
  console.error('pooling the judges’ verdicts across the files…');
  setup.evidenceFlow.judgePool = await judgePoolOf([...new Set(srcs.map((s) => s.file))], setup.evidenceFlow);
}

async function attributeFile(src: Source): Promise<Outcome[]> {
  await poolJudges();
  const r = await openTraceFile(src.file);
  if (!r.ok) {
    unreadable.push(src.file);
    return [];
  }
  const g = r.graph;
  const chosen = labelsFor(fileLabels(g.doc), FILE_CHOICE);
  const labelled = listCases(g)
    .map((c) => ({ c, label: chosen.get(caseKey({ graphId: g.doc.graph_id, queryId: c.queryId })) }))
    .filter((x) => x.label !== undefined);
  if (labelled.length === 0) return [];
  const system = systemOf(g.doc, src.file);
  const deps = await caseDeps(
    g,
    run,
    labelled.map((x) => x.c),
  );
  const out: Outcome[] = [];
  for (const { c, label } of labelled) {
    const { result: a } = await attributeCase('evidence', { graph: g, case: c, system }, deps);
    out.push({
      src,
      key: `${src.file}#${c.queryId}`,
      system,
      label_type: label!.errorType,
      label_op: label!.opId ?? null,
      predicted_type: a.error_type,
      predicted_op: a.op_id,
      input_tokens: 0,
      output_tokens: 0,
      seconds: a.cost.seconds,
      confidence: a.confidence ?? null,
      uncertain: a.uncertain ?? false,
      naive: naiveAttribution(g, c),
      adversarial: c.goldenAnswers.every((x) => !x.trim()),
      judge: a.answer_rule,
      keys: a.calibration_keys ?? calibrationKeys(a.rules ?? [], a.answer_rule?.source ?? 'prior'),
    });
  }
  return out;
}

// ---- tables -------------------------------------------------------------------------------

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const naiveOf = (os: Outcome[]) =>
  summarize(os.map((o) => ({ ...o, predicted_type: o.naive.type, predicted_op: o.naive.op })));
const beforeOf = (os: Outcome[]) =>
  os.every((o) => o.before) ? summarize(os.map((o) => o.before as ScoredCase)) : null;

function typeCells(s: BenchSummary): string {
  return TYPES.map((t) => {
    const a = s.by_error_type[t];
    return a ? `${a.total}: ${pct(a.error_type_accuracy)} / ${pct(a.op_id_accuracy)}` : '—';
  }).join(' | ');
}

/** Rows of one group of cases: the attributor, the naive rule, and the baseline when run. */
function detailRows(label: string, os: Outcome[]): string[] {
  const row = (who: string, s: BenchSummary) =>
    `| ${label} | ${who} | ${s.total_cases} | ${pct(s.error_type_accuracy)} | ${pct(s.op_id_accuracy)} | ${pct(s.macro_error_type_accuracy)} | ${pct(s.macro_op_id_accuracy)} | ${typeCells(s)} |`;
  const before = beforeOf(os);
  return [
    ...(before ? [row(`before (${values.baseline})`, before)] : []),
    row('evidence-flow', summarize(os)),
    row('naive', naiveOf(os)),
  ];
}
const DETAIL_HEAD = [
  '| cases of | attributor | n | ETA | OIA | macro ETA | macro OIA | Extraction | Update | Deletion | Retrieval | Response |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];

/** The cross table: per rule and design, dev and held out; the naive rule's ETA beside. */
function crossTable(os: Outcome[]): string[] {
  const rules = [...new Set(os.map((o) => o.src.rule!))];
  const designs = [...new Set(os.map((o) => o.src.design!))].sort();
  const cell = (xs: Outcome[]) => {
    if (xs.length === 0) return '— | — | — | — | —';
    const s = summarize(xs);
    const n = naiveOf(xs);
    return `${s.total_cases} | ${pct(s.error_type_accuracy)} | ${pct(s.macro_error_type_accuracy)} | ${pct(s.macro_op_id_accuracy)} | ${pct(n.error_type_accuracy)} / ${pct(n.macro_error_type_accuracy)}`;
  };
  const lines = [
    '| judge rule | design | dev n | dev ETA | dev macro ETA | dev macro OIA | dev naive ETA / macro | held-out n | held-out ETA | held-out macro ETA | held-out macro OIA | held-out naive ETA / macro |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const rule of rules)
    for (const design of [...designs, 'all designs']) {
      const xs = os.filter(
        (o) => o.src.rule === rule && (design === 'all designs' || o.src.design === design),
      );
      const part = (p: string) => xs.filter((o) => o.src.part === p);
      const name = design === 'all designs' ? '**all designs**' : design;
      lines.push(`| ${rule} | ${name} | ${cell(part('dev'))} | ${cell(part('heldout'))} |`);
    }
  return lines;
}

/**
 * How well each trace's fitted carrying test reproduces that trace's own judge, per group: the
 * traces, how many had enough verdicts of both kinds to fit, how many learned it from the same
 * judge in the other files (pooled; the rest ran the prior), and the
 * share of verdicts reproduced (over all verdicts of the group, and the lowest trace's).
 */
function judgeTable(groups: [string, Outcome[]][]): string[] {
  const lines = [
    '| cases of | traces | fitted / pooled / prior | verdicts | reproduced | lowest trace |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const [name, os] of groups) {
    const perTrace = new Map<string, AnswerRuleUsed>();
    for (const o of os) if (o.judge) perTrace.set(o.src.file, o.judge);
    const traces = [...perTrace.values()];
    if (traces.length === 0) continue;
    const fitted = traces.filter((t) => t.source === 'fitted').length;
    const pooled = traces.filter((t) => t.source === 'pooled').length;
    const scored = traces.filter((t) => t.agreement !== null);
    const verdicts = scored.reduce((n, t) => n + t.passed + t.failed, 0);
    const agreed = scored.reduce((n, t) => n + (t.agreement ?? 0) * (t.passed + t.failed), 0);
    const lowest = scored.length ? Math.min(...scored.map((t) => t.agreement ?? 1)) : null;
    lines.push(
      `| ${name} | ${traces.length} | ${fitted} / ${pooled} / ${traces.length - fitted - pooled} | ${verdicts} | ${verdicts ? pct(agreed / verdicts) : '—'} | ${lowest === null ? '—' : pct(lowest)} |`,
    );
  }
  return lines;
}

// ---- calibration, fitted on every dev verdict ---------------------------------------------

/** Memeval holds one verdict a file: it is cross-fitted by halves (`halvings`), this many, this seed. */
const { count: HALVINGS, seed: HALVING_SEED } = MEMEVAL_HALVINGS;

/** A verdict as calibration sees it (cases with no verdict are left out). */
interface Verdict {
  o: Outcome;
  keys: string[];
  right: boolean;
}

/** Development data the table may be fitted on: no held-out conversation's file, of any set. */
const isDev = (o: Outcome) => o.src.part !== 'heldout' && !HELDOUT.includes(conversationOf(o.src.file));

/**
 * The table fitted on every dev verdict, and each verdict's confidence under a table that never
 * saw its conversation, one list per repetition: a dev verdict with the table of the other
 * conversations (of every set), a held-out one with the whole table, memeval (one conversation)
 * by each halving with the table of the other half and every other set.
 */
function fitCalibration(os: Outcome[]) {
  const verdicts: Verdict[] = os
    .filter((o) => o.predicted_type !== null && o.keys)
    .map((o) => ({ o, keys: o.keys, right: o.predicted_type === o.label_type }));
  const fit = verdicts.filter((v) => isDev(v.o));
  const memeval = verdicts.filter((v) => v.o.src.set === 'memeval');
  const splits = memeval.length ? halvings(memeval.length, HALVINGS, HALVING_SEED) : [[]];
  const reps = splits.map((first) => {
    const half = new Map(memeval.map((v, i) => [v, first[i] ? 'memeval first half' : 'memeval second half']));
    return outOfFold(
      verdicts,
      fit,
      (v) => half.get(v) ?? conversationOf(v.o.src.file),
      (t, v) => confidenceFrom(t, v.keys),
    );
  });
  const fitted = new Map(verdicts.map((v, i) => [v.o, reps.map((cs) => cs[i])]));
  return { table: tableOf(fit), fitted, designApart: designApart(verdicts, fit) };
}

/**
 * Each held-out verdict on LLM-written memories under a table fitted without any verdict of its
 * system design (every judge rule's): how calibration reads a design it has never seen.
 */
function designApart(verdicts: Verdict[], fit: Verdict[]): Map<Outcome, number[]> {
  const held = verdicts.filter((v) => v.o.src.set === 'llm' && !isDev(v.o));
  const foldOf = (v: Verdict) => (v.o.src.set === 'llm' ? `design ${v.o.src.design}` : 'other sets');
  const cs = outOfFold(held, fit, foldOf, (t, v) => confidenceFrom(t, v.keys));
  return new Map(held.map((v, i) => [v.o, [cs[i]]]));
}

/** `n | ECE shipped / fitted | most confident half shipped / fitted | uncertain (fitted)` of these cases. */
function calibrationCells(os: Outcome[], fitted: Map<Outcome, number[]>): string {
  const mine = os.filter((o) => fitted.has(o));
  if (mine.length === 0) return '— | — | — | —';
  const rowsOf = (conf: (o: Outcome) => number): Calibrated[] =>
    mine.map((o) => ({ right: o.predicted_type === o.label_type, confidence: conf(o) }));
  const shipped = calibrationStats(
    rowsOf((o) => o.confidence ?? 0),
    UNCERTAIN_BELOW,
  );
  const reps = (fitted.get(mine[0]) as number[]).map((_, r) =>
    calibrationStats(
      rowsOf((o) => (fitted.get(o) as number[])[r]),
      UNCERTAIN_BELOW,
    ),
  );
  const mean = (f: (x: (typeof reps)[number]) => number) => reps.reduce((s, x) => s + f(x), 0) / reps.length;
  const unsure = mean((x) => x.unsure);
  const count = reps.length === 1 ? String(unsure) : unsure.toFixed(1);
  const unsureCell = unsure ? `${count}: ${pct(mean((x) => x.unsureRight) / unsure)}` : '0';
  return `${mine.length} | ${shipped.ece.toFixed(3)} / ${mean((x) => x.ece).toFixed(3)} | ${pct(shipped.topHalf)} / ${pct(mean((x) => x.topHalf))} | ${unsureCell}`;
}

/** Calibration of `confidence` per judge rule and design (dev and held out), and per other set. */
function calibrationTable(
  llmCases: Outcome[],
  others: [string, Outcome[]][],
  fitted: Map<Outcome, number[]>,
): string[] {
  const lines = [
    '| cases of | design | dev verdicts | dev ECE shipped / fitted | dev most confident half shipped / fitted | dev uncertain (fitted) | held-out verdicts | held-out ECE shipped / fitted | held-out most confident half shipped / fitted | held-out uncertain (fitted) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const designs = [...new Set(llmCases.map((o) => o.src.design!))].sort();
  for (const rule of [...new Set(llmCases.map((o) => o.src.rule!))])
    for (const design of [...designs, 'all designs']) {
      const xs = llmCases.filter(
        (o) => o.src.rule === rule && (design === 'all designs' || o.src.design === design),
      );
      const part = (p: string) =>
        calibrationCells(
          xs.filter((o) => o.src.part === p),
          fitted,
        );
      lines.push(
        `| judge rule ${rule} | ${design === 'all designs' ? '**all designs**' : design} | ${part('dev')} | ${part('heldout')} |`,
      );
    }
  for (const [name, os] of others) {
    if (os.length === 0) continue;
    const dev = os.filter(isDev);
    const held = os.filter((o) => !isDev(o));
    lines.push(`| ${name} | — | ${calibrationCells(dev, fitted)} | ${calibrationCells(held, fitted)} |`);
  }
  return lines;
}

// ---- the issue's goals ---------------------------------------------------------------------

/** The goals of issue 31 on these outcomes (`goalTable`), the calibration figures out of fold. */
function issueGoals(os: Outcome[], calib: ReturnType<typeof fitCalibration>): Goal[] {
  const asGoal = (xs: Outcome[]): GoalCase[] =>
    xs.map((o) => ({
      ...o,
      naiveType: o.naive.type,
      fitted: calib.fitted.get(o),
      designApart: calib.designApart.get(o),
    }));
  const people = asGoal(os.filter((o) => o.src.set === 'memeval'));
  const label = "people's labels (memeval dev)";
  const goals: Goal[] = [
    { data: label, figure: 'ETA', bar: { op: '≥', value: 0.8 }, cases: people },
    { data: label, figure: 'ETA − naive ETA', bar: { op: '≥', value: 0.1 }, cases: people },
    { data: label, figure: 'ECE', bar: { op: '≤', value: 0.1 }, cases: people },
    { data: label, figure: 'most confident half', bar: { op: '≥', value: 0.9 }, cases: people },
  ];
  const held = os.filter((o) => o.src.set === 'llm' && o.src.part === 'heldout');
  for (const rule of [...new Set(held.map((o) => o.src.rule!))])
    for (const design of [...new Set(held.map((o) => o.src.design!))].sort()) {
      const cases = asGoal(held.filter((o) => o.src.rule === rule && o.src.design === design));
      const data = `LLM-written, held out: judge rule ${rule}, ${design}`;
      goals.push(
        { data, figure: 'macro ETA', bar: { op: '≥', value: 0.85 }, cases },
        { data, figure: 'ECE', bar: { op: '≤', value: 0.1 }, cases },
        { data, figure: 'most confident half', bar: { op: '≥', value: 0.9 }, cases },
        { data, figure: 'ECE, design left out', bar: { op: '≤', value: 0.1 }, cases },
        { data, figure: 'most confident half, design left out', bar: { op: '≥', value: 0.9 }, cases },
      );
    }
  const fault = os.filter((o) => o.src.set === 'faultbench');
  for (const [data, xs] of [
    ['extractive fault-injected, all', fault],
    ['extractive fault-injected, held-out conversations', fault.filter((o) => !isDev(o))],
  ] as const)
    for (const figure of ['macro ETA', 'macro OIA'] as const)
      goals.push({ data, figure, bar: { op: '≥', value: 0.9 }, cases: asGoal(xs) });
  return goals;
}

// ---- main ---------------------------------------------------------------------------------

const all: Outcome[] = [];
const srcs = setSources(wanted, values.rules.split(','));
// The baseline runs in its own process beside this one's attribution.
const baseline = values.baseline ? baselineCases(values.baseline) : undefined;
for (const [i, src] of srcs.entries()) {
  all.push(...(await attributeCached(src)));
  if (i % 25 === 0) console.error(`[${i + 1}/${srcs.length}] ${src.file.slice(ROOT.length + 1)}`);
}
if (baseline) {
  const byKey = new Map((await baseline).map((c) => [`${c.file}#${c.query_id}`, c]));
  for (const o of all) o.before = byKey.get(o.key);
}
const seconds = (performance.now() - started) / 1000;

const llm = all.filter((o) => o.src.set === 'llm');
const memeval = all.filter((o) => o.src.set === 'memeval');
const sections: string[] = [];
if (llm.length) {
  sections.push(
    '### Cross table: LLM-written memories, by judge rule and design',
    '',
    ...crossTable(llm),
    '',
  );
  for (const rule of [...new Set(llm.map((o) => o.src.rule!))]) {
    const mine = llm.filter((o) => o.src.rule === rule);
    const groups = [...new Set(mine.map((o) => `${o.src.design} ${o.src.part}`))].sort();
    sections.push(`### Judge rule ${rule}: per design and type`, '', ...DETAIL_HEAD);
    for (const gkey of groups)
      sections.push(
        ...detailRows(
          gkey,
          mine.filter((o) => `${o.src.design} ${o.src.part}` === gkey),
        ),
      );
    for (const p of ['dev', 'heldout'])
      sections.push(
        ...detailRows(
          `**all ${p}**`,
          mine.filter((o) => o.src.part === p),
        ),
      );
    sections.push('');
  }
}
const others: [string, Outcome[]][] = [
  [
    `extractive fault-injected benchmark (bench/out/faultbench: ${[...new Set(srcs.filter((x) => x.set === 'faultbench').map((x) => x.file.split('/').at(-2)))].join(', ')})`,
    all.filter((o) => o.src.set === 'faultbench'),
  ],
  ['shared real files (../shared/data/smartcomment)', all.filter((o) => o.src.set === 'shared')],
];
for (const [name, os] of others)
  if (os.length) sections.push(`### ${name}`, '', ...DETAIL_HEAD, ...detailRows('all', os), '');
if (memeval.length) {
  const adv = memeval.filter((o) => o.adversarial);
  sections.push(
    '### Real Mem0 failures labelled by people (../shared/data/memeval-dev)',
    '',
    'Type accuracy (ETA) is the figure here: the files label a stage, their op ids are approximate.',
    `Adversarial questions (LoCoMo category 5, empty golden answer): ${adv.length} of ${memeval.length}.`,
    '',
    ...DETAIL_HEAD,
    ...detailRows('all', memeval),
    ...detailRows(
      'not adversarial',
      memeval.filter((o) => !o.adversarial),
    ),
    ...(adv.length ? detailRows('adversarial', adv) : []),
    '',
  );
}
const calib = fitCalibration(all);
const heldoutCases = all.filter((o) => !isDev(o)).length;
sections.push(
  '### Calibration of `confidence` on the whole sets',
  '',
  `ECE over 10 bins, the accuracy of the most confident half (ties in random order) and the verdicts below ${UNCERTAIN_BELOW} (\`uncertain\`, with their ETA); cases with no verdict are left out. "shipped": \`confidence\` as the attributor gave it at this commit (its table, src/core/attribution/calibration-table.ts, was fitted on dev verdicts, so dev rows are partly in-sample). "fitted": the same calibration (\`confidenceFrom\`, its levels and weights) with a table fitted here on every dev verdict — the dev conversations of every judge rule and design, the fault-injected files of dev conversations, the shared files and memeval: ${calib.table.judge?.n ?? 0} judge and ${calib.table.prior?.n ?? 0} prior verdicts — each verdict scored out of fold: a dev one with the table of the other conversations (of every set), a held-out one (${HELDOUT.join(', ')}; ${heldoutCases} cases, fault-injected ones included) with the whole table, memeval (one conversation, one verdict a file) by ${HALVINGS} random halvings (seed ${HALVING_SEED}) with the table of the other half and every other set, the figures its means.${values['write-calibration'] ? ' This run wrote that whole table as the shipped one (`--write-calibration`): from the next commit on, "shipped" held-out figures are the "fitted" ones.' : ''}`,
  '',
  ...calibrationTable(
    llm,
    [
      ...others.map(([name, os]) => [name.replace(/ \(.*/, ''), os] as [string, Outcome[]]),
      ['real Mem0 failures labelled by people', memeval],
    ],
    calib.fitted,
  ),
  '',
  'The table fitted on every dev verdict (confidence: of a verdict with exactly these keys):',
  '',
  '| calibration key | dev verdicts | right | confidence |',
  '| --- | --- | --- | --- |',
  ...Object.entries(calib.table)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([k, v]) => `| ${k} | ${v.n} | ${v.right} | ${confidenceFrom(calib.table, levelsOf(k)).toFixed(2)} |`,
    ),
  '',
);
sections.push(
  '### Goals of issue 31, with 95 % intervals',
  '',
  `Each goal's figure on this run, its bar, and a 95 % percentile bootstrap interval (2,000 resamples of the cases, drawn within their labelled type; a calibration figure also draws one of the cross-fittings above, of which "value" is the mean). "the bar is inside the interval": cases like these could land on either side of it. Drawn within types, an interval cannot show how a type of one or two cases moves a macro figure (its smallest type is named); an ECE of a resample is biased upward, so its interval can sit above the value. Unseen design: every judge rule × design of the held-out conversations; its calibration figures read as in the table above (a table fitted on every dev verdict, the held-out conversations' design among them), and again with "design left out": a table fitted without any verdict of that design, under any judge rule (the fault-injected, shared and people's verdicts kept) — how \`confidence\` reads a design it has never seen.`,
  '',
  ...goalTable(issueGoals(all, calib)),
  '',
);
if (values['write-calibration'])
  writeCalibrationTable(ROOT, calib.table, 'bench/attribution-generalisation.ts --write-calibration');
const judgeGroups: [string, Outcome[]][] = [
  ...[...new Set(llm.map((o) => o.src.rule!))].map(
    (rule) =>
      [`LLM-written memories, judge rule ${rule}`, llm.filter((o) => o.src.rule === rule)] as [
        string,
        Outcome[],
      ],
  ),
  ...others.map(([name, os]) => [name.replace(/ \(.*/, ''), os] as [string, Outcome[]]),
  ['real Mem0 failures labelled by people', memeval],
];
sections.push(
  "### How often the fitted carrying test reproduces each trace's own judge",
  '',
  'Per trace, the carrying test is fitted to the judge verdicts on all its questions (passed and failed);',
  `a trace with fewer than ${MIN_VERDICTS} verdicts of either kind runs the documented prior. "reproduced": share of`,
  "the judge's verdicts the fitted test gives too; the rest are candidate judge errors or what the test cannot see.",
  '',
  ...judgeTable(judgeGroups),
  '',
);
const body = [
  'The evidence-flow attributor with its default matcher (word vectors), run as `memtrace bench --method',
  'evidence` runs it (the CLI setup, whole graphs), on labelled failures of judges and memory designs beside',
  'the one it was built with. ETA / OIA: error type / op exact; macro: mean over the types present. Cells',
  'per type: n: ETA / OIA. "naive": the first stage along the case path (extraction → update / deletion →',
  "retrieval → response) whose outputs hold fewer than half of the golden answer's content words",
  '(`naiveAttribution` in the script). LLM-written memories: `scripts/make-llm-bench.ts --all-rules`',
  "(labels by counterfactual repair, carrying judged by the same rule as the trace's judge);",
  'held out = LoCoMo conv-44, conv-47 and RealMem Liam_O_Connor.',
  '',
  ...sections,
  ...(unreadable.length ? [`Files that did not load (not scored): ${unreadable.join(', ')}.`, ''] : []),
  ...(unmeasured.length
    ? [
        `**Not measured in this run** (\`--cached-only\`): ${unmeasured.length} of ${srcs.length} graphs — ${[
          ...new Set(
            unmeasured.map((f) =>
              f
                .slice(OUT.length + 1)
                .split('/')
                .slice(0, 2)
                .join('/'),
            ),
          ),
        ].join(', ')}.`,
        '',
      ]
    : []),
  `${all.length} cases in ${(seconds / 60).toFixed(1)} min${values.cache ? ' (the files not cached yet; the rest was measured by earlier runs of this commit with `--cache`)' : ''}. Measured with \`npx tsx bench/attribution-generalisation.ts --sets ${values.sets}${values.baseline ? ` --baseline ${values.baseline}` : ''}${values.cache ? ' --cache' : ''}${values['write-calibration'] ? ' --write-calibration' : ''}\`. Machine: ${machine}.`,
].join('\n');
writeResultsSection('Attribution generalisation (judge rules, designs, human labels)', body);
console.log(body);
