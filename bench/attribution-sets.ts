/**
 * The labelled sets the attribution benchmarks score on, and the naive stage rule they are
 * compared with (shared by bench/attribution-generalisation.ts and bench/attribution-rules.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { evidenceSetup } from '../src/cli/attribution-setup.ts';
import { casePath, type TraceCase } from '../src/core/cases/index.ts';
import { opStructure, type TraceGraph } from '../src/core/graph/index.ts';
import { isMessageCategory } from '../src/core/trace/index.ts';
import { answerWords, type LlmBenchSummary } from '../src/systems/index.ts';
import { jsonFiles } from './stats-util.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench/out');
const SHARED = resolve(ROOT, '../shared/data');

/** A file to attribute and where its cases are reported. */
export interface Source {
  file: string;
  set: string;
  rule?: string;
  design?: string;
  part?: 'dev' | 'heldout';
}

/** The benchmark's held-out conversations (`make-bench --heldout`'s default). */
export const HELDOUT = ['conv-44', 'conv-47', 'Liam_O_Connor'];

/**
 * The conversation a labelled file was made from, by its name: `conv-26-base.json` → `conv-26`,
 * `Liam_O_Connor-deletion-….json` → `Liam_O_Connor`, `memeval-mem0-c1-q000.json` → `memeval c1`.
 */
export function conversationOf(file: string): string {
  const name = basename(file);
  const memeval = /^memeval-[^-]+-(c\d+)-/.exec(name);
  if (memeval) return `memeval ${memeval[1]}`;
  return /^(conv-\d+|[A-Za-z_]+?)-/.exec(name)?.[1] ?? name;
}

/** One rule's graphs by its summary's manifest, else (generation unfinished) by its folders. */
export function llmSources(rule: string): Source[] {
  const dir = join(OUT, `llm-bench-${rule}`);
  if (existsSync(join(dir, 'summary.json'))) {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as LlmBenchSummary;
    return s.manifest.map((m) => ({
      file: join(dir, m.file),
      set: 'llm',
      rule,
      design: m.split,
      part: m.part,
    }));
  }
  if (!existsSync(dir)) {
    console.error(`no ${dir}: run npx tsx scripts/make-llm-bench.ts --judge-rule ${rule}`);
    return [];
  }
  console.error(`${dir} has no summary.json (still being written?): its folders are read`);
  return jsonFiles(dir).map((file) => {
    const design = file.slice(dir.length + 1).split('/')[0];
    const conv = file.split('/').pop() ?? '';
    const part = HELDOUT.some((h) => conv.startsWith(`${h}-`)) ? 'heldout' : 'dev';
    return { file, set: 'llm', rule, design, part };
  });
}

/** The labelled files of the sets wanted (`llm` under each of `rules`). */
export function setSources(wanted: ReadonlySet<string>, rules: readonly string[]): Source[] {
  const out: Source[] = [];
  if (wanted.has('llm')) for (const rule of rules) out.push(...llmSources(rule));
  if (wanted.has('faultbench'))
    out.push(
      ...jsonFiles(join(OUT, 'faultbench')).map((file) => ({
        file,
        set: 'faultbench',
        // The system (its folder) is the design.
        design: file.slice(join(OUT, 'faultbench').length + 1).split('/')[0],
      })),
    );
  if (wanted.has('shared'))
    out.push(...jsonFiles(join(SHARED, 'smartcomment')).map((file) => ({ file, set: 'shared' })));
  if (wanted.has('memeval'))
    out.push(...jsonFiles(join(SHARED, 'memeval-dev')).map((file) => ({ file, set: 'memeval' })));
  return out;
}

// ---- the naive baseline ------------------------------------------------------------------

/** Stages in pipeline order, each recognised by words of its ops' names and categories. */
const STAGES: { type: string; words: RegExp }[] = [
  { type: 'ExtractionError', words: /extract|summar|deriv|memori[sz]e|observ/ },
  { type: 'UpdateError', words: /updat|writ|add|consolidat|revis|merg|replac|mutation|insert|keep|skip/ },
  { type: 'RetrievalError', words: /retriev|search|lookup|rank|query|recall/ },
  { type: 'ResponseError', words: /generat|answer|respon/ },
];
const DELETES = /delet|forget|evict|expir|remov|invalid|purg/;

/** The case path's ops by stage (0 extraction, 1 update / deletion, 2 retrieval, 3 the answer op; -1 other). */
function stagesOf(g: TraceGraph, c: TraceCase) {
  const path = casePath(g, c);
  const words = (o: number) => `${g.opName[o]} ${g.opCategory[o]}`.toLowerCase();
  const stageOf = (o: number) =>
    o === path.answerOp ? 3 : DELETES.test(words(o)) ? 1 : STAGES.findIndex((s) => s.words.test(words(o)));
  const want = c.goldenAnswers.map((a) => [...answerWords(a)]).filter((w) => w.length > 0);
  // The lexical "states the answer": at least half of some golden answer's content words.
  const holds = (text: string) => {
    const have = new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
    return want.length === 0 || want.some((w) => w.filter((x) => have.has(x)).length >= w.length / 2);
  };
  const answer = path.answerOp >= 0 ? g.opId[path.answerOp] : null;
  return { path, words, stageOf, holds, answer };
}

/** The naive verdict at a stage's op (an update / deletion stage: its last op, a deletion when it says so). */
function blame(g: TraceGraph, stage: number, mine: number[], words: (o: number) => string) {
  const op = stage === 1 ? mine[mine.length - 1] : mine[0];
  const deletion = stage === 1 && DELETES.test(words(op));
  return { type: deletion ? 'DeletionError' : STAGES[stage].type, op: g.opId[op] };
}

/**
 * The naive rule: along the case path, in pipeline order (extraction → update / deletion →
 * retrieval → response), the first stage whose ops' outputs together hold fewer than half of
 * the golden answer's content words; its first op (an update / deletion stage: its last op,
 * a deletion when that op's name or category says so). Response when every stage holds them.
 */
export function naiveAttribution(g: TraceGraph, c: TraceCase): { type: string | null; op: string | null } {
  const { path, words, stageOf, holds, answer } = stagesOf(g, c);
  for (let stage = 0; stage < 3; stage++) {
    const mine = path.ops.filter((o) => o !== path.judgeOp && stageOf(o) === stage);
    if (mine.length === 0) continue;
    if (holds(mine.flatMap((o) => opStructure(g, o).outputs.map((v) => g.varValue[v])).join('\n'))) continue;
    return blame(g, stage, mine, words);
  }
  return { type: 'ResponseError', op: answer };
}

/** Time stamps a record names (`timestamp`, `time_stamp`, `date` in its value or metadata). */
const STAMP = /(?:time_?stamp|date)['"]?\s*:\s*\\?['"]([^'"\\]+)/gi;
function stampsOf(g: TraceGraph, vars: Iterable<number>): string[] {
  const out: string[] = [];
  for (const v of vars)
    for (const text of [g.varValue[v], JSON.stringify(g.vars[v].metadata ?? {})])
      for (const m of text.matchAll(STAMP)) out.push(m[1]);
  return out;
}

/**
 * The naive rule with MemEval's stage texts (its `stages.py`: "initial_results (and time_stamp if
 * needed)", subjects pooled), the same lexical test and order: extraction = what every extraction
 * op that read the case's messages wrote (one per subject's store, as Mem0 keeps them) and the
 * time stamps of those messages; update / deletion = what the path's update ops wrote, with the
 * time stamps it names; retrieval = what the path's retrieval ops returned; else the response.
 */
export function memevalNaive(g: TraceGraph, c: TraceCase): { type: string | null; op: string | null } {
  const { path, words, stageOf, holds, answer } = stagesOf(g, c);
  const limit = path.answerOp >= 0 ? g.opRank[path.answerOp] : g.opOrder.length;
  const io = (o: number) => opStructure(g, o);
  const messages = (o: number) => io(o).inputs.filter((v) => isMessageCategory(g.varCategory[v]));
  const onPath = new Set(path.ops.filter((o) => o !== path.judgeOp));
  const stage = (n: number) => [...onPath].filter((o) => stageOf(o) === n);
  const read = new Set(stage(0).flatMap(messages));
  const pooled = (o: number) => onPath.has(o) || messages(o).some((v) => read.has(v));
  const ex = [...g.opId.keys()].filter((o) => g.opRank[o] < limit && stageOf(o) === 0 && pooled(o));
  const said = (ops: number[], stamped: (o: number) => number[]) => {
    const outs = ops.flatMap((o) => io(o).outputs);
    return [...outs.map((v) => g.varValue[v]), ...stampsOf(g, ops.flatMap(stamped))].join('\n');
  };
  if (ex.length && !holds(said(ex, (o) => io(o).inputs))) return blame(g, 0, ex, words);
  const up = stage(1);
  if (up.length && !holds(said(up, (o) => io(o).outputs))) return blame(g, 1, up, words);
  const rt = stage(2);
  if (rt.length && !holds(said(rt, () => []))) return blame(g, 2, rt, words);
  return { type: 'ResponseError', op: answer };
}

/** The evidence method's setup as `memtrace bench` makes it (word vectors), its own output silenced. */
export function benchEvidenceSetup(): ReturnType<typeof evidenceSetup> {
  const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
  return evidenceSetup({ method: 'evidence', match: 'vectors' }, {
    stdout: quiet,
    stderr: process.stderr,
    env: process.env,
  } as never);
}
