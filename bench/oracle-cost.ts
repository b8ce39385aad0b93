/**
 * Oracle-judge cost: what each exploration strategy costs at best. Every labelled
 * case is replayed through the real agents (MemTrace, MemTrace-OBS, each with and
 * without the evidence-flow prior) with a scripted oracle judge in the model's seat
 * (no LLM): it knows the label, reads what the strategy shows it, says "correct,
 * continue", and answers once the labelled op has been shown in full. Tokens are
 * estimated from the text (~4 chars/token), the prompts and the JSON action protocol
 * included; compression calls count.
 *
 *   npx tsx bench/oracle-cost.ts [files or dirs …]   (default: ../shared/data/smartcomment and bench/out/faultbench if present)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { attributeMemTrace, attributeObs, memtraceOracle, obsOracle } from '../src/core/attribution/index.ts';
import { listCases, systemOf } from '../src/core/cases/index.ts';
import { openTrace } from '../src/core/graph/index.ts';
import { ScriptedChatModel } from '../src/core/llm/index.ts';
import { isErrorType } from '../src/core/trace/index.ts';
import { median, writeResultsSection } from './stats-util.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DEFAULT_INPUTS = [resolve(ROOT, '../shared/data/smartcomment'), resolve(ROOT, 'bench/out/faultbench')];

function jsonFiles(p: string): string[] {
  if (!existsSync(p)) return [];
  if (statSync(p).isFile()) return p.endsWith('.json') ? [p] : [];
  return readdirSync(p)
    .sort()
    .flatMap((f) => jsonFiles(join(p, f)));
}

const STRATEGIES = [
  { name: 'MemTrace', method: 'memtrace', prior: false },
  { name: 'MemTrace + prior', method: 'memtrace', prior: true },
  { name: 'OBS', method: 'obs', prior: false },
  { name: 'OBS + prior', method: 'obs', prior: true },
] as const;

interface Row {
  file: string;
  query: string;
  type: string;
  strategy: string;
  tokens: number;
  input: number;
  output: number;
  calls: number;
  reached: boolean;
}

async function main() {
  const inputs = process.argv.slice(2).length ? process.argv.slice(2).map((p) => resolve(p)) : DEFAULT_INPUTS;
  const files = inputs.flatMap(jsonFiles);
  const rows: Row[] = [];
  const started = Date.now();
  for (const file of files) {
    const r = openTrace(readFileSync(file, 'utf8'), { file });
    if (!r.ok) {
      console.error(`skip ${file}: does not open`);
      continue;
    }
    const g = r.graph;
    const system = systemOf(g.doc, file);
    const cases = listCases(g).filter(
      (c) => c.label?.opId && g.opIndex.has(c.label.opId) && isErrorType(c.label.errorType),
    );
    for (const c of cases) {
      const label = { op_id: c.label!.opId!, error_type: c.label!.errorType };
      for (const s of STRATEGIES) {
        const oracle =
          s.method === 'memtrace'
            ? memtraceOracle(g, label)
            : obsOracle(g, label, c.question, c.goldenAnswers);
        const model = new ScriptedChatModel([oracle.step], { loop: true, model: 'oracle-judge' });
        const run = s.method === 'memtrace' ? attributeMemTrace : attributeObs;
        const a = await run({ graph: g, case: c, system }, { model, prior: s.prior });
        rows.push({
          file: relative(ROOT, file),
          query: c.queryId,
          type: label.error_type,
          strategy: s.name,
          tokens: a.cost.input_tokens + a.cost.output_tokens,
          input: a.cost.input_tokens,
          output: a.cost.output_tokens,
          calls: a.cost.llm_calls,
          reached: oracle.reached && a.op_id === label.op_id,
        });
      }
    }
    console.error(`${relative(ROOT, file)}: ${cases.length} labelled cases`);
  }
  const nCases = rows.length / STRATEGIES.length;
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const table = [
    '| strategy | cases | reached the label | median tokens (in+out) | median input | median calls | p90 tokens | max tokens |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of STRATEGIES) {
    const rs = rows.filter((r) => r.strategy === s.name);
    const t = rs.map((r) => r.tokens).sort((a, b) => a - b);
    table.push(
      `| ${s.name} | ${rs.length} | ${rs.filter((r) => r.reached).length} | ${fmt(median(t))} | ${fmt(median(rs.map((r) => r.input)))} | ${median(rs.map((r) => r.calls))} | ${fmt(t[Math.floor(t.length * 0.9)] ?? 0)} | ${fmt(t.at(-1) ?? 0)} |`,
    );
  }
  const types = [...new Set(rows.map((r) => r.type))].sort();
  const byType = [
    `| error type | cases | ${STRATEGIES.map((s) => s.name).join(' | ')} |`,
    `| --- | --- | ${STRATEGIES.map(() => '---').join(' | ')} |`,
  ];
  for (const ty of types) {
    const cells = STRATEGIES.map((s) =>
      fmt(median(rows.filter((r) => r.type === ty && r.strategy === s.name).map((r) => r.tokens))),
    );
    byType.push(
      `| ${ty} | ${rows.filter((r) => r.type === ty).length / STRATEGIES.length} | ${cells.join(' | ')} |`,
    );
  }
  const body = `
\`npx tsx bench/oracle-cost.ts\` — ${nCases} labelled cases (exact op labels) from ${files.length} files in ${[...new Set(files.map((f) => relative(ROOT, dirname(f))))].join(', ')}.
Each case is replayed through the real agents with a scripted oracle judge in the model's seat (no LLM): it
knows the label, reads whatever the strategy shows it (MemTrace: every explored variable in full, all pages; OBS:
overview, grep of the golden answer and the question, the matched blocks earliest first, then windows), says
"correct, continue", follows only variables that bring it closer to the labelled op, and answers once that op was
shown in full. So these are lower bounds of what each strategy costs, not accuracy. Tokens are estimated from the
text (~4 characters per token), system prompt and JSON action protocol included, compression calls included;
default budgets (200 steps, 272k window, 128k pages, 32k OBS windows). Prior = the evidence-flow candidates seed
the run (MemTrace: their input variables form the frontier; OBS: their blocks are in the first message).

Medians per case:

${table.join('\n')}

Median tokens per case by labelled error type:

${byType.join('\n')}

"Reached" counts cases where the labelled op was shown before the answer (otherwise the strategy ran out of
frontier or log and the oracle gave up). Measured on ${new Date().toISOString().slice(0, 10)} in ${((Date.now() - started) / 1000).toFixed(0)} s.
`;
  writeResultsSection('Oracle-judge cost', body);
  console.log(body);
}

await main();
