(globalThis as any).DEBUG = true;
import { listCases } from '../src/core/cases/cases.ts';
import { openTraceFile } from '../src/cli/files.ts';
import { caseContext } from '../src/core/attribution/case-context.ts';
import { Matcher, makeEvidence, evidenceCore } from '../src/core/attribution/evidence-match.ts';
import { readMessage, metadataDay } from '../src/core/attribution/said.ts';
import { followEvidence } from '../src/core/attribution/carriers.ts';
import { varMetadata } from '../src/core/graph/graph.ts';
import { loadWordVectors } from '../src/core/semantic/word-vectors.node.ts';
import { vectorSimilarity } from '../src/core/semantic/word-vectors.ts';
const [file, qid] = process.argv.slice(2);
const r = await openTraceFile(file); if (!r.ok) throw 1;
const g = r.graph;
const c = listCases(g).find(c => c.queryId === qid)!;
const cx = caseContext(g, c);
const isMsg = (v: number) => g.varCategory[v].split(/\s*&\s*/).includes('message');
const m = new Matcher(v => g.varValue[v], { layer: 'vectors', similar: vectorSimilarity(loadWordVectors()) }, v => isMsg(v) ? readMessage(g.varValue[v], varMetadata(g, v)) : { day: metadataDay(varMetadata(g, v)), speaker: null }, v => isMsg(v) ? readMessage(g.varValue[v], varMetadata(g, v)).text : null);
for (const ev of cx.evidence) {
  const said = readMessage(g.varValue[ev], varMetadata(g, ev));
  const e = makeEvidence(evidenceCore(said.text, c.question, c.goldenAnswers), c.goldenAnswers, c.question, said, m.options);
  const qo = new Set(cx.questionOps);
  const built = followEvidence(g, cx.coneOps.filter(o => !qo.has(o)), new Map([[ev, new Set([0])]]), e, m, { keep: v => cx.coneVars.has(v) });
  const asked = followEvidence(g, cx.questionOps, built.carriers, e, m, { keep: v => cx.coneVars.has(v) || cx.context.includes(v), extraInputs: cx.untracedInputs });
  console.log('EVIDENCE', g.varId[ev], 'critical', JSON.stringify(e.critical).slice(0, 300));
  for (const [v, us] of asked.carriers) console.log('  carrier', g.varId[v], g.varCategory[v], [...us].map(i => JSON.stringify(m.unitTexts(v)[i]).slice(0, 160)).join(' || '));
  for (const [v] of built.carriers) if (!asked.carriers.has(v) || true) {} 
  console.log('  built carriers', [...built.carriers.keys()].map(v => g.varId[v]).join(' '));
  console.log('  construction drops', built.drops.map(d => g.opName[d.op]).join(', '));
  console.log('  question drops', asked.drops.map(d => g.opName[d.op]).join(', '));
}
console.log('context', cx.context.map(v => g.varId[v]));
