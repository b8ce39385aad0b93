/**
 * The deterministic report on labelled benchmarks: the shared smartcomment files (exact
 * fault-injection labels) and a small fault-injected benchmark the test writes with the
 * reference Mem0. Counts, rates, intervals and lifts are checked against computations
 * made here from the raw JSON (labels, ops) and an independent Wilson formula (the roots
 * of the score equation), never against the report's own numbers.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  buildReport,
  FEATURES,
  hasAbsoluteDate,
  hasNegation,
  hasNumber,
  hasRelativeDate,
  isEnumeration,
  type ReportCase,
  reportCase,
  reportHtml,
  reportMarkdown,
  wilson,
} from '../../src/core/report/index.ts';
import { ERROR_TYPES, exportSmartcomment, type TraceDocument } from '../../src/core/trace/index.ts';
import { generateBenchmark, loadLocomo } from '../../src/systems/index.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA, smartcommentFiles } from '../helpers/shared-data.ts';

/** Wilson bounds as the roots of (p̂ − p)² = z² p (1 − p) / n, solved for p — a different route than the closed form. */
function wilsonRoots(k: number, n: number) {
  const z = 1.959963984540054;
  const ph = k / n;
  const a = 1 + (z * z) / n;
  const b = -(2 * ph + (z * z) / n);
  const c = ph * ph;
  const d = Math.sqrt(b * b - 4 * a * c);
  return { low: (-b - d) / (2 * a), high: (-b + d) / (2 * a) };
}

const cli = (...argv: string[]) => runCli(argv);

interface RawLabel {
  file: string;
  query_id: string;
  type: string;
  op: string;
  opName: string;
  opCategory: string;
  fault: { kind: string; query_index: number } | undefined;
  /** Names of the prompt variables among the op's inputs (sources of its edges that are not its targets). */
  prompts: string[];
}

/** The labels and their ops, straight from the files' JSON. */
function rawLabels(): RawLabel[] {
  return smartcommentFiles().flatMap((file) => {
    const d = JSON.parse(readFileSync(file, 'utf8'));
    const ops = new Map<string, { op_name: string; category: string }>(
      d.data.operations.map((o: { op_id: string }) => [o.op_id, o]),
    );
    const nodes = new Map<string, { name: string; category: string }>(
      d.data.nodes.map((n: { full_node_id: string }) => [n.full_node_id, n]),
    );
    const promptsOf = (op: string) => {
      const edges = d.data.edges.filter((e: { op_id: string }) => e.op_id === op);
      const targets = new Set(edges.map((e: { target_full_node_id: string }) => e.target_full_node_id));
      const inputs = new Set<string>(
        edges
          .map((e: { source_full_node_id: string }) => e.source_full_node_id)
          .filter((s: string) => !targets.has(s)),
      );
      return [...inputs]
        .filter((id) => nodes.get(id)?.category === 'prompt')
        .map((id) => nodes.get(id)!.name);
    };
    return d.data.annotations.map(
      (a: { query_id: string; final_error_type: string; final_op_id: string }) => ({
        file,
        query_id: a.query_id,
        type: a.final_error_type,
        op: a.final_op_id,
        opName: ops.get(a.final_op_id)!.op_name,
        opCategory: ops.get(a.final_op_id)!.category,
        fault: d.metadata.fault,
        prompts: promptsOf(a.final_op_id),
      }),
    );
  });
}

/** Report cases of the shared files with each label as the attribution. */
function labelledCases(): ReportCase[] {
  return smartcommentFiles().flatMap((file) => {
    const r = openTrace(readFileSync(file, 'utf8'), { file });
    if (!r.ok) throw new Error(file);
    return listCases(r.graph)
      .filter((c) => c.label)
      .map((c) =>
        reportCase(
          r.graph,
          c,
          { error_type: c.label!.errorType, op_id: c.label!.opId, reason: 'label', method: 'label' },
          { file },
        ),
      );
  });
}

describe('wilson(k, n)', () => {
  it('matches published 95 % intervals and the score equation, and stays wide for small samples', () => {
    const close = (x: number, y: number) => expect(x).toBeCloseTo(y, 4);
    close(wilson(5, 10).low, 0.2366);
    close(wilson(5, 10).high, 0.7634);
    close(wilson(0, 10).low, 0);
    close(wilson(0, 10).high, 0.2775);
    close(wilson(10, 10).low, 0.7225);
    for (const [k, n] of [
      [1, 2],
      [3, 7],
      [81, 263],
      [999, 1000],
    ]) {
      const r = wilsonRoots(k, n);
      close(wilson(k, n).low, r.low);
      close(wilson(k, n).high, r.high);
    }
    expect(wilson(1, 2).high - wilson(1, 2).low).toBeGreaterThan(0.8);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('case features from texts', () => {
  it('reads dates, negation, lists and numbers the way the definitions say', () => {
    expect(hasRelativeDate('I went to a LGBTQ support group yesterday')).toBe(true);
    expect(hasRelativeDate('I ran a charity race last Saturday')).toBe(true);
    expect(hasRelativeDate('a bowl a friend made ten years ago')).toBe(true);
    expect(hasRelativeDate('I painted a lake sunrise')).toBe(false);
    expect(hasAbsoluteDate('on 8 May, 2023')).toBe(true);
    expect(hasAbsoluteDate('in 2022')).toBe(true);
    expect(hasAbsoluteDate('May I come?')).toBe(false);
    expect(hasNegation("I don't eat meat any more")).toBe(true);
    expect(hasNegation('Likely no')).toBe(true);
    expect(hasNegation('I love it')).toBe(false);
    expect(isEnumeration(['Psychology, counseling certification'])).toBe(true);
    expect(isEnumeration(['pottery', 'camping'])).toBe(true);
    expect(isEnumeration(['7 May, 2023'])).toBe(false);
    expect(hasNumber('4 years')).toBe(true);
    expect(hasNumber('three kids')).toBe(true);
    expect(hasNumber('7 May 2023')).toBe(false);
  });
});

describe('buildReport on the shared labelled files (labels as the attribution)', () => {
  const labels = rawLabels();
  const cases = labelledCases();
  const r = buildReport(cases, { generatedAt: 'test' });

  it('counts error types, ops and rates as the raw labels say, with Wilson intervals', () => {
    expect(r.cases).toBe(labels.length);
    for (const t of ERROR_TYPES) {
      const k = labels.filter((l) => l.type === t).length;
      expect(r.by_error_type[t]).toBe(k);
      const row = r.error_type_rates.find((x) => x.error_type === t)!;
      expect(row.rate).toBeCloseTo(k / labels.length, 12);
      if (k > 0 && k < labels.length) {
        expect(row.ci_low).toBeCloseTo(wilsonRoots(k, labels.length).low, 9);
        expect(row.ci_high).toBeCloseTo(wilsonRoots(k, labels.length).high, 9);
      }
    }
    const ops = new Map<string, number>();
    for (const l of labels)
      ops.set(`${l.opName} / ${l.opCategory}`, (ops.get(`${l.opName} / ${l.opCategory}`) ?? 0) + 1);
    expect(new Map(r.by_op.map((o) => [`${o.op_name} / ${o.op_category}`, o.count]))).toEqual(ops);
    expect(r.by_op.reduce((s, o) => s + o.count, 0)).toBe(labels.length);
    // Every cluster is one (type, op kind); together they hold every case once.
    expect(r.clusters.reduce((s, c) => s + c.count, 0)).toBe(labels.length);
    expect(new Set(r.clusters.flatMap((c) => c.case_ids)).size).toBe(labels.length);
  });

  it('names the prompt behind each faulty op from the graph, and counts the rest as not optimisable', () => {
    const byPrompt = Object.fromEntries(r.by_prompt.map((p) => [p.prompt ?? 'none', p.count]));
    // Ops that read a prompt themselves are grouped under it.
    const direct: Record<string, number> = {};
    for (const l of labels) if (l.prompts.length) direct[l.prompts[0]] = (direct[l.prompts[0]] ?? 0) + 1;
    for (const [name, k] of Object.entries(direct)) expect(byPrompt[name]).toBeGreaterThanOrEqual(k);
    expect(byPrompt['question-answering-prompt']).toBe(direct['question-answering-prompt']);
    // Retrievals read no prompt and are never blamed on the prompt of whoever wrote their inputs.
    const retrievalWithout = labels.filter(
      (l) => l.type === 'RetrievalError' && l.prompts.length === 0,
    ).length;
    expect(r.by_prompt.find((p) => p.prompt === null)!.by_error_type.RetrievalError).toBe(retrievalWithout);
    expect(r.by_prompt.reduce((s, p) => s + p.count, 0)).toBe(labels.length);
  });

  it('computes each lift as P(type | feature) / P(type) over the case flags', () => {
    for (const { id } of FEATURES) {
      const withF = cases.filter((c) => c.features[id]);
      for (const t of ERROR_TYPES) {
        const row = r.features.find((x) => x.feature === id && x.error_type === t)!;
        const k = withF.filter((c) => c.error_type === t).length;
        const base = cases.filter((c) => c.error_type === t).length / cases.length;
        expect(row.with_feature).toBe(withF.length);
        expect(row.count).toBe(k);
        if (withF.length === 0 || base === 0) expect(row.lift).toBeNull();
        else expect(row.lift).toBeCloseTo(k / withF.length / base, 12);
        if (withF.length > 0 && k > 0 && k < withF.length)
          expect(row.ci_low).toBeCloseTo(wilsonRoots(k, withF.length).low, 9);
      }
    }
  });

  it('flags "evidence unit changed later" exactly where an update or deletion fault was injected', () => {
    for (const c of cases.filter((x) => !x.file!.includes('rag'))) {
      const l = labels.find((x) => x.file === c.file && x.query_id === c.query_id)!;
      const injected =
        (l.fault?.kind === 'update' || l.fault?.kind === 'deletion') &&
        c.query_id === `query:conv-26-qa-${l.fault.query_index}@1`;
      expect([c.case_id, c.features.unit_updated]).toEqual([c.case_id, injected]);
    }
  });

  it('renders Markdown and printable self-contained HTML with the numbers', () => {
    const md = reportMarkdown(r);
    const html = reportHtml(r);
    for (const t of ERROR_TYPES) expect(md).toContain(`| ${t} | ${r.by_error_type[t]} |`);
    expect(html).toContain('<svg');
    expect(html).toContain('@media print');
    expect(html).not.toMatch(/<script|<link|src=|href="http|url\(/i);
    expect(html).toContain("default-src 'none'");
  });
});

describe('hostile trace text', () => {
  it('is escaped in Markdown and HTML; __proto__ keys are plain data', () => {
    const file = smartcommentFiles()[0];
    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument;
    const q = doc.data.nodes.find((n) => n.class_name === 'query')!;
    q.value = "'<script>alert(1)</script> | `x` *y* [z](http://evil)'";
    (q.metadata as Record<string, unknown>).category = '<img src=x onerror=alert(1)>';
    const text = exportSmartcomment(doc).replace(
      '"metadata": {',
      '"metadata": {"__proto__": {"polluted": true},',
    );
    const o = openTrace(text, { file: 'hostile.json' });
    if (!o.ok) throw new Error('did not open');
    const c = listCases(o.graph).find((x) => x.queryId === `query:${q.name}@1`)!;
    const rc = reportCase(o.graph, c, {
      error_type: 'ResponseError',
      op_id: c.judgeOpId,
      reason: '<b>bold</b>',
      method: 'x',
    });
    const rep = buildReport([rc]);
    const html = reportHtml(rep);
    const md = reportMarkdown(rep);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>bold');
    expect(html).toContain('&lt;script&gt;');
    expect(md).not.toContain('<script>');
    // Outside code blocks the link syntax is escaped; inside them it is inert text.
    const inline = md.replace(/```[\s\S]*?```/g, '');
    expect(inline).toContain('\\[z\\](http://evil)');
    expect(inline).not.toMatch(/[^\\]\[z\]\(/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the exemplars' evidence (issue 24)", () => {
  /** Letters and digits only, lower-cased: a quoted unit and the stored value (a Python repr) compare alike. */
  const bare = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

  it('quote the text that held the answer from the variable, version and op they name, and what came after it', async () => {
    const file = smartcommentFiles()[0];
    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument;
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-report-'));
    const out = join(dir, 'r');
    const res = await cli('report', file, '--format', 'md,html', '-o', out);
    expect(res.code).toBe(0);
    const md = readFileSync(`${out}.md`, 'utf8');
    const html = readFileSync(`${out}.html`, 'utf8');
    // "Held the answer — VAR vN[, written by NAME (KIND, step K)][; matched: …]:" then a fenced quote.
    const held = [
      ...md.matchAll(
        /^Held the answer — (.+?) v(\d+)(?:, written by (.+?) \((\w+), step \d+\))?(?:; matched: (.+))?:\n\n`{3,}text\n([\s\S]*?)\n`{3,}/gm,
      ),
    ];
    const exemplars = md.match(/^#### /gm)?.length ?? 0;
    expect(exemplars).toBeGreaterThan(0);
    expect(held.length).toBe(exemplars);
    for (const [, variable, version, opName, category, matched, quote] of held) {
      const node = doc.data.nodes.find(
        (n) =>
          (n.class_name ? `${n.class_name}:${n.name}` : n.name) === variable && n.version === Number(version),
      );
      expect(node, `${variable} v${version}`).toBeTruthy();
      // A message's text is quoted decoded ("it’s" for the file's "it\u2019s").
      const decoded = node!.value.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) =>
        String.fromCharCode(Number.parseInt(h, 16)),
      );
      expect(bare(decoded)).toContain(bare(quote.replace(/…$/, '')));
      const writers = doc.data.edges
        .filter((e) => e.target_full_node_id === `${variable}@${version}`)
        .map((e) => doc.data.operations.find((o) => o.op_id === e.op_id)!);
      // A text no op wrote (a conversation message) names no writer.
      if (opName) expect(writers.some((o) => o.op_name === opName && o.category === category)).toBe(true);
      else expect(writers).toEqual([]);
      for (const w of (matched ?? '').split(', ').filter(Boolean))
        expect(quote.toLowerCase()).toContain(w.replace(/\\/g, ''));
    }
    expect(md).toMatch(/^- Confidence: \d{1,3} %$/m);
    expect(md).toMatch(/^- Test: A text holds the answer when it has /m);
    expect(md).toMatch(
      /^(What came after it|Replaced by a later version) \((no longer holds|holds \d+ %|still holds) /m,
    );
    // The HTML marks the matched words inside the quotes.
    const quotes = html.match(/<pre class="quote">[\s\S]*?<\/pre>/g) ?? [];
    expect(quotes.length).toBeGreaterThanOrEqual(exemplars);
    expect(quotes.some((q) => /<mark>[^<]+<\/mark>/.test(q))).toBe(true);
  }, 120_000);

  it('escape hostile quoted text and matched words in HTML and Markdown; a case with no answer says why', () => {
    const file = smartcommentFiles()[0];
    const o = openTrace(readFileSync(file, 'utf8'), { file });
    if (!o.ok) throw new Error('did not open');
    const c = listCases(o.graph)[0];
    const v = o.graph.varId[0];
    const hostile = '<script>alert(1)</script> ``` <img src=x onerror=alert(1)> Tokyo';
    const rc = reportCase(o.graph, c, {
      error_type: 'RetrievalError',
      op_id: c.judgeOpId,
      reason: 'r',
      method: 'evidence',
      confidence: 0.5,
      verdict_evidence: {
        held: { var_id: v, text: hostile, matched: ['script', 'Tokyo', '<img'], support: 1 },
        after: null,
      },
    });
    const none = reportCase(o.graph, listCases(o.graph)[1], {
      error_type: null,
      op_id: null,
      reason: 'x',
      method: 'evidence',
      not_attributable: { reason: 'inferred', detail: 'Not attributable: it must be <b>inferred</b>.' },
    });
    const rep = buildReport([rc, none], { exemplars: 5 });
    const html = reportHtml(rep);
    const md = reportMarkdown(rep);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;<mark>script</mark>&gt;');
    expect(html).toContain('<mark>Tokyo</mark>');
    expect(html).toContain('Not attributable: it must be &lt;b&gt;inferred&lt;/b&gt;.');
    expect(md).toContain('- Not attributable: it must be &lt;b&gt;inferred&lt;/b&gt;. (inferred)');
    expect(md.replace(/(`{4,})text\n[\s\S]*?\n\1/g, '')).not.toContain('<script>');
  });
});

describe('memtrace report on a fault-injected benchmark the test writes', () => {
  it('reads the labels as paper records and counts what the generator injected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-report-'));
    const convs = loadLocomo(JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8')));
    const summary = await generateBenchmark({
      system: 'mem0',
      dataset: 'locomo',
      conversations: [convs[0]],
      perType: 1,
      naturalPerConversation: 2,
      maxSessions: 6,
      write: (rel, doc) => {
        mkdirSync(join(dir, 'bench', rel.split('/')[0]), { recursive: true });
        writeFileSync(join(dir, 'bench', rel), exportSmartcomment(doc));
      },
    });
    // The labels as the paper's results records, written from the raw JSON.
    const results: unknown[] = [];
    const expected: Record<string, number> = {};
    for (const f of readdirSync(join(dir, 'bench/mem0'))) {
      const d = JSON.parse(readFileSync(join(dir, 'bench/mem0', f), 'utf8'));
      for (const a of d.data.annotations ?? []) {
        expected[a.final_error_type] = (expected[a.final_error_type] ?? 0) + 1;
        results.push({
          ...a,
          graph_path: `MemTraceBench/mem0/${f}`,
          error_attribution_result: { error_type: a.final_error_type, op_id: a.final_op_id, reason: 'label' },
        });
      }
    }
    const injected = Object.values(summary.injected).reduce((s, k) => s + k, 0);
    const counterfactual = Object.values(summary.counterfactual).reduce((s, k) => s + k, 0);
    expect(results).toHaveLength(injected + counterfactual);
    writeFileSync(join(dir, 'labels.json'), JSON.stringify({ results }));
    const out = await cli(
      'report',
      join(dir, 'bench'),
      '--attributions',
      join(dir, 'labels.json'),
      '--format',
      'json',
    );
    expect(out.code).toBe(0);
    const rep = JSON.parse(out.stdout);
    expect(rep.cases).toBe(results.length);
    for (const t of ERROR_TYPES) expect(rep.by_error_type[t]).toBe(expected[t] ?? 0);
    expect(rep.by_system).toEqual({ mem0: expect.objectContaining({ cases: results.length }) });
    // Each injected store fault is an UpdateError / DeletionError at the op the generator named.
    expect(rep.by_error_type.UpdateError).toBeGreaterThanOrEqual(summary.injected.update);
    // Without --attributions every failed case is attributed by evidence-flow first.
    const ef = await cli('report', join(dir, 'bench'), '--format', 'json');
    expect(ef.code).toBe(0);
    const efRep = JSON.parse(ef.stdout);
    expect(efRep.methods).toEqual({ evidence: efRep.cases });
    expect(efRep.cases).toBeGreaterThanOrEqual(results.length);
  });

  it('bad attribution files and formats get one line naming the file and the place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-report-bad-'));
    const file = smartcommentFiles()[0];
    writeFileSync(join(dir, 'syntax.json'), '{"results": [{"query_id": "x",');
    writeFileSync(
      join(dir, 'type.json'),
      JSON.stringify({
        results: [{ query_id: 'q', error_attribution_result: { error_type: 'Oops', op_id: 'o' } }],
      }),
    );
    writeFileSync(join(dir, 'shape.json'), JSON.stringify({ hello: 1 }));
    const a = await cli('report', file, '--attributions', join(dir, 'syntax.json'));
    expect([a.code, a.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(a.stderr).toContain(`${join(dir, 'syntax.json')}:1:`);
    const b = await cli('report', file, '--attributions', join(dir, 'type.json'));
    expect(b.stderr).toContain('results[0].error_attribution_result.error_type');
    const c = await cli('report', file, '--attributions', join(dir, 'shape.json'));
    expect(c.stderr).toContain('not an attribution file');
    expect((await cli('report', file, '--format', 'pdf')).code).toBe(2);
    for (const x of [a, b, c]) expect(x.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('memtrace attribute --format memtrace', () => {
  it("writes the paper's records, which memtrace report reads back to the same counts", async () => {
    const file = smartcommentFiles().find((f) => f.endsWith('conv-26-fault-2.json'))!;
    const a = await cli('attribute', file, '--format', 'memtrace');
    expect(a.code).toBe(0);
    const out = JSON.parse(a.stdout);
    expect(Object.keys(out)).toEqual(['split', 'sampled_graph_paths', 'results', 'metrics']);
    const rec = out.results[0];
    for (const k of [
      'query_id',
      'query',
      'golden_answers',
      'golden_answers_id',
      'prediction',
      'prediction_id',
      'source_evidence_ids',
      'graph_path',
    ])
      expect(rec).toHaveProperty(k);
    expect(Object.keys(rec.error_attribution_result)).toEqual(
      expect.arrayContaining(['error_type', 'op_id', 'reason']),
    );
    expect(out.metrics.total_cases).toBe(out.results.length);
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-attr-'));
    writeFileSync(join(dir, 'r.json'), a.stdout);
    // All six shared files share the question ids; graph_path picks the right one.
    const rep = await cli(
      'report',
      ...smartcommentFiles(),
      '--attributions',
      join(dir, 'r.json'),
      '--format',
      'json',
    );
    expect(rep.code).toBe(0);
    const j = JSON.parse(rep.stdout);
    expect(j.cases).toBe(out.results.length);
    const counts: Record<string, number> = {};
    for (const x of out.results)
      counts[x.error_attribution_result.error_type] =
        (counts[x.error_attribution_result.error_type] ?? 0) + 1;
    for (const t of ERROR_TYPES) expect(j.by_error_type[t]).toBe(counts[t] ?? 0);
    expect(new Set(j.case_list.map((c: ReportCase) => c.file))).toEqual(new Set([file]));
  });
});
