// Scratch: ETA/OIA of evidence-flow per layer over labelled files.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { evidenceFlowEngine } from '../src/core/attribution/engines.ts';
import { summarize } from '../src/core/bench/metrics.ts';
import { listCases } from '../src/core/cases/cases.ts';
import { systemOf } from '../src/core/cases/system.ts';
import { openTraceFile } from '../src/cli/files.ts';
import { depsFor } from '../src/cli/attribution-setup.ts';
import { loadWordVectors } from '../src/core/semantic/word-vectors.node.ts';
import { vectorSimilarity } from '../src/core/semantic/word-vectors.ts';

let dirs = process.argv.slice(2).filter(a => !a.startsWith('--'));
const part = process.argv.find(a => a.startsWith('--part='))?.slice(7);
const manifest = part ? JSON.parse((await import('node:fs')).readFileSync('bench/out/llm-bench/manifest.json', 'utf8'))[part] as string[] : null;
const layers = (process.argv.find(a => a.startsWith('--layers='))?.slice(9) ?? 'lexical,normalised,vectors').split(',');
const verbose = process.argv.includes('--verbose');
const wv = vectorSimilarity(loadWordVectors());
function files(p: string): string[] { return statSync(p).isDirectory() ? readdirSync(p).sort().flatMap(f => files(join(p, f))) : p.endsWith('.json') && !p.endsWith('summary.json') ? [p] : []; }
for (const dir of dirs) {
  const all = files(dir).filter(f => !manifest || manifest.some(m => f.endsWith(m)));
  const per: Record<string, any[]> = {};
  for (const f of all) {
    const r = await openTraceFile(f);
    if (!r.ok) continue;
    const cases = listCases(r.graph).filter(c => c.label);
    if (!cases.length) continue;
    const system = systemOf(r.graph.doc, f);
    const deps = await depsFor(r.graph, {});
    for (const layer of layers) {
      for (const c of cases) {
        const a = await evidenceFlowEngine({ graph: r.graph, case: c, system }, { ...deps, evidenceFlow: { layer: layer as any, similar: layer === 'vectors' ? wv : null } });
        (per[layer] ??= []).push({ system, label_type: c.label!.errorType, label_op: c.label!.opId, predicted_type: a.error_type, predicted_op: a.op_id, input_tokens: 0, output_tokens: 0, seconds: a.cost.seconds });
        if (verbose && layer === layers.at(-1) && (a.error_type !== c.label!.errorType || a.op_id !== c.label!.opId)) (globalThis as any).MISSES = [...((globalThis as any).MISSES ?? []), `  MISS ${f.split('/').pop()} ${c.queryId} label=${c.label!.errorType} got=${a.error_type} ${a.op_id === c.label!.opId ? 'op-ok' : 'op-wrong'} | ${c.question} | ${c.goldenAnswers} | ${a.reason.slice(0, 200)}`];
      }
    }
  }
  for (const layer of layers) {
    const s = summarize(per[layer] ?? []);
    const bt = Object.entries(s.by_error_type).map(([t, x]: any) => `${t.replace('Error','')} ${x.total}:${(100*x.error_type_accuracy).toFixed(0)}/${(100*x.op_id_accuracy).toFixed(0)}`).join(' ');
    console.log(`${dir} [${layer}] n=${s.total_cases} ETA ${(100*s.error_type_accuracy).toFixed(1)} OIA ${(100*s.op_id_accuracy).toFixed(1)} mETA ${(100*s.macro_error_type_accuracy).toFixed(1)} mOIA ${(100*s.macro_op_id_accuracy).toFixed(1)} | ${bt}`);
  }
}

const misses: string[] = (globalThis as any).MISSES ?? [];
const conf: Record<string, number> = {};
for (const m of misses) { const k = / label=(\S+) got=(\S+) (\S+)/.exec(m)!; const key = `${k[1]}→${k[2]} ${k[3]}`; conf[key] = (conf[key] ?? 0) + 1; }
console.log(Object.entries(conf).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join('\n'));
const want = process.argv.find(a => a.startsWith('--show='))?.slice(7);
if (want) for (const m of misses.filter(m => m.includes(want)).slice(0, Number(process.env.SHOW ?? 12))) console.log(m);
