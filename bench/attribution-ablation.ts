/**
 * Rules of the attributor's table turned off on every development case — not a sample — per
 * kind of data: each judge rule and each design of the LLM-written memories, each system of the
 * fault-injected benchmark, the shared real files, people's labels (memeval). The rules bench
 * (`bench/attribution-rules.ts`) ablates every rule on a sample of 24 cases a part, too few to
 * see a rule that changes one verdict in a hundred; this one settles the rules named with
 * `--off` on the whole dev sets. Held-out conversations (`HELDOUT`) are left out: a rule is
 * kept or dropped on development data alone.
 *
 * An evidence-flow rule (`FLOW_RULES`) is turned off where the trace's judge is learned (llm,
 * faultbench); a stage-walk rule in the walk: with the learned judge off on llm and faultbench
 * ("walk everywhere"), as it decides on shared and memeval. Writes the section "Attribution
 * rules on the whole dev sets" of bench/RESULTS.md.
 *
 * `npx tsx bench/attribution-ablation.ts [--off whole-memory,stating-evidence-first,no-golden-answer]
 *   [--sets llm,faultbench,shared,memeval] [--shard I/N | --report N]`
 *
 * `--shard I/N` scores every N-th file from the I-th (0-based) and keeps the outcomes in
 * bench/out/ablation/ under the commit; `--report N` writes RESULTS from the N shards of this
 * commit (run the shards in parallel, one per core). With neither, one process does both.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { judgePoolOf } from '../src/cli/attribution-setup.ts';
import { openTraceFile } from '../src/cli/files.ts';
import {
  attributeStageWalk,
  DEFAULT_STAGE_SETTINGS,
  FLOW_RULES,
  STAGE_RULES,
  type StageRuleId,
} from '../src/core/attribution/index.ts';
import { listCases, systemOf } from '../src/core/cases/index.ts';
import { caseKey, FILE_CHOICE, fileLabels, labelsFor } from '../src/core/labels/index.ts';
import { ERROR_TYPES } from '../src/core/trace/index.ts';
import { JUDGE_RULES } from '../src/systems/index.ts';
import { benchEvidenceSetup, conversationOf, HELDOUT, type Source, setSources } from './attribution-sets.ts';
import { machineFacts, writeResultsSection } from './stats-util.ts';

const { values } = parseArgs({
  options: {
    off: { type: 'string', default: 'whole-memory,stating-evidence-first,no-golden-answer' },
    sets: { type: 'string', default: 'llm,faultbench,shared,memeval' },
    shard: { type: 'string' },
    report: { type: 'string' },
  },
});
const ROOT = resolve(import.meta.dirname, '..');
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const SHARDS = join(ROOT, 'bench/out/ablation');
const started = performance.now();

const known = new Set<string>(STAGE_RULES.map((r) => r.id));
const offRules = values.off.split(',').filter(Boolean) as StageRuleId[];
const unknown = offRules.filter((r) => !known.has(r) || r === 'learned-judge' || r === 'states-answer');
if (unknown.length) {
  console.error(`--off: not a rule that can be turned off: ${unknown.join(', ')}`);
  process.exit(2);
}

/** One verdict of a variant: its type and op. */
interface Verdict {
  type: string | null;
  op: string | null;
}
/** One case under every variant. */
interface Outcome {
  set: string;
  rule: string | null;
  design: string | null;
  label: string;
  labelOp: string | null;
  emptyGolden: boolean;
  /** Variant name (`default`, `off:R`, `walk`, `walk off:R`) → verdict. */
  verdicts: Record<string, Verdict>;
}

/** Where the trace's judge is learned, evidence-flow decides by default and the walk runs with it off. */
const judged = (set: string) => set === 'llm' || set === 'faultbench';

/** The variants a set is scored under: the base each rule acts in, and that base with the rule off. */
function variantsOf(set: string): { name: string; off: StageRuleId[] }[] {
  const out = [{ name: 'default', off: [] as StageRuleId[] }];
  const flow = offRules.filter((r) => FLOW_RULES.includes(r));
  const walk = offRules.filter((r) => !FLOW_RULES.includes(r));
  if (!judged(set)) return [...out, ...walk.map((r) => ({ name: `off:${r}`, off: [r] }))];
  out.push(...flow.map((r) => ({ name: `off:${r}`, off: [r] })));
  if (walk.length) out.push({ name: 'walk', off: ['learned-judge'] });
  out.push(...walk.map((r) => ({ name: `walk off:${r}`, off: ['learned-judge', r] as StageRuleId[] })));
  return out;
}

/** Development files: held-out conversations left out. */
function devSources(): Source[] {
  const all = setSources(new Set(values.sets.split(',')), JUDGE_RULES);
  return all.filter((s) => s.part !== 'heldout' && !HELDOUT.includes(conversationOf(s.file)));
}

const setup = await benchEvidenceSetup();

async function scoreFile(src: Source, pool: Awaited<ReturnType<typeof judgePoolOf>>): Promise<Outcome[]> {
  const r = await openTraceFile(src.file);
  if (!r.ok) {
    console.error(`${src.file}: ${r.issues[0]?.message ?? 'unreadable'}`);
    return [];
  }
  const g = r.graph;
  const chosen = labelsFor(fileLabels(g.doc), FILE_CHOICE);
  const system = systemOf(g.doc, src.file);
  const out: Outcome[] = [];
  for (const c of listCases(g)) {
    const label = chosen.get(caseKey({ graphId: g.doc.graph_id, queryId: c.queryId }));
    if (!label) continue;
    const verdicts: Record<string, Verdict> = {};
    for (const v of variantsOf(src.set)) {
      const stages = { ...DEFAULT_STAGE_SETTINGS, off: new Set(v.off) };
      const a = await attributeStageWalk(
        { graph: g, case: c, system },
        { ...setup.evidenceFlow, judgePool: pool, stages },
      );
      verdicts[v.name] = { type: a.error_type, op: a.op_id };
    }
    out.push({
      set: src.set,
      rule: src.rule ?? null,
      design: src.design ?? null,
      label: label.errorType,
      labelOp: label.opId,
      emptyGolden: c.goldenAnswers.every((x) => !x.trim()),
      verdicts,
    });
  }
  return out;
}

/** Scores the files of one shard (every `n`-th from `i`), pooling each judge over all its files as `memtrace bench` does. */
async function scoreShard(i: number, n: number): Promise<Outcome[]> {
  const srcs = devSources();
  const pools = new Map<string, Awaited<ReturnType<typeof judgePoolOf>>>();
  const outcomes: Outcome[] = [];
  for (const [k, src] of srcs.entries()) {
    if (k % n !== i) continue;
    const poolKey = `${src.set}|${src.rule ?? ''}`;
    if (!pools.has(poolKey)) {
      const files = srcs.filter((s) => `${s.set}|${s.rule ?? ''}` === poolKey).map((s) => s.file);
      pools.set(poolKey, await judgePoolOf(files, setup.evidenceFlow));
    }
    const got = await scoreFile(src, pools.get(poolKey));
    outcomes.push(...got);
    process.stderr.write(`[${k + 1}/${srcs.length}] ${src.file}: ${got.length} cases\n`);
  }
  return outcomes;
}

const shardPath = (i: number, n: number) => join(SHARDS, `${HEAD}-${values.off}-${i}of${n}.json`);

// ---- the report -----------------------------------------------------------------------------

const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)} %`);

/** ETA, macro ETA (types present) and OIA of one variant over these outcomes. */
function scores(os: readonly Outcome[], variant: string) {
  const right = (o: Outcome) => o.verdicts[variant]?.type === o.label;
  const per = ERROR_TYPES.map((t) => os.filter((o) => o.label === t)).filter((x) => x.length > 0);
  return {
    eta: os.filter(right).length / os.length,
    macro: per.reduce((s, x) => s + x.filter(right).length / x.length, 0) / per.length,
    oia: os.filter((o) => o.verdicts[variant]?.op === o.labelOp).length / os.length,
  };
}

/** What turning the rule off did: verdicts changed, right verdicts lost and gained (type; op). */
function effect(os: readonly Outcome[], base: string, off: string) {
  const typeRight = (o: Outcome, v: string) => o.verdicts[v]?.type === o.label;
  const opRight = (o: Outcome, v: string) => o.verdicts[v]?.op === o.labelOp;
  const count = (f: (o: Outcome) => boolean) => os.filter(f).length;
  return {
    changed: count(
      (o) => o.verdicts[base]?.type !== o.verdicts[off]?.type || o.verdicts[base]?.op !== o.verdicts[off]?.op,
    ),
    lost: count((o) => typeRight(o, base) && !typeRight(o, off)),
    gained: count((o) => !typeRight(o, base) && typeRight(o, off)),
    opLost: count((o) => opRight(o, base) && !opRight(o, off)),
    opGained: count((o) => !opRight(o, base) && opRight(o, off)),
  };
}

/** The kinds of data a rule is judged on: judge rules and designs of llm, systems of faultbench, shared, memeval. */
function kindsOf(outcomes: readonly Outcome[]): { name: string; os: Outcome[] }[] {
  const kinds: { name: string; os: Outcome[] }[] = [];
  const add = (name: string, os: Outcome[]) => os.length && kinds.push({ name, os });
  const llm = outcomes.filter((o) => o.set === 'llm');
  for (const r of [...new Set(llm.map((o) => o.rule))].sort())
    add(
      `LLM-written, judge rule ${r}`,
      llm.filter((o) => o.rule === r),
    );
  for (const d of [...new Set(llm.map((o) => o.design))].sort())
    add(
      `LLM-written, design ${d}`,
      llm.filter((o) => o.design === d),
    );
  const fault = outcomes.filter((o) => o.set === 'faultbench');
  for (const d of [...new Set(fault.map((o) => o.design))].sort())
    add(
      `fault-injected, system ${d}`,
      fault.filter((o) => o.design === d),
    );
  add(
    'shared real files',
    outcomes.filter((o) => o.set === 'shared'),
  );
  add(
    "people's labels (memeval dev)",
    outcomes.filter((o) => o.set === 'memeval'),
  );
  return kinds;
}

/** Helps (+), hurts (−) or no change (0): right types lost when off, else right ops lost. */
function sign(e: ReturnType<typeof effect>): '+' | '−' | '0' {
  const net = e.lost - e.gained || e.opLost - e.opGained;
  return net > 0 ? '+' : net < 0 ? '−' : '0';
}

function ruleTable(rule: StageRuleId, outcomes: readonly Outcome[]): string[] {
  const lines = [
    `### \`${rule}\` off`,
    '',
    '| kind of data | cases | empty golden answer | base | changed | right types lost / gained when off | right ops lost / gained | ETA base → off | macro ETA base → off | OIA base → off | the rule |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const tally = { '+': [] as string[], '−': [] as string[], '0': [] as string[] };
  const flow = FLOW_RULES.includes(rule);
  // An evidence-flow rule does not act where the walk decides (shared, memeval): not scored there.
  for (const k of kindsOf(outcomes).filter((k) => !flow || judged(k.os[0].set))) {
    const base = judged(k.os[0].set) && !flow ? 'walk' : 'default';
    const off = base === 'walk' ? `walk off:${rule}` : `off:${rule}`;
    const e = effect(k.os, base, off);
    const a = scores(k.os, base);
    const b = scores(k.os, off);
    const s = sign(e);
    tally[s].push(k.name);
    lines.push(
      `| ${k.name} | ${k.os.length} | ${k.os.filter((o) => o.emptyGolden).length} | ${base === 'walk' ? 'walk (learned judge off)' : 'default'} | ${e.changed} | ${e.lost} / ${e.gained} | ${e.opLost} / ${e.opGained} | ${pct(a.eta)} → ${pct(b.eta)} | ${pct(a.macro)} → ${pct(b.macro)} | ${pct(a.oia)} → ${pct(b.oia)} | ${s === '+' ? 'helps' : s === '−' ? 'hurts' : 'no change'} |`,
    );
  }
  lines.push(
    '',
    `${flow ? 'Evidence-flow only: not run on the shared files or memeval, where the stage walk decides. ' : ''}Helps on ${tally['+'].length} kind(s)${tally['+'].length ? `: ${tally['+'].join('; ')}` : ''}. Hurts on ${tally['−'].length}${tally['−'].length ? `: ${tally['−'].join('; ')}` : ''}. No verdict changed on ${tally['0'].length}.`,
    '',
  );
  return lines;
}

function report(outcomes: readonly Outcome[], seconds: number) {
  const lines = [
    'Each rule named with `--off` turned off on every development case (held-out conversations conv-44, conv-47 and',
    'Liam_O_Connor left out), per kind of data: the judge rules and the designs of the LLM-written memories (each',
    "pooling the other), the systems of the fault-injected benchmark, the shared real files and people's labels of",
    "real Mem0 failures. An evidence-flow rule is turned off in the default (the trace's judge learned); a stage-walk",
    'rule in the walk — with the learned judge off on LLM-written and fault-injected traces ("walk everywhere"), as',
    'it decides on the shared files and people\'s labels. "the rule": helps when turning it off loses more right',
    'error types than it gains (on a tie, more right ops), hurts when the reverse. The rules bench ablates every',
    'rule on a sample; this settles the named ones on the whole dev sets.',
    '',
  ];
  for (const rule of offRules) lines.push(...ruleTable(rule, outcomes));
  lines.push(
    `${outcomes.length} cases in ${(seconds / 60).toFixed(1)} min (shards summed). Measured with \`npx tsx bench/attribution-ablation.ts --off ${values.off} --sets ${values.sets}\`. Machine: ${machineFacts()}.`,
  );
  writeResultsSection('Attribution rules on the whole dev sets', lines.join('\n'));
  console.log(lines.join('\n'));
}

// ---- run ------------------------------------------------------------------------------------

interface ShardFile {
  seconds: number;
  outcomes: Outcome[];
}

if (values.shard) {
  const [i, n] = values.shard.split('/').map(Number);
  const outcomes = await scoreShard(i, n);
  mkdirSync(SHARDS, { recursive: true });
  const tmp = `${shardPath(i, n)}.tmp`;
  writeFileSync(tmp, JSON.stringify({ seconds: (performance.now() - started) / 1000, outcomes }));
  renameSync(tmp, shardPath(i, n));
  console.error(`shard ${i}/${n}: ${outcomes.length} cases`);
} else if (values.report) {
  const n = Number(values.report);
  const shards: ShardFile[] = [];
  for (let i = 0; i < n; i++) {
    if (!existsSync(shardPath(i, n))) {
      console.error(`no shard ${i}/${n} of this commit and --off: run --shard ${i}/${n} first`);
      process.exit(1);
    }
    shards.push(JSON.parse(readFileSync(shardPath(i, n), 'utf8')) as ShardFile);
  }
  report(
    shards.flatMap((s) => s.outcomes),
    shards.reduce((t, s) => t + s.seconds, 0),
  );
} else {
  const outcomes = await scoreShard(0, 1);
  report(outcomes, (performance.now() - started) / 1000);
}
