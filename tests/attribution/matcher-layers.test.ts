/**
 * The pieces the matcher layers are made of, each against values worked out by hand:
 * time expressions, lemmas and number words, the word-vector file, the middle band
 * decided by an LLM over real HTTP (its calls counted) or by a transformers.js model, and
 * judges named otherwise.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTinyModel, TINY_NAME } from '../../scripts/make-tiny-model.ts';
import { loadEmbedder } from '../../src/cli/commands/search.ts';
import {
  attributeEvidenceFlow,
  llmCarryJudge,
  sentenceModelJudge,
} from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { createChatModel, ProviderProfileSchema } from '../../src/core/llm/index.ts';
import {
  contentTerms,
  numbersAsDigits,
  referenceDay,
  spanStates,
  temporalMentions,
  termKey,
} from '../../src/core/nlp/index.ts';
import { decodeVectorFile, encodeVectorFile, WordVectors } from '../../src/core/semantic/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { useMockLlmServer } from '../llm/mock-llm-server.ts';

const day = (iso: string) => Date.parse(iso) / 86_400_000;
const span = (text: string, said: string | null) => temporalMentions(text, said ? day(said) : null)[0]?.span;

describe('time expressions as day spans', () => {
  it('reads the reference formats of LoCoMo, LongMemEval and ISO', () => {
    expect(referenceDay('1:56 pm on 8 May, 2023')).toBe(day('2023-05-08'));
    expect(referenceDay('2023/05/20 (Sat) 02:21')).toBe(day('2023-05-20'));
    expect(referenceDay('2025-12-28 (Sunday)')).toBe(day('2025-12-28'));
    expect(referenceDay('no date here')).toBeNull();
  });
  it('resolves relative expressions against the day they were said', () => {
    expect(span('I went to a support group yesterday.', '2023-05-08')).toMatchObject({
      start: day('2023-05-07'),
      end: day('2023-05-07'),
    });
    // "last month" said on 7 July 2023 is June 2023, the whole month.
    expect(span('We slept in tents last month!', '2023-07-07')).toMatchObject({
      start: day('2023-06-01'),
      end: day('2023-06-30'),
    });
    expect(span('I painted it last year.', '2023-05-08')).toMatchObject({
      start: day('2022-01-01'),
      end: day('2022-12-31'),
    });
  });
  it('keeps only the words of a relative expression when the day is unknown', () => {
    expect(temporalMentions('I went there yesterday.', null)).toEqual([
      { text: 'yesterday', span: null, relative: 'yesterday' },
    ]);
  });
  it('reads golden answers of the form "the <unit> before <date>" as that unit before the date', () => {
    const golden = span('The week before 27 June 2023', null)!;
    const said = span('I took my fam camping last week', '2023-06-27')!;
    expect(spanStates(said, golden)).toBe(true);
  });
  it('a span states another when it overlaps it and is not much coarser', () => {
    const may7 = { start: day('2023-05-07'), end: day('2023-05-07'), fuzz: 0 };
    const may = { start: day('2023-05-01'), end: day('2023-05-31'), fuzz: 0 };
    const june = { start: day('2023-06-01'), end: day('2023-06-30'), fuzz: 0 };
    expect(spanStates(may7, may7)).toBe(true);
    expect(spanStates(may, may7)).toBe(false); // "May 2023" does not say "7 May 2023"
    expect(spanStates(may7, may)).toBe(true);
    expect(spanStates(june, may)).toBe(false);
  });
});

describe('terms', () => {
  it('meet across inflections and irregular forms, not across derivations', () => {
    expect(termKey('signed')).toBe(termKey('sign'));
    expect(termKey('went')).toBe(termKey('go'));
    expect(termKey('children')).toBe(termKey('child'));
    expect(termKey('running')).toBe(termKey('runs'));
    expect(termKey('happiness')).not.toBe(termKey('happy'));
  });
  it('number words become digits', () => {
    expect(numbersAsDigits('I have two kids and seven cats')).toBe('I have 2 kids and 7 cats');
    expect(contentTerms('seven years').map((t) => t.key)).toEqual(['7', 'year']);
  });
});

describe('the word-vector file', () => {
  it('round-trips words and unit vectors (int8), and names what is wrong with a bad file', () => {
    const bytes = encodeVectorFile('test', 3, [
      ['cat', [1, 0, 0]],
      ['kitten', [0.9, 0.1, 0]],
      ['car', [0, 0, 2]],
    ]);
    const { header, words } = decodeVectorFile(bytes);
    expect(header).toMatchObject({ dims: 3, count: 3, source: 'test' });
    expect(words).toEqual(['cat', 'kitten', 'car']);
    const wv = WordVectors.fromBytes(bytes);
    // cos(cat, kitten) = 0.9 / |(0.9, 0.1, 0)| = 0.9939; int8 rounding costs at most ~1 %.
    expect(wv.similarity('cat', 'kitten')).toBeCloseTo(0.9939, 2);
    expect(wv.similarity('cat', 'car')).toBeCloseTo(0, 5);
    expect(wv.similarity('cat', 'dog')).toBeNull();
    expect(() => decodeVectorFile(bytes.subarray(0, bytes.length - 2))).toThrow(/truncated/);
    expect(() => decodeVectorFile(new TextEncoder().encode('{"x":1}\n'))).toThrow(/not a word-vector file/);
  });
});

const py = (s: string) => `'${s.replace(/'/g, "\\'")}'`;

/** A fact store whose one fact about the evidence (extracted from an exchange) was stored but not retrieved. */
function run(fact: string) {
  const b = new DocBuilder();
  const msg = b.variable(
    'conv:D1:1',
    py(
      JSON.stringify({
        content: "I've been running farther to de-stress, which has been great for my headspace.",
        name: 'Melanie',
        timestamp: '4:33 pm on 12 July, 2023',
      }),
    ),
    { category: 'message' },
  );
  // The extraction reads the exchange, not the message alone: what it wrote is judged by content.
  const reply = b.variable(
    'conv:D1:2',
    py(
      JSON.stringify({
        content: 'That sounds great!',
        name: 'Caroline',
        timestamp: '4:33 pm on 12 July, 2023',
      }),
    ),
    { category: 'message' },
  );
  const facts = b.variable('facts-1', `[${py(fact)}]`, { category: 'facts' });
  const extract = b.op('extract', 'llm_call', [msg, reply], [facts]);
  const unit = b.variable('unit-1', py(fact), { category: 'memory_unit' });
  b.op('write', 'update', [facts], [unit]);
  const other = b.variable('unit-2', py('Melanie likes the beach.'), { category: 'memory_unit' });
  const q = b.variable('qa-1', py("What has been great for Melanie's headspace?"), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: ['conv:D1:1'] },
  });
  const ctx = b.variable('context', `[${py('Melanie likes the beach.')}]`, { category: 'retrieved' });
  const search = b.op('search', 'retrieval', [q, unit, other], [ctx]);
  const pred = b.variable('pred-1', py('Not sure.'), { className: 'prediction', category: 'answer' });
  b.op('answer', 'generation', [q, ctx], [pred]);
  const gold = b.variable('gold-1', `[${py('Running')}]`, {
    className: 'golden_answers',
    category: 'golden',
  });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  return { g, c: listCases(g)[0], extract, search };
}

describe('the middle band, decided by an LLM over HTTP', () => {
  const server = useMockLlmServer();
  const judge = () =>
    llmCarryJudge(
      createChatModel(
        ProviderProfileSchema.parse({
          id: 't',
          name: 't',
          kind: 'openai',
          baseUrl: server.openaiBase,
          model: 'j',
        }),
      ),
    );

  it('a unit with the answer and the name but not the topic words goes to the judge; its yes decides', async () => {
    // "Melanie runs to clear her mind": answer ("running") and name, but neither "great" nor "headspace".
    const r = run('Melanie runs to clear her mind.');
    const without = await attributeEvidenceFlow({ graph: r.g, case: r.c }, { layer: 'normalised' });
    expect(without).toMatchObject({ error_type: 'ExtractionError', op_id: r.extract });
    expect(server.requests).toHaveLength(0);

    server.always({ reply: 'YES' });
    const a = await attributeEvidenceFlow({ graph: r.g, case: r.c }, { layer: 'normalised', judge: judge() });
    expect(a).toMatchObject({ error_type: 'RetrievalError', op_id: r.search });
    // Every request that reached the server is counted, with the server's token counts (11 in, 7 out).
    const n = server.requests.length;
    expect(n).toBeGreaterThan(0);
    expect(a.cost).toMatchObject({ llm_calls: n, input_tokens: 11 * n, output_tokens: 7 * n });
    expect(server.requests[0].body.messages[0].content).toContain('Melanie runs to clear her mind.');
  });

  it("the judge's no keeps the unit out", async () => {
    server.always({ reply: 'NO' });
    const r = run('Melanie runs to clear her mind.');
    const a = await attributeEvidenceFlow({ graph: r.g, case: r.c }, { layer: 'normalised', judge: judge() });
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: r.extract });
    expect(a.cost.llm_calls).toBe(server.requests.length);
  });
});

describe('the middle band, decided by a transformers.js sentence model', () => {
  // The tiny model the suite builds is real transformers.js inference with made-up weights, so
  // what it says about meaning is noise: the thresholds at both ends fix what the judge must say.
  it('runs the model on the undecided unit and follows its verdict', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'memtrace-judge-')), TINY_NAME);
    await makeTinyModel(dir);
    const embedder = await loadEmbedder(dir, undefined);
    const r = run('Melanie runs to clear her mind.');
    const always = sentenceModelJudge(embedder, -2);
    const never = sentenceModelJudge(embedder, 2);
    expect(always.label).toContain('sentence model');
    const yes = await attributeEvidenceFlow(
      { graph: r.g, case: r.c },
      { layer: 'normalised', judge: always },
    );
    expect(yes).toMatchObject({ error_type: 'RetrievalError', op_id: r.search });
    const no = await attributeEvidenceFlow({ graph: r.g, case: r.c }, { layer: 'normalised', judge: never });
    expect(no).toMatchObject({ error_type: 'ExtractionError', op_id: r.extract });
    expect(yes.cost.llm_calls).toBe(0);
  }, 60_000);
});

describe('judges named otherwise', () => {
  function graded(opName: string, category: string) {
    const b = new DocBuilder();
    const q = b.variable('qa-1', py('Who?'), { className: 'query', category: 'message & query' });
    const pred = b.variable('pred-1', py('Bob'), { className: 'prediction', category: 'answer' });
    b.op('answer', 'generation', [q], [pred]);
    const gold = b.variable('gold-1', `[${py('Alice')}]`, {
      className: 'golden_answers',
      category: 'golden',
    });
    const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
    b.op(opName, category, [q, pred, gold], [score]);
    return buildGraph(b.doc);
  }
  it('an op of any name that writes a judge_score for a question is a judge', () => {
    const [c] = listCases(graded('grade-answer', 'scoring'));
    expect(c).toMatchObject({ question: 'Who?', prediction: 'Bob', goldenAnswers: ['Alice'], failed: true });
  });
  it('a chosen op name makes only that op the judge', () => {
    expect(listCases(graded('grade-answer', 'scoring'), { judgeOp: 'other-op' })).toHaveLength(0);
    expect(listCases(graded('grade-answer', 'scoring'), { judgeOp: 'grade-answer' })).toHaveLength(1);
  });
});
