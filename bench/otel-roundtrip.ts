/**
 * Round trip through OpenTelemetry on the fault-injected benchmark (the four reference
 * systems, `npx tsx scripts/make-fault-bench.ts` → bench/out/faultbench): each graph is
 * written as OTLP/JSON by the OpenTelemetry SDK and imported again, (a) with the memtrace
 * records (`memtrace export --format otlp`) and (b) with the GenAI attributes only (what
 * another backend would hold; the import infers the dataflow). For every labelled case the
 * evidence-flow attribution of the import is compared with that of the smartcomment graph:
 * same error type and same op (an op's id after import is `op-<its span id>`, `opSpanId`).
 * Also compared: version chains (names with > 1 version) and failed questions.
 * `npx tsx bench/otel-roundtrip.ts [--stride K: every K-th graph] [--limit N per split]` writes the
 * "OpenTelemetry round trip" section of RESULTS.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { depsFor } from '../src/cli/attribution-setup.ts';
import { evidenceFlowEngine } from '../src/core/attribution/index.ts';
import { type TraceCase as Case, listCases, systemOf } from '../src/core/cases/index.ts';
import { buildGraph } from '../src/core/graph/index.ts';
import { opSpanId, parseTraceText, type TraceDocument, valueText } from '../src/core/trace/index.ts';
import { otlpJson } from '../src/sdk/otel.ts';
import { writeResultsSection } from './stats-util.ts';

const { values } = parseArgs({
  options: {
    limit: { type: 'string' },
    stride: { type: 'string', default: '1' },
    dir: { type: 'string', default: 'bench/out/faultbench' },
  },
});
const limit = values.limit ? Number(values.limit) : Number.POSITIVE_INFINITY;
// Every stride-th graph of a split (in name order): a sample when the whole set takes too long.
const stride = Math.max(1, Number(values.stride));
if (!existsSync(values.dir)) {
  console.error(`${values.dir} is missing: run npx tsx scripts/make-fault-bench.ts first`);
  process.exit(1);
}

function load(text: string, file: string): TraceDocument {
  const r = parseTraceText(text, { file });
  if (!r.ok) throw new Error(`${file}: ${r.issues[0]?.message}`);
  return r.doc;
}

const caseKey = (c: Case) => `${c.question}\u0000${c.prediction}`;
const chains = (doc: TraceDocument) => {
  const n = new Map<string, number>();
  for (const v of doc.data.nodes) n.set(v.full_name ?? v.name, (n.get(v.full_name ?? v.name) ?? 0) + 1);
  return [...n.values()].filter((x) => x > 1).length;
};

async function attribute(
  doc: TraceDocument,
  file: string,
  pick: (cases: Case[]) => (Case | undefined)[],
  evidence?: (c: Case, i: number) => string[],
) {
  const g = buildGraph(doc);
  const deps = await depsFor(g, {});
  const system = systemOf(doc, file);
  const out: ({ type: string | null; op: string | null } | null)[] = [];
  const picked = pick(listCases(g));
  for (let i = 0; i < picked.length; i++) {
    const c = picked[i];
    if (!c) {
      out.push(null);
      continue;
    }
    const withEvidence = evidence ? { ...c, evidenceIds: evidence(c, i) } : c;
    const a = await evidenceFlowEngine({ graph: g, case: withEvidence, system }, deps);
    out.push({ type: a.error_type, op: a.op_id });
  }
  return { out, failed: listCases(g).filter((c) => c.failed).length };
}

interface Tally {
  files: number;
  cases: number;
  exact: number;
  standard: number;
  standardMissing: number;
  standardSameEvidence: number;
  chainsSame: [number, number];
  failedSame: [number, number];
}
const emptyTally = (): Tally => ({
  files: 0,
  cases: 0,
  exact: 0,
  standard: 0,
  standardMissing: 0,
  standardSameEvidence: 0,
  chainsSame: [0, 0],
  failedSame: [0, 0],
});
const rows: string[] = [];
const all: Tally = emptyTally();
for (const split of readdirSync(values.dir).sort()) {
  const dir = join(values.dir, split);
  if (split.includes('.')) continue;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .filter((_, i) => i % stride === 0)
    .slice(0, limit);
  const t: Tally = emptyTally();
  for (const f of files) {
    const path = join(dir, f);
    const doc = load(readFileSync(path, 'utf8'), path);
    const labelled = (cases: Case[]) => cases.filter((c) => c.label);
    const base = await attribute(doc, path, labelled);
    const keys = labelled(listCases(buildGraph(doc))).map(caseKey);
    const exactDoc = load(
      new TextDecoder().decode(await otlpJson(doc, { flavour: 'genai', exact: true })),
      `${path}.otlp`,
    );
    const stdDoc = load(
      new TextDecoder().decode(await otlpJson(doc, { flavour: 'genai', exact: false })),
      `${path}.std.otlp`,
    );
    const exact = await attribute(exactDoc, path, labelled);
    const match = (cases: Case[]) => {
      const by = new Map<string, Case[]>();
      for (const c of cases) by.set(caseKey(c), [...(by.get(caseKey(c)) ?? []), c]);
      return keys.map((k) => by.get(k)?.shift());
    };
    // Unlabelled traces: both sides locate the evidence themselves (BM25 start points).
    const baseLocated = await attribute(doc, path, labelled, () => []);
    const std = await attribute(stdDoc, path, match, () => []);
    // The same evidence as the labels name: their messages, found in the import by their text.
    const textOf = new Map(doc.data.nodes.map((v) => [v.full_node_id ?? '', valueText(String(v.value))]));
    const idOfText = new Map(stdDoc.data.nodes.map((v) => [v.value, v.full_node_id ?? '']));
    const labelledEvidence = labelled(listCases(buildGraph(doc))).map((c) => c.evidenceIds);
    const stdSame = await attribute(stdDoc, path, match, (_c, i) =>
      labelledEvidence[i].flatMap((id) => {
        const hit = idOfText.get(textOf.get(id) ?? '\u0000');
        return hit ? [hit] : [];
      }),
    );
    t.files++;
    base.out.forEach((b, i) => {
      t.cases++;
      const e = exact.out[i];
      if (b && e && e.type === b.type && e.op === b.op) t.exact++;
      const mapped = b?.op ? `op-${opSpanId(b.op)}` : null;
      const s = std.out[i];
      const bl = baseLocated.out[i];
      const mappedLocated = bl?.op ? `op-${opSpanId(bl.op)}` : null;
      if (!s) t.standardMissing++;
      else if (bl && s.type === bl.type && s.op === mappedLocated) t.standard++;
      const se = stdSame.out[i];
      if (b && se && se.type === b.type && se.op === mapped) t.standardSameEvidence++;
    });
    t.chainsSame[0] += chains(exactDoc) === chains(doc) ? 1 : 0;
    t.chainsSame[1] += chains(stdDoc) === chains(doc) ? 1 : 0;
    t.failedSame[0] += exact.failed === base.failed ? 1 : 0;
    t.failedSame[1] += std.failed === base.failed ? 1 : 0;
  }
  const rate = (x: number) => (t.cases ? (x / t.cases).toFixed(3) : '–');
  rows.push(
    `| ${split} | ${t.files} | ${t.cases} | ${rate(t.exact)} | ${rate(t.standardSameEvidence)} | ${rate(t.standard)} | ${t.standardMissing} | ${t.chainsSame[0]} / ${t.chainsSame[1]} | ${t.failedSame[0]} / ${t.failedSame[1]} |`,
  );
  console.log(rows.at(-1));
  for (const k of ['files', 'cases', 'exact', 'standard', 'standardMissing', 'standardSameEvidence'] as const)
    all[k] += t[k];
  for (const k of ['chainsSame', 'failedSame'] as const) for (const i of [0, 1]) all[k][i] += t[k][i];
}
const rate = (x: number) => (all.cases ? (x / all.cases).toFixed(3) : '–');
rows.push(
  `| **all** | ${all.files} | ${all.cases} | **${rate(all.exact)}** | **${rate(all.standardSameEvidence)}** | ${rate(all.standard)} | ${all.standardMissing} | ${all.chainsSame[0]} / ${all.chainsSame[1]} | ${all.failedSame[0]} / ${all.failedSame[1]} |`,
);
writeResultsSection(
  'OpenTelemetry round trip',
  [
    `\`npx tsx bench/otel-roundtrip.ts --stride ${stride}\`: ${stride > 1 ? `every ${stride}th` : 'each'} fault-injected graph (name order) → OTLP/JSON (OpenTelemetry SDK) → import; agreement = share`,
    'of labelled cases whose evidence-flow attribution (error type and op) on the import equals the one on the smartcomment',
    'graph. *exact*: with the memtrace records (`memtrace export --format otlp`); *GenAI only*: the `gen_ai.*` attributes',
    "alone (`--standard-only`), so the import infers edges, record chains and cases; the labels' evidence ids are gone, so",
    'it is scored twice: given the same evidence as the smartcomment graph (the labelled evidence messages, found in the',
    'import by their text), and as an unlabelled trace (both sides locate the evidence by BM25 start points). Goal: ≥ 0.95 same op.',
    '',
    '| split | graphs | labelled cases | agreement, exact | agreement, GenAI only, same evidence | agreement, GenAI only, both locating evidence | cases not found (GenAI only) | graphs with the same number of version chains (exact / GenAI only) | same number of failed questions (exact / GenAI only) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    "Caveat: the GenAI-only files are written by the workbench's own emitter (`documentToSpans`), which puts each",
    'variable in its own message / record; instrumentations that concatenate prompts leave more to the containment rule.',
  ].join('\n'),
);
