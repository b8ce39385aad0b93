import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph, openTrace, opStructure } from '../../src/core/graph/index.ts';
import { traceStats } from '../../src/core/stats/index.ts';
import { exportSmartcomment, parseTraceText } from '../../src/core/trace/index.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const files = smartcommentFiles();
const FAULT_TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];

// biome-ignore lint/suspicious/noExplicitAny: raw JSON read independently of the importer
type Raw = any;

describe('the six real smartcomment files', () => {
  it('are all present', () => {
    expect(files.map((f) => basename(f))).toHaveLength(6);
  });

  for (const file of files) {
    const name = basename(file);
    const text = readFileSync(file, 'utf8');
    const raw: Raw = JSON.parse(text);

    it(`${name} loads with no warnings`, () => {
      const r = openTrace(text, { file: name });
      expect(r.issues).toEqual([]);
      expect(r.ok).toBe(true);
    });

    it(`${name}: stats match the file's own records`, () => {
      const r = openTrace(text, { file: name });
      if (!r.ok) throw new Error('did not load');
      const s = traceStats(r.graph);
      expect(s.sessions).toBe(raw.data.sessions.length);
      expect(s.nodes).toBe(raw.data.nodes.length);
      expect(s.operations).toBe(raw.data.operations.length);
      expect(s.edges).toBe(raw.data.edges.length);
      expect(s.annotations).toBe(raw.data.annotations.length);
      expect(s.messages).toBe(raw.data.nodes.filter((n: Raw) => n.category === 'message').length);
      const byCat: Record<string, number> = {};
      for (const n of raw.data.nodes) byCat[n.category] = (byCat[n.category] ?? 0) + 1;
      expect(s.nodes_by_category).toEqual(byCat);
      // Failed questions by the paper's rule, computed here straight from the raw records.
      const judgeOps = new Set(
        raw.data.operations
          .filter((o: Raw) => o.op_name === 'llm-judge' && o.category === 'evaluation')
          .map((o: Raw) => o.op_id),
      );
      const scoreIds = new Set(
        raw.data.edges.filter((e: Raw) => judgeOps.has(e.op_id)).map((e: Raw) => e.target_full_node_id),
      );
      const failed = raw.data.nodes.filter(
        (n: Raw) => n.class_name === 'judge_score' && scoreIds.has(n.full_node_id) && Number(n.value) === 0,
      );
      expect(s.failed_questions).toBe(failed.length);
    });

    it(`${name}: every annotation is a case carrying its exact label`, () => {
      const r = openTrace(text, { file: name });
      if (!r.ok) throw new Error('did not load');
      const cases = listCases(r.graph);
      for (const a of raw.data.annotations) {
        const c = cases.find((x) => x.queryId === a.query_id);
        expect(c, a.query_id).toBeDefined();
        expect(c!.label?.errorType).toBe(a.final_error_type);
        expect(c!.label?.opId).toBe(a.final_op_id);
        expect(c!.label?.source).toBe(a.label_source);
        expect(c!.evidenceIds).toEqual(a.source_evidence_ids);
        expect(c!.goldenAnswers).toEqual(a.golden_answers);
        expect(c!.question).toBe(a.query);
        expect(c!.prediction).toBe(a.prediction);
        expect(r.graph.opIndex.has(a.final_op_id)).toBe(true);
      }
    });

    it(`${name}: export is deep-equal to the original, and re-import gives the same graph`, () => {
      const r = parseTraceText(text, { file: name });
      if (!r.ok) throw new Error('did not load');
      const out = exportSmartcomment(r.doc);
      expect(JSON.parse(out)).toEqual(raw);
      expect(out).toBe(JSON.stringify(raw, null, 2));
      const again = parseTraceText(out, { file: 'export' });
      if (!again.ok) throw new Error('export did not load');
      const g1 = buildGraph(r.doc);
      const g2 = buildGraph(again.doc);
      expect(g2.varId).toEqual(g1.varId);
      expect(g2.opId).toEqual(g1.opId);
      expect(Array.from(g2.edgeSrc)).toEqual(Array.from(g1.edgeSrc));
      expect(Array.from(g2.opOrder)).toEqual(Array.from(g1.opOrder));
    });
  }

  it('the fault-injected label of conv-26-fault-K has the type K names, on an op of the matching category', () => {
    for (let k = 0; k < 5; k++) {
      const file = files.find((f) => basename(f) === `conv-26-fault-${k}.json`)!;
      const r = openTrace(readFileSync(file, 'utf8'), { file });
      if (!r.ok) throw new Error('did not load');
      const injected = listCases(r.graph).filter((c) => c.label?.source === 'fault-injection');
      expect(injected).toHaveLength(1);
      expect(injected[0].label!.errorType).toBe(FAULT_TYPES[k]);
      const op = r.graph.opIndex.get(injected[0].label!.opId!)!;
      const expected = ['extraction', 'update', 'deletion', 'retrieval', 'generation'][k];
      expect(r.graph.opCategory[op]).toBe(expected);
    }
  });

  it('labels total 94 across the six files', () => {
    let labelled = 0;
    for (const file of files) {
      const r = openTrace(readFileSync(file, 'utf8'), { file });
      if (r.ok) labelled += listCases(r.graph).filter((c) => c.label).length;
    }
    expect(labelled).toBe(94);
  });

  it('op structure follows the edges: a memory-update mutation reads the old store and the facts, writes the new store', () => {
    const file = files.find((f) => basename(f) === 'conv-26-fault-1.json')!;
    const r = openTrace(readFileSync(file, 'utf8'), { file });
    if (!r.ok) throw new Error('did not load');
    const g = r.graph;
    const op = g.opName.indexOf('memory-update');
    const s = opStructure(g, op);
    expect(s.outputs.map((v) => g.varFullName[v])).toEqual(['memory-store']);
    expect(s.inputs.map((v) => g.varCategory[v]).sort()).toEqual(['facts', 'memory_store']);
  });
});
