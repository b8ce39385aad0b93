import { readFileSync } from 'node:fs';
import { listCases } from '../src/core/cases/cases.ts';
import { openTrace } from '../src/core/graph/open.ts';
import { caseContext } from '../src/core/attribution/case-context.ts';
const FILE = 'bench/out/synthetic-100mb.json';
const r = openTrace(readFileSync(FILE, 'utf8'), { file: FILE });
if (!r.ok) throw 1;
const g = r.graph;
const cases = listCases(g);
let t = performance.now(); const cpu0 = process.cpuUsage();
for (const c of cases.slice(0, 4)) { const cx = caseContext(g, c); console.log('store', cx.store.length, 'read', cx.storeRead.length, 'coneOps', cx.coneOps.length, 'removed', cx.removed.size, 'qops', cx.questionOps.length); }
console.log("caseContext wall ms/case", (performance.now() - t) / 4, "cpu ms/case", (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 4000);
