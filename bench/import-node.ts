/**
 * Import speed and memory of the trace core on the ~100 MB synthetic graph, in Node.
 * `npm run bench:import` (writes the file if missing, then the `Trace import (Node)` section of RESULTS.md).
 * Each measurement runs in a fresh child process, so peak memory (VmHWM) is not polluted by other runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildGraph } from '../src/core/graph/index.ts';
import { parseTraceText } from '../src/core/trace/index.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';
import { writeSynthetic } from './write-synthetic.ts';

const FILE = 'bench/out/synthetic-100mb.json';
const RUNS = 5;

function vm(field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Child mode: one measurement, printed as JSON. */
function child(mode: string) {
  const before = vm('VmRSS');
  const text = readFileSync(FILE, 'utf8');
  const t0 = performance.now();
  let ok = true;
  if (mode === 'parse') JSON.parse(text);
  else if (mode === 'validate') ok = parseTraceText(text, { file: FILE }).ok;
  else {
    const r = parseTraceText(text, { file: FILE });
    ok = r.ok;
    if (r.ok) buildGraph(r.doc);
  }
  const ms = performance.now() - t0;
  const v8 = process.memoryUsage();
  console.log(JSON.stringify({ ms, ok, peakRss: vm('VmHWM') - before, heapUsed: v8.heapUsed }));
}

if (process.argv[2] === '--child') child(process.argv[3]);
else {
  if (!existsSync(FILE)) {
    mkdirSync(dirname(FILE), { recursive: true });
    console.log(`writing ${FILE}…`);
    await writeSynthetic(FILE, 100);
  }
  const size = statSync(FILE).size;
  const machine = machineFacts();
  const results: Record<string, { ms: number; peakRss: number; heapUsed: number }[]> = {};
  for (const mode of ['parse', 'validate', 'import']) {
    results[mode] = [];
    for (let i = 0; i < RUNS; i++) {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', 'bench/import-node.ts', '--child', mode],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      );
      const r = JSON.parse(out.trim().split('\n').pop()!);
      if (!r.ok) throw new Error(`${mode}: the synthetic file did not load`);
      results[mode].push(r);
    }
  }
  const mb = (b: number) => (b / 1e6).toFixed(0);
  const row = (mode: string, label: string) => {
    const ms = median(results[mode].map((r) => r.ms));
    const rss = median(results[mode].map((r) => r.peakRss));
    return `| ${label} | ${ms.toFixed(0)} | ${(ms / median(results.parse.map((r) => r.ms))).toFixed(2)}× | ${mb(rss)} MB (${(rss / size).toFixed(2)}× file) |`;
  };
  const body = [
    `File: \`${FILE}\`, ${mb(size)} MB (synthetic long-context run from \`bench/synthetic.ts\`; long window values repeated across ${'versions'}).`,
    `Machine: ${machine}. ${RUNS} runs each in a fresh process; medians. Peak memory = peak resident set (VmHWM) minus the resident set before reading the file — it includes the file text itself.`,
    '',
    '| step | median ms | vs JSON.parse | peak memory added |',
    '| --- | --- | --- | --- |',
    row('parse', 'JSON.parse only'),
    row('validate', 'parseTraceText (parse + validation)'),
    row('import', 'parseTraceText + buildGraph (full import)'),
    '',
    'Goals: full import ≤ 2× JSON.parse; peak memory ≤ 3× the file size.',
    `Measured with \`npm run bench:import\` on ${new Date().toISOString().slice(0, 10)}.`,
  ].join('\n');
  console.log(body);
  writeResultsSection('Trace import (Node)', body);
}
