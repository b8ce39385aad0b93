import { describe, expect, it } from 'vitest';
import { attributeEvidenceFlow, readingWindows } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { py, pyList } from '../helpers/llm-memory-graph.ts';

// A session summary names its people in its first sentence and gives the answer in its last.
const SUMMARY = [
  'John and Tim met at 4:21 pm on 16 July, 2023.',
  'John shared about scoring 40 points in a game and celebrating with teammates.',
  'Tim talked about a magical chat with a Harry Potter fan in California.',
  'They discussed Seattle, surfing, and finding happiness through different activities.',
].join(' ');
// The digest that replaced it kept its first two sentences (the city is gone).
const DIGEST = SUMMARY.split('. ').slice(0, 2).join('. ');

/** A session-summary memory: summarize, keep, consolidate into a digest, retrieve the digest, answer wrongly. */
function summaryRun() {
  const b = new DocBuilder();
  const evidence = b.variable(
    'conv:D3:19',
    py("John: It's Seattle, I'm stoked for my game there next month! One of my favorite cities."),
    { category: 'message' },
  );
  const small = b.variable('conv:D3:20', py('Tim: Have fun there!'), { category: 'message' });
  const prompt = b.variable('summary-prompt', py('Summarize the session.'), { category: 'prompt' });
  const summary = b.variable('summary-3', py(SUMMARY), { category: 'session_summary' });
  const summarize = b.op('summarize-session', 'summarization', [evidence, small, prompt], [summary]);
  const store1 = b.variable('summary-memory', pyList(['summary-3']), { category: 'memory_store' });
  b.op('summary-memory.add', 'update', [summary], [store1]);
  const digest = b.variable('digest-1', py(DIGEST), { category: 'session_summary' });
  const consolidate = b.op('consolidate-summaries', 'consolidation', [summary], [digest]);
  const store2 = b.variable('summary-memory', pyList(['digest-1']), { category: 'memory_store', version: 2 });
  b.op('summary-memory.replace', 'update', [store1, digest], [store2]);
  const q = b.variable('qa-1', py('Which city is John excited to have a game at?'), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: ['conv:D3:19'] },
  });
  const context = b.variable('retrieved', pyList([DIGEST]), { category: 'retrieved_summaries' });
  b.op('summary-search', 'retrieval', [q, digest], [context]);
  const pred = b.variable('pred-1', py('Portland'), { className: 'prediction', category: 'answer' });
  b.op('question-answering', 'generation', [q, context], [pred]);
  const gold = b.variable('gold-1', pyList(['Seattle']), { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  return { g, c: listCases(g)[0], summarize, consolidate };
}

describe('whole-memory: a short memory unit is read whole as well as by windows', () => {
  it('reads a unit of a few sentences whole, a longer one by windows of one or two sentences only', () => {
    const three = 'One. Two. Three.';
    // Windows: each sentence, each pair of neighbours (5), and the whole unit.
    expect(readingWindows(three, 10)).toEqual(['One.', 'One. Two.', 'Two.', 'Two. Three.', 'Three.', three]);
    expect(readingWindows(three, 2)).not.toContain(three);
    expect(readingWindows(three, 0)).toHaveLength(5);
    // Two sentences are one window already.
    expect(readingWindows('One. Two.', 10)).toEqual(['One. Two.']);
  });

  it('blames the consolidation that dropped the answer, not the summary that kept it', async () => {
    const run = summaryRun();
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    expect(a.error_type).toBe('UpdateError');
    expect(a.op_id).toBe(run.consolidate);
  });

  it('read by windows only, the summary never names John beside the city: extraction is blamed', async () => {
    const run = summaryRun();
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c }, { wholeMemorySentences: 0 });
    expect(a.error_type).toBe('ExtractionError');
    expect(a.op_id).toBe(run.summarize);
  });
});
