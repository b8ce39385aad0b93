import { readFileSync } from 'node:fs';
import { listCases } from '../src/core/cases/cases.ts';
import { openTrace } from '../src/core/graph/open.ts';
import { caseContext } from '../src/core/attribution/case-context.ts';
const FILE = 'bench/out/synthetic-100mb.json';
const r = openTrace(readFileSync(FILE, 'utf8'), { file: FILE });
if (!r.ok) throw 1;
const g = r.graph;
const c = listCases(g)[0];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
let last = cpu();
const acc: Record<string, number> = {};
(globalThis as any).T = (name: string) => { const n = cpu(); acc[name] = (acc[name] ?? 0) + n - last; last = n; };
for (let i = 0; i < 3; i++) { last = cpu(); caseContext(g, c); }
console.log(Object.entries(acc).map(([k, v]) => `${(v / 3).toFixed(0)}ms ${k}`).join('\n'));
