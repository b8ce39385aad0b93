/**
 * Import speed of ~100 MB OTLP/JSON files against JSON.parse of the same text, in Node:
 * one written by `memtrace export --format otlp` (GenAI attributes + the memtrace records:
 * exact restore) and one with the GenAI attributes only (the mapping with inferred dataflow).
 * The files are made from the synthetic long-context graph (`bench/synthetic.ts`) through the
 * OpenTelemetry SDK (`otlpJson`) into bench/out (ignored). `npx tsx bench/otel-import.ts`
 * writes the "OpenTelemetry import (Node)" section of RESULTS.md. Goal: ≤ 3× JSON.parse.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseTraceText, type TraceDocument } from '../src/core/trace/index.ts';
import { otlpJson } from '../src/sdk/otel.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { syntheticText } from './synthetic.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const RUNS = 5;
const TARGET = 100e6;
mkdirSync('bench/out', { recursive: true });

async function make(path: string, exact: boolean): Promise<void> {
  if (existsSync(path) && Math.abs(statSync(path).size - TARGET) < 0.15 * TARGET) return;
  // The OTLP file is larger than the graph it carries: size the graph from a small trial.
  const trial = JSON.parse(syntheticText({ targetBytes: 5e6 })) as TraceDocument;
  const ratio = (await otlpJson(trial, { flavour: 'genai', exact })).byteLength / 5e6;
  const doc = JSON.parse(syntheticText({ targetBytes: TARGET / ratio })) as TraceDocument;
  writeFileSync(path, await otlpJson(doc, { flavour: 'genai', exact }));
  console.log(`wrote ${path} (${(statSync(path).size / 1e6).toFixed(1)} MB)`);
}

function measure(path: string) {
  const text = readFileSync(path, 'utf8');
  const parse: number[] = [];
  const load: number[] = [];
  let summary = '';
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    JSON.parse(text);
    parse.push(performance.now() - t);
    t = performance.now();
    const r = parseTraceText(text, { file: path });
    load.push(performance.now() - t);
    if (!r.ok) throw new Error(`${path} did not import: ${r.issues[0]?.message}`);
    summary = r.summary?.text ?? '';
  }
  return { mb: statSync(path).size / 1e6, parse: median(parse), load: median(load), summary };
}

const files: [string, string, boolean][] = [
  ['memtrace export --format otlp (records: exact)', 'bench/out/otel-100mb.otlp.json', true],
  ['GenAI attributes only (inferred dataflow)', 'bench/out/otel-100mb-standard.otlp.json', false],
];
const rows: string[] = [];
const notes: string[] = [];
for (const [label, path, exact] of files) {
  await make(path, exact);
  const m = measure(path);
  const ratio = m.load / m.parse;
  rows.push(
    `| ${label} | ${m.mb.toFixed(1)} MB | ${m.parse.toFixed(0)} ms | ${m.load.toFixed(0)} ms | ${ratio.toFixed(2)}× | ${ratio <= 3 ? 'yes' : 'no'} |`,
  );
  notes.push(`- ${label}: ${m.summary}`);
  console.log(rows.at(-1));
}
writeResultsSection(
  'OpenTelemetry import (Node)',
  [
    `\`npx tsx bench/otel-import.ts\`: \`parseTraceText\` (JSON.parse, span reading, mapping, validation) on OTLP/JSON files`,
    `written by the OpenTelemetry SDK from the synthetic long-context graph; medians of ${RUNS} runs, same process.`,
    '',
    '| file | size | JSON.parse | import | ratio | ≤ 3× |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'What the import made of them:',
    ...notes,
    '',
    `Machine: ${machine}.`,
  ].join('\n'),
);
