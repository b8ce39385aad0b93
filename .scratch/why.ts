import { listCases } from '../src/core/cases/cases.ts';
import { openTraceFile } from '../src/cli/files.ts';
import { caseContext } from '../src/core/attribution/case-context.ts';
import { Matcher, makeEvidence, evidenceCore } from '../src/core/attribution/evidence-match.ts';
import { readMessage, metadataDay } from '../src/core/attribution/said.ts';
import { varMetadata } from '../src/core/graph/graph.ts';
import { loadWordVectors } from '../src/core/semantic/word-vectors.node.ts';
import { vectorSimilarity } from '../src/core/semantic/word-vectors.ts';
const [file, qid, layer = 'vectors'] = process.argv.slice(2);
const r = await openTraceFile(file); if (!r.ok) throw 1;
const g = r.graph;
const c = listCases(g).find(c => c.queryId === qid)!;
const cx = caseContext(g, c);
const opts = { layer: layer as any, similar: layer === 'vectors' ? vectorSimilarity(loadWordVectors()) : null };
const m = new Matcher(v => g.varValue[v], opts, v => g.varCategory[v].includes('message') ? readMessage(g.varValue[v], varMetadata(g, v)) : { day: metadataDay(varMetadata(g, v)), speaker: null }, v => g.varCategory[v].includes('message') ? readMessage(g.varValue[v], varMetadata(g, v)).text : null);
for (const ev of cx.evidence) {
  const said = readMessage(g.varValue[ev], varMetadata(g, ev));
  console.log('EVIDENCE', g.varId[ev], JSON.stringify(said));
  const e = makeEvidence(evidenceCore(said.text, c.question, c.goldenAnswers), c.goldenAnswers, c.question, said, m.options);
  console.log('CRITICAL', JSON.stringify(e.critical));
  for (const v of cx.context) { const u = m.carrierUnit(v, e); if (u >= 0) console.log(' CONTEXT carrier', g.varId[v], JSON.stringify(m.unitsOf(v).texts[u]).slice(0, 300)); }
  for (const v of cx.store) { const u = m.carrierUnit(v, e); if (u >= 0) console.log(' STORE carrier(content)', g.varId[v], JSON.stringify(m.unitsOf(v).texts[u]).slice(0, 300)); }
  const { followEvidence } = await import('../src/core/attribution/carriers.ts');
  const start = new Map([[ev, new Set([0])]]);
  const qo = new Set(cx.questionOps);
  const built = followEvidence(g, cx.coneOps.filter(o => !qo.has(o)), start, e, m, { keep: v => cx.coneVars.has(v) });
  for (const [v, us] of built.carriers) console.log(' FLOW carrier', g.varId[v], [...us].map(i => JSON.stringify(m.unitTexts(v)[i]).slice(0, 200)).join(' || '));
  console.log(' DROPS', built.drops.slice(0,5).map(d => g.opName[d.op] + (d.transfer ? '(T)' : '')).join(', '));
}
