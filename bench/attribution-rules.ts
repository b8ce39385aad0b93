/**
 * The deterministic attributor's rule table, measured: per labelled set, the default verdicts
 * (dev and held-out parts apart, per type, micro and macro), the naive stage rule, the effect
 * of turning each rule off, the thresholds chosen on the dev parts and scored on the others,
 * and the calibration of `confidence` (ECE over 10 bins, accuracy of the most confident half).
 * Writes the section "Attribution rules, ablation and calibration" of bench/RESULTS.md (its
 * calibration rows are fitted on this sample; the shipped table is fitted on every dev verdict
 * by bench/attribution-generalisation.ts --write-calibration).
 *
 * `npx tsx bench/attribution-rules.ts [--sets llm,faultbench,shared,memeval]
 *   [--rules offline,containment,token-f1,half-words] [--per-design 1] [--fault-files 3]
 *   [--cases-per-file 20]`
 *
 * Sets: `memeval` (people's labels of real Mem0 failures; type accuracy is the figure), `shared`
 * (the smartcomment toolkit's own files), `llm` (LLM-written memories under each judge rule,
 * `scripts/make-llm-bench.ts --all-rules`), `faultbench` (`scripts/make-fault-bench.ts`).
 * `--per-design N` scores N dev and N held-out files per (judge rule, design), `--fault-files N`
 * (default 3) N fault-injected files per system and fault kind: the full sets take hours on two cores. On `llm` and `faultbench` the trace's judge
 * is learned, so the default runs evidence-flow (`learned-judge`); the stage walk's rules are
 * ablated there with `learned-judge` off ("walk everywhere"), to see them on data made otherwise.
 * `--default-only` scores the default alone (a quick check: no ablation); `--outcomes FILE` writes
 * the default verdicts with their calibration keys as JSON (to study the calibration).
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { judgePoolOf } from '../src/cli/attribution-setup.ts';
import { openTraceFile } from '../src/cli/files.ts';
import {
  type Attribution,
  attributeStageWalk,
  type CalibrationTable,
  calibrationKey,
  calibrationKeys,
  confidenceFrom,
  DEFAULT_STAGE_SETTINGS,
  FLOW_RULES,
  PRIOR_WEIGHT,
  SCORE_BANDS,
  STAGE_RULES,
  type StageRuleId,
  type StageSettings,
  UNCERTAIN_BELOW,
} from '../src/core/attribution/index.ts';
import { casePath, listCases, systemOf, type TraceCase } from '../src/core/cases/index.ts';
import { opStructure, type TraceGraph } from '../src/core/graph/index.ts';
import { caseKey, FILE_CHOICE, fileLabels, labelsFor } from '../src/core/labels/index.ts';
import { ERROR_TYPES } from '../src/core/trace/index.ts';
import { FAULT_KINDS, JUDGE_RULES } from '../src/systems/index.ts';
import {
  benchEvidenceSetup,
  memevalNaive,
  naiveAttribution,
  type Source,
  setSources,
} from './attribution-sets.ts';
import { halvings, levelsOf, MEMEVAL_HALVINGS, outOfFold, tableOf } from './calibration-fit.ts';
import { calibrationStats, machineFacts, writeResultsSection } from './stats-util.ts';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'llm,faultbench,shared,memeval' },
    rules: { type: 'string', default: JUDGE_RULES.join(',') },
    'per-design': { type: 'string', default: '1' },
    'fault-files': { type: 'string', default: '3' },
    'cases-per-file': { type: 'string', default: '20' },
    'default-only': { type: 'boolean', default: false },
    outcomes: { type: 'string' },
  },
});
const machine = machineFacts();
const started = performance.now();

/** A variant of the settings: the default, a rule off, or another threshold. */
interface Variant {
  name: string;
  settings: StageSettings;
}
const on = (off: StageRuleId[], more: Partial<StageSettings> = {}): StageSettings => ({
  ...DEFAULT_STAGE_SETTINGS,
  ...more,
  off: new Set(off),
});
const WALK_RULES = STAGE_RULES.map((r) => r.id).filter(
  (id) => id !== 'learned-judge' && id !== 'states-answer' && !FLOW_RULES.includes(id),
);
/** The thresholds the dev parts choose among (the default's among them). */
const TOPIC_CHOICES = [0, 1, 2, 3];
const PREMISE_CHOICES = [0.34, 0.5, 0.67];
const WHOLE_CHOICES = [6, 10, 15, 25];
/** Variants on traces whose judge cannot be learned (the stage walk decides). */
const PRIOR_VARIANTS: Variant[] = [
  { name: 'default', settings: on([]) },
  ...WALK_RULES.map((id) => ({ name: `off:${id}`, settings: on([id]) })),
  ...TOPIC_CHOICES.filter((n) => n !== DEFAULT_STAGE_SETTINGS.minTopicWords).map((n) => ({
    name: `topic=${n}`,
    settings: on([], { minTopicWords: n }),
  })),
  ...PREMISE_CHOICES.filter((x) => x !== DEFAULT_STAGE_SETTINGS.minPremise).map((x) => ({
    name: `premise=${x}`,
    settings: on([], { minPremise: x }),
  })),
];
/** On traces with a learned judge: the default, evidence-flow's rules off or moved, and the walk everywhere with its variants. */
const JUDGED_VARIANTS: Variant[] = [
  { name: 'default', settings: on([]) },
  ...FLOW_RULES.map((id) => ({ name: `off:${id}`, settings: on([id]) })),
  ...WHOLE_CHOICES.filter((n) => n !== DEFAULT_STAGE_SETTINGS.wholeMemorySentences).map((n) => ({
    name: `whole=${n}`,
    settings: on([], { wholeMemorySentences: n }),
  })),
  ...PRIOR_VARIANTS.map((v) => ({
    name: v.name === 'default' ? 'walk' : `walk ${v.name}`,
    settings: { ...v.settings, off: new Set([...v.settings.off, 'learned-judge' as const]) },
  })),
];

interface Outcome {
  src: Source;
  variant: string;
  label: string;
  predicted: string | null;
  naive: string | null;
  /** The naive rule with MemEval's stage texts (`memevalNaive`). */
  naiveMemeval: string | null;
  /** The decider's calibration key (the previous table's key). */
  key: string;
  /** The verdict's calibration keys, coarse to fine (`calibrationKeys`). */
  keys: string[];
  /** The verdict's type is the label's. */
  right: boolean;
  confidence: number;
  uncertain: boolean;
  adversarial: boolean;
  /** The verdict's op is the label's. */
  opRight: boolean;
  /** The verdict contradicts its own evidence (only checked on the default's verdicts). */
  contradicts: boolean;
}

/** A Retrieval verdict quoting a line the answer op's context holds, or a quoted unit with confidence 0. */
function contradicts(g: TraceGraph, c: TraceCase, a: Attribution): boolean {
  const held = a.verdict_evidence?.held;
  if (!held) return false;
  if ((a.confidence ?? 0) <= 0) return true;
  if (a.error_type !== 'RetrievalError') return false;
  const answerOp = casePath(g, c).answerOp;
  if (answerOp < 0) return false;
  return opStructure(g, answerOp).inputs.some((v) => g.varValue[v].includes(held.text));
}

/** A fault-injected file's kind: the fault injected into it (`conv-26-update-conv-26-qa-17.json`), else `base`. */
function faultKind(file: string): string {
  return FAULT_KINDS.find((k) => basename(file).includes(`-${k}-`)) ?? 'base';
}

/** `n` of `items`, spread evenly over them (the first, then every len/n-th). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}

/**
 * N files per judge rule, design and part of the LLM-written memories; `--fault-files` per system
 * and fault kind of the fault-injected benchmark (spread over its conversations; an injected file
 * carries the one case its fault broke); every file of the other sets.
 */
function sample(all: Source[], n: number, faultFiles: number): Source[] {
  const groups = new Map<string, Source[]>();
  for (const s of all) {
    const design = s.set === 'faultbench' ? `${s.design}|${faultKind(s.file)}` : s.design;
    const g = `${s.set}|${s.rule ?? ''}|${design ?? basename(s.file).split('-')[0]}|${s.part ?? ''}`;
    groups.set(g, [...(groups.get(g) ?? []), s]);
  }
  return [...groups.values()].flatMap((g) => {
    if (g[0].set === 'faultbench') return spread(g, faultFiles);
    return g[0].set === 'llm' ? g.slice(0, n) : g;
  });
}

const setup = await benchEvidenceSetup();

async function scoreFile(src: Source, pool: Awaited<ReturnType<typeof judgePoolOf>>): Promise<Outcome[]> {
  const r = await openTraceFile(src.file);
  if (!r.ok) return [];
  const g = r.graph;
  const chosen = labelsFor(fileLabels(g.doc), FILE_CHOICE);
  const system = systemOf(g.doc, src.file);
  const all = src.set === 'llm' || src.set === 'faultbench' ? JUDGED_VARIANTS : PRIOR_VARIANTS;
  const variants = values['default-only'] ? all.slice(0, 1) : all;
  const out: Outcome[] = [];
  const cap = src.set === 'llm' || src.set === 'faultbench' ? Number(values['cases-per-file']) : Infinity;
  let taken = 0;
  for (const c of listCases(g)) {
    const label = chosen.get(caseKey({ graphId: g.doc.graph_id, queryId: c.queryId }));
    if (!label || taken++ >= cap) continue;
    const naive = naiveAttribution(g, c).type;
    const naiveMemeval = memevalNaive(g, c).type;
    for (const v of variants) {
      const a = await attributeStageWalk(
        { graph: g, case: c, system },
        { ...setup.evidenceFlow, judgePool: pool, stages: v.settings },
      );
      out.push({
        src,
        variant: v.name,
        label: label.errorType,
        predicted: a.error_type,
        naive,
        naiveMemeval,
        key: calibrationKey(a.rules ?? [], a.answer_rule?.source ?? 'prior'),
        keys: a.calibration_keys ?? calibrationKeys(a.rules ?? [], a.answer_rule?.source ?? 'prior'),
        right: a.error_type === label.errorType,
        confidence: a.confidence ?? 0,
        uncertain: a.uncertain ?? false,
        adversarial: c.goldenAnswers.every((x) => !x.trim()),
        opRight: a.op_id !== null && a.op_id === label.opId,
        contradicts: v.name === 'default' && contradicts(g, c, a),
      });
    }
  }
  return out;
}

// ---- scores ---------------------------------------------------------------------------------

const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)} %`);
function accuracy(os: Outcome[], pick: (o: Outcome) => string | null = (o) => o.predicted) {
  const right = (o: Outcome) => pick(o) === o.label;
  const micro = os.filter(right).length / os.length;
  const per = ERROR_TYPES.map((t) => os.filter((o) => o.label === t)).filter((x) => x.length > 0);
  const macro = per.reduce((s, x) => s + x.filter(right).length / x.length, 0) / per.length;
  const cells = ERROR_TYPES.map((t) => {
    const x = os.filter((o) => o.label === t);
    return x.length ? `${x.length}: ${pct(x.filter(right).length / x.length)}` : '—';
  });
  const oia = os.filter((o) => o.opRight).length / os.length;
  return { micro, macro, oia, cells };
}

/** The previous calibration: the decider's key alone, add-one smoothed (kept to compare). */
const before = (t: CalibrationTable, o: Outcome) =>
  t[o.key] ? (t[o.key].right + 1) / (t[o.key].n + 2) : 0.5;
/** The calibration now: every level, each shrunk toward the one above (`confidenceFrom`). */
const after = (t: CalibrationTable, o: Outcome) => confidenceFrom(t, o.keys);
/** ECE over 10 bins and the accuracy of the most confident half, under confidences `cs`. */
function calibration(os: Outcome[], cs: number[]) {
  return calibrationStats(
    os.map((o, i) => ({ right: o.predicted === o.label, confidence: cs[i] })),
    UNCERTAIN_BELOW,
  );
}

const { count: HALVINGS, seed: HALVING_SEED } = MEMEVAL_HALVINGS;

// ---- run ------------------------------------------------------------------------------------

const wanted = new Set(values.sets.split(','));
const srcs = sample(
  setSources(wanted, values.rules.split(',')),
  Number(values['per-design']),
  Number(values['fault-files']),
);
const outcomes: Outcome[] = [];
const pools = new Map<string, Awaited<ReturnType<typeof judgePoolOf>>>();
for (const [i, src] of srcs.entries()) {
  const poolKey = `${src.set}|${src.rule ?? ''}`;
  if (!pools.has(poolKey))
    pools.set(
      poolKey,
      await judgePoolOf(
        srcs.filter((s) => `${s.set}|${s.rule ?? ''}` === poolKey).map((s) => s.file),
        setup.evidenceFlow,
      ),
    );
  const got = await scoreFile(src, pools.get(poolKey));
  for (const o of got) outcomes.push(o);
  process.stderr.write(`[${i + 1}/${srcs.length}] ${src.file}: ${got.length} verdicts\n`);
}

const groupName = (s: Source) => (s.set === 'llm' ? `llm ${s.rule}` : s.set);
const partOf = (o: Outcome) => o.src.part ?? (o.src.set === 'memeval' ? 'people (dev conversation)' : 'all');
const groups = [...new Set(outcomes.map((o) => `${groupName(o.src)}|${partOf(o)}`))].sort();
const of = (g: string, variant: string) =>
  outcomes.filter((o) => `${groupName(o.src)}|${partOf(o)}` === g && o.variant === variant);

// Calibration: fitted on the dev parts (llm dev, faultbench, shared, memeval); a dev verdict is
// scored with the table of every other file (memeval: one case a file, so leave-one-out), a
// held-out one with the whole dev table.
const defaults = outcomes.filter((o) => o.variant === 'default');
const fitted = defaults.filter((o) => o.src.part === 'dev' || o.src.set !== 'llm');
const devTable = tableOf(fitted);

const lines: string[] = [];
lines.push(
  'The deterministic attributor (`attributeStageWalk`, `memtrace attribute --method evidence`): the rule table of',
  "`src/core/attribution/rules.ts` (`STAGE_RULES`). Where the trace's judge can be learned (`learned-judge`) it runs",
  "evidence-flow; elsewhere (people's labels, single verdicts) the stage walk decides. ETA = error-type accuracy; macro = mean",
  'over the types present; cells per type are n: ETA. "naive": MemEval\'s stage order with a lexical "states the answer" test',
  "(the first stage along the case path whose outputs hold fewer than half of the golden answer's content words).",
  `Files: every memeval and shared file; ${values['per-design']} dev and ${values['per-design']} held-out file(s) per judge rule and design of the LLM-written memories, ${values['fault-files']} per system and fault kind (base run or the fault injected) of the fault-injected benchmark (\`--fault-files\`, spread over its conversations: ${srcs.filter((x) => x.set === 'faultbench').length} files of ${[...new Set(srcs.filter((x) => x.set === 'faultbench').map((x) => x.design))].join(', ') || 'no system'}), at most ${values['cases-per-file']} labelled cases of each of those files (\`--cases-per-file\`).`,
  '',
  '### Default verdicts and the naive stage rule',
  '',
  '"naive (MemEval texts)": the same lexical test and order over the texts MemEval\'s staged diagnosis shows each stage (`memevalNaive`): the extraction of every store that read the case\'s messages, with the time stamps of those messages ("initial_results (and time_stamp if needed)"); what the path\'s updates wrote, with the time stamps it names; what retrieval returned.',
  '',
  '| set | part | n | ETA | macro ETA | OIA | naive ETA | naive macro | naive (MemEval texts) ETA | naive (MemEval texts) macro | contradictions | Extraction | Update | Deletion | Retrieval | Response |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
);
/** A row of default verdicts against both naive rules. */
const defaultRow = (set: string, part: string, os: Outcome[]) => {
  const a = accuracy(os);
  const n = accuracy(os, (o) => o.naive);
  const m = accuracy(os, (o) => o.naiveMemeval);
  return `| ${set} | ${part} | ${os.length} | ${pct(a.micro)} | ${pct(a.macro)} | ${pct(a.oia)} | ${pct(n.micro)} | ${pct(n.macro)} | ${pct(m.micro)} | ${pct(m.macro)} | ${os.filter((o) => o.contradicts).length} | ${a.cells.join(' | ')} |`;
};
for (const g of groups) {
  const os = of(g, 'default');
  if (os.length === 0) continue;
  const [set, part] = g.split('|');
  lines.push(defaultRow(set, part, os));
  if (set === 'memeval')
    lines.push(
      defaultRow(
        set,
        'not adversarial',
        os.filter((o) => !o.adversarial),
      ),
    );
}

// Per design (the LLM-written memories' designs, judge rules pooled; the fault-injected benchmark's systems).
lines.push(
  '',
  '### Per design (judge rules pooled)',
  '',
  '| set | design | part | n | ETA | macro ETA | OIA | naive ETA | naive macro | naive (MemEval texts) ETA | naive (MemEval texts) macro | contradictions | Extraction | Update | Deletion | Retrieval | Response |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
);
const designOf = (o: Outcome) => `${o.src.set}|${o.src.design}|${partOf(o)}`;
const designs = [...new Set(defaults.filter((o) => o.src.design !== undefined).map(designOf))].sort();
for (const d of designs) {
  const [set, design, part] = d.split('|');
  lines.push(
    defaultRow(
      set,
      `${design} | ${part}`,
      defaults.filter((o) => designOf(o) === d),
    ),
  );
}

lines.push(
  '',
  '### Ablation: each rule off (ETA / macro ETA / OIA, change against the default of its row)',
  '',
);
const variantNames = [...new Set(outcomes.map((o) => o.variant))].filter((v) => v !== 'default');
lines.push(
  `| set | part | default | ${variantNames.join(' | ')} |`,
  `| --- | --- | --- | ${variantNames.map(() => '---').join(' | ')} |`,
);
for (const g of groups) {
  const base = accuracy(of(g, 'default'));
  const walkBase = of(g, 'walk').length ? accuracy(of(g, 'walk')) : base;
  const cells = variantNames.map((v) => {
    const os = of(g, v);
    if (os.length === 0) return '—';
    const a = accuracy(os);
    const ref = v.startsWith('walk ') ? walkBase : base;
    const d = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
    return `${pct(a.micro)} / ${pct(a.macro)} / ${pct(a.oia)} (${d(a.micro - ref.micro)} / ${d(a.macro - ref.macro)} / ${d(a.oia - ref.oia)})`;
  });
  const [set, part] = g.split('|');
  lines.push(
    `| ${set} | ${part} | ${pct(base.micro)} / ${pct(base.macro)} / ${pct(base.oia)} | ${cells.join(' | ')} |`,
  );
}

// Thresholds: chosen on the dev parts (walk everywhere on llm and faultbench, default elsewhere, memeval left out), scored on the rest.
// Each kind of data weighs the same (the mean of its macro ETA): pooled, the largest set (our own
// fault generator's) would choose alone.
const thresholdChoice = (names: string[], dflt = 'walk') => {
  // Only parts that have every candidate compete (the walk's variants do not run where it decides anyway).
  const devGroups = groups.filter((g) => {
    const [set, part] = g.split('|');
    const dev = set !== 'memeval' && (part === 'dev' || set === 'shared' || set === 'faultbench');
    return dev && names.every((n) => of(g, n).length > 0);
  });
  const meanMacro = (v: string) => {
    const macros = devGroups
      .map((g) => of(g, v))
      .filter((os) => os.length > 0)
      .map((os) => accuracy(os).macro);
    return macros.reduce((a, b) => a + b, 0) / macros.length;
  };
  const scored = names.map((n) => ({ n, s: meanMacro(n), parts: devGroups.length }));
  // A tie keeps the default: a threshold moves only on evidence.
  return scored.sort((a, b) => b.s - a.s || Number(b.n === dflt) - Number(a.n === dflt))[0];
};
const named = (prefix: string, xs: number[], dflt: number) =>
  xs.map((x) => (x === dflt ? 'walk' : `walk ${prefix}=${x}`));
const topic = thresholdChoice(named('topic', TOPIC_CHOICES, DEFAULT_STAGE_SETTINGS.minTopicWords));
const premise = thresholdChoice(named('premise', PREMISE_CHOICES, DEFAULT_STAGE_SETTINGS.minPremise));
const whole = thresholdChoice(
  WHOLE_CHOICES.map((n) => (n === DEFAULT_STAGE_SETTINGS.wholeMemorySentences ? 'default' : `whole=${n}`)),
  'default',
);
const defaultChosen = topic?.n === 'walk' && premise?.n === 'walk' && whole?.n === 'default';
lines.push(
  '',
  '### Thresholds chosen on the dev parts, scored elsewhere',
  '',
  `Chosen by the mean of the macro ETA over the dev parts that ran every candidate (llm, one per judge rule, and faultbench: the walk's thresholds are tried with the walk everywhere, which does not run on shared; each part weighs the same; memeval never chooses): topic-anchor → \`${topic?.n ?? '—'}\` (mean dev macro ${pct(topic?.s ?? Number.NaN)} over ${topic?.parts ?? 0} parts), premises → \`${premise?.n ?? '—'}\` (${pct(premise?.s ?? Number.NaN)}); \`walk\` is the default (topic ${DEFAULT_STAGE_SETTINGS.minTopicWords}, premise ${DEFAULT_STAGE_SETTINGS.minPremise}). whole-memory (evidence-flow's, among ${WHOLE_CHOICES.join(', ')} sentences) → \`${whole?.n ?? '—'}\` (${pct(whole?.s ?? Number.NaN)} over ${whole?.parts ?? 0} parts); \`default\` is ${DEFAULT_STAGE_SETTINGS.wholeMemorySentences}.`,
  defaultChosen
    ? 'The default is what the dev parts choose; the default row of each held-out part and of memeval above is scored with thresholds it did not choose.'
    : '**The default is not what the dev parts choose now**: set the chosen thresholds in `DEFAULT_STAGE_SETTINGS` and run again.',
);

const w = PRIOR_WEIGHT;
lines.push(
  '',
  '### Calibration of `confidence` (fitted on the dev parts; a dev verdict scored with the table of every other file, memeval cross-fitted by halves)',
  '',
  `Before: the table keyed by decider and source (\`decider|judge\` / \`decider|prior\`), add-one smoothed. After: three levels, coarse to fine — the source, the decider, and for an evidence-flow verdict the band of its own score (bands from ${SCORE_BANDS.join(', ')}) — each level's rate shrunk toward the level above with the weight of ${w.decider} (decider) / ${w.band} (band) verdicts of it, the source toward one in two with the weight of ${w.source}. Both are scored here the same way (before this change the dev rows were scored with the table fitted on them). "uncertain": verdicts below ${UNCERTAIN_BELOW}, and the ETA among them. Memeval holds one verdict a file: it is scored by ${HALVINGS} random halvings (seed ${HALVING_SEED}; each half with the table of the other half and every other set; the figures are means over the halvings), not by leaving one verdict out, which puts each verdict's own label into its confidence — without a wrong verdict its cell looks better, without a right one worse — so wrong verdicts ranked first within their cell and a small cell split across bins by its labels (the leakage of leave-one-out target encoding). The most confident half takes verdicts of equal confidence in random order: a group of ties straddling the half counts by its own accuracy.`,
  '',
  '| set | part | n | ETA | ECE (10 bins) before | after | ETA of the most confident half before | after | uncertain before | after |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
);
type Score = (t: CalibrationTable, o: Outcome) => number;

/**
 * The confidences of a part's verdicts under tables that never saw them, one list per repetition.
 * A held-out verdict: the whole dev table; a dev verdict: the table of every other file. Memeval
 * holds one verdict a file, so it is cross-fitted by `HALVINGS` random halvings instead, each half
 * scored with the table of the other half and every other set (see `halvings`).
 */
function crossFitted(os: Outcome[], score: Score): number[][] {
  if (!os.every((o) => o.src.set === 'memeval')) return [outOfFold(os, fitted, (o) => o.src.file, score)];
  return halvings(os.length, HALVINGS, HALVING_SEED).map((first) => {
    const half = new Map(os.map((o, i) => [o, first[i] ? 'first half' : 'second half']));
    return outOfFold(os, fitted, (o) => half.get(o) ?? o.src.file, score);
  });
}

/** `calibration` averaged over the repetitions of `crossFitted`. */
function calibrationOf(os: Outcome[], score: Score) {
  const reps = crossFitted(os, score).map((cs) => calibration(os, cs));
  const mean = (f: (x: (typeof reps)[number]) => number) => reps.reduce((s, x) => s + f(x), 0) / reps.length;
  const unsure = mean((x) => x.unsure);
  const right = mean((x) => x.unsureRight);
  const count = reps.length === 1 ? String(unsure) : unsure.toFixed(1);
  return {
    ece: mean((x) => x.ece),
    topHalf: mean((x) => x.topHalf),
    uncertain: `${count}${unsure ? `: ${pct(right / unsure)}` : ''}`,
  };
}

/** Memeval scored by leave-one-out, as before the cross-fitting (shown for comparison). */
function leaveOneOut(os: Outcome[]) {
  return calibration(
    os,
    os.map((o) => after(tableOf(fitted.filter((x) => x !== o)), o)),
  );
}

const calibrationRow = (set: string, part: string, os: Outcome[]) => {
  const b = calibrationOf(os, before);
  const c = calibrationOf(os, after);
  const eta = os.filter((o) => o.predicted === o.label).length / os.length;
  return `| ${set} | ${part} | ${os.length} | ${pct(eta)} | ${b.ece.toFixed(3)} | ${c.ece.toFixed(3)} | ${pct(b.topHalf)} | ${pct(c.topHalf)} | ${b.uncertain} | ${c.uncertain} |`;
};
for (const g of groups) {
  const os = of(g, 'default');
  if (os.length === 0) continue;
  const [set, part] = g.split('|');
  lines.push(calibrationRow(set, part, os));
}
const memeval = defaults.filter((o) => o.src.set === 'memeval');
if (memeval.length) {
  const loo = leaveOneOut(memeval);
  lines.push(
    '',
    `Memeval scored by leave-one-out instead (as before; each verdict's table lacks only itself): ECE ${loo.ece.toFixed(3)}, most confident half ${pct(loo.topHalf)}.`,
  );
}
lines.push('', '| calibration key | dev verdicts | right | confidence |', '| --- | --- | --- | --- |');
for (const [k, v] of Object.entries(devTable).sort())
  lines.push(`| ${k} | ${v.n} | ${v.right} | ${confidenceFrom(devTable, levelsOf(k)).toFixed(2)} |`);
const minutes = (performance.now() - started) / 60000;
lines.push(
  '',
  `${outcomes.length} verdicts (${defaults.length} cases × variants) in ${minutes.toFixed(1)} min. Measured with \`npx tsx bench/attribution-rules.ts --sets ${values.sets} --per-design ${values['per-design']} --fault-files ${values['fault-files']} --cases-per-file ${values['cases-per-file']}\`. Machine: ${machine}.`,
);
if (values.outcomes)
  writeFileSync(values.outcomes, JSON.stringify(defaults.map(({ src, ...o }) => ({ ...src, ...o }))));
writeResultsSection('Attribution rules, ablation and calibration', lines.join('\n'));
console.log(lines.join('\n'));
