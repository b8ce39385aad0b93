/**
 * The carrying test learned from the trace's own judge, time read as intervals, copies of a
 * fact, and cases that cannot be traced. Expectations are stated from the graphs built here
 * (which judge produced the verdicts, which units were written), never read off the attributor.
 */
import { describe, expect, it } from 'vitest';
import {
  accepts,
  answerFeatures,
  attributeEvidenceFlow,
  criticalInfo,
  JudgePool,
  judgedSample,
  judgeFitSteps,
  judgeIdentity,
  judgeText,
  traceJudgeFit,
  withOthers,
} from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { referenceDay } from '../../src/core/nlp/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { searchThenRerank } from '../helpers/search-then-rerank.ts';

const py = (s: string) => `'${s.replace(/'/g, "\\'")}'`;
const pyList = (xs: string[]) => `[${xs.map(py).join(', ')}]`;

/** A question the judge already decided: query, prediction, golden answer and its verdict. */
function judged(b: DocBuilder, id: string, q: string, prediction: string, golden: string, ok: boolean) {
  const query = b.variable(`q-${id}`, py(q), { className: 'query', category: 'message & query' });
  const pred = b.variable(`p-${id}`, py(prediction), { className: 'prediction', category: 'answer' });
  const gold = b.variable(`g-${id}`, pyList([golden]), { className: 'golden_answers', category: 'golden' });
  const score = b.variable(`s-${id}`, ok ? '1.0' : '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [query, pred, gold], [score]);
}

/**
 * Earlier questions of the run, judged by `judge`: 'half' passes a prediction holding at least
 * half of the golden answer's words, 'containment' only one holding the whole answer in order.
 * Each prediction below is built to hold a known number of the golden answer's words.
 */
function history(b: DocBuilder, judge: 'half' | 'containment') {
  const items: [string, string][] = [
    ['What does Tom grow in his garden?', 'tomatoes peppers basil and mint'],
    ['What did Ana bring to the picnic?', 'lemonade sandwiches grapes and cookies'],
    ['Which cities did Raj visit?', 'Lisbon Porto Seville and Madrid'],
    ['What instruments does Mia play?', 'piano violin cello and flute'],
    ['What did Ben buy at the market?', 'apples bread cheese and honey'],
    ['What sports does Lea follow?', 'tennis rugby cycling and sailing'],
  ];
  items.forEach(([q, golden], i) => {
    const w = golden.split(' ').filter((x) => x !== 'and');
    // Whole answer in order: both judges pass it.
    judged(b, `whole-${i}`, q, `It was ${golden}.`, golden, true);
    // Two of four words, out of order: half passes, containment does not.
    judged(b, `two-${i}`, q, `${w[2]} and ${w[0]}`, golden, judge === 'half');
    // One of four words: neither passes.
    judged(b, `one-${i}`, q, `Only ${w[3]}, I think.`, golden, false);
  });
}

/** What one failed case of a single-fact run states: its message, the memory kept of it, the question. */
interface OneFact {
  /** Suffix of the case's ids ("qa-<id>", "pred-<id>", …). */
  id: string;
  /** The evidence message's id and text, and when it was said. */
  message: string;
  said: string;
  timestamp: string;
  /** The one unit extracted, stored and retrieved. */
  unit: string;
  question: string;
  prediction: string;
  golden: string;
  /** Another message of the session the extraction read with it (by default it read this one alone). */
  alsoRead?: string;
}

/**
 * One message extracted into one unit, stored, retrieved into the answer's context, and a wrong
 * answer judged wrong, after the judged history already in `b`.
 */
function oneFactRun(b: DocBuilder, f: OneFact) {
  const msg = b.variable(f.message, py(f.said), {
    category: 'message',
    metadata: { timestamp: f.timestamp },
  });
  const prompt = b.variable('extract-prompt', py('Extract facts.'), { category: 'prompt' });
  const facts = b.variable('facts-1', pyList([f.unit]), { category: 'facts' });
  const other = f.alsoRead
    ? [
        b.variable(`${f.message}-next`, py(f.alsoRead), {
          category: 'message',
          metadata: { timestamp: f.timestamp },
        }),
      ]
    : [];
  const extract = b.op('extract', 'llm_call', [msg, ...other, prompt], [facts]);
  const store = b.variable('store', pyList([f.unit]), { category: 'memory_store' });
  b.op('add', 'mutation', [facts], [store]);
  const q = b.variable(`qa-${f.id}`, py(f.question), { className: 'query', category: 'message & query' });
  const context = b.variable('context', pyList([f.unit]), { category: 'retrieved' });
  b.op('search', 'search', [q, store], [context]);
  const pred = b.variable(`pred-${f.id}`, py(f.prediction), { className: 'prediction', category: 'answer' });
  const answer = b.op('answer', 'llm_call', [q, context], [pred]);
  const gold = b.variable(`gold-${f.id}`, pyList([f.golden]), {
    className: 'golden_answers',
    category: 'golden',
  });
  const score = b.variable(`score-${f.id}`, '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  const c = listCases(g).find((x) => x.queryId.includes(`qa-${f.id}`));
  if (!c) throw new Error('case not listed');
  return { g, c: { ...c, evidenceIds: [`${f.message}@1`] }, extract, answer };
}

/** Caroline's pets told once; a memory that keeps the shelter cat only; asked and failed. */
function petsRun(judge: 'half' | 'containment') {
  const b = new DocBuilder();
  history(b, judge);
  return oneFactRun(b, {
    id: 'pets',
    message: 'conv:D1:1',
    said: "Caroline: My pets are Luna, who is from the shelter, and Max, who was my mother's cat.",
    timestamp: '8 May, 2023',
    unit: "Caroline's pet Luna is the shelter cat",
    question: "What are Caroline's pets and where are they from?",
    prediction: 'Caroline has a dog.',
    golden: "Luna is from the shelter and Max is her mother's cat",
  });
}

/** John's favourite player, extracted as Tim's; `alsoRead`: the extraction read Tim's reply too. */
function playerRun(alsoRead: boolean) {
  const b = new DocBuilder();
  history(b, 'half');
  return oneFactRun(b, {
    id: 'player',
    message: 'conv:D12:20',
    said: 'John: The Wolves are my team for sure. And LeBron is the man - love his leadership.',
    timestamp: '2 October, 2023',
    unit: "Tim's favorite basketball team is The Wolves and his favorite player is LeBron.",
    question: "Who is John's favorite basketball player?",
    prediction: 'Michael Jordan',
    golden: 'LeBron James',
    ...(alsoRead ? { alsoRead: 'Tim: The Wolves are solid, and I love watching LeBron.' } : {}),
  });
}

/** John's march; the memory keeps "event", the answer's word the question also says. */
function marchRun(judge: 'half' | 'containment') {
  const b = new DocBuilder();
  history(b, judge);
  return oneFactRun(b, {
    id: 'march',
    message: 'conv:D21:22',
    said: "John: I just participated in a marching event for veterans' rights and it was awesome.",
    timestamp: '3 July, 2023',
    unit: "John took part in a veterans' rights event.",
    question: "What event did John participate in to show support for veterans' rights?",
    prediction: 'A bake sale.',
    golden: 'marching event',
  });
}

describe('answer words the question also says', () => {
  it('count for a judge counting a share of the answer’s words, as they count in its verdicts', async () => {
    // "event" is one of the two words of "marching event": half of them, for this judge.
    const half = marchRun('half');
    const a = await attributeEvidenceFlow({ graph: half.g, case: half.c });
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: half.answer });
    // A containment judge wants "marching event" itself: the extraction lost it.
    const strict = marchRun('containment');
    const b = await attributeEvidenceFlow({ graph: strict.g, case: strict.c });
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: strict.extract });
  });
});

describe('a memory written from one message alone', () => {
  it('keeps that message when it keeps the answer as the judge reads it, whatever names it uses', async () => {
    // Written from John's message alone, the memory is that message's, misattributed or not; a
    // half-the-words judge takes "LeBron" for "LeBron James", so the answer op had the answer.
    const alone = playerRun(false);
    const a = await attributeEvidenceFlow({ graph: alone.g, case: alone.c });
    expect(a.answer_rule?.source).toBe('fitted');
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: alone.answer });
    // Written from two messages, a memory about Tim may be Tim's reply's: it does not name John, so
    // it does not carry John's message, and the extraction lost it.
    const both = playerRun(true);
    const b = await attributeEvidenceFlow({ graph: both.g, case: both.c });
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: both.extract });
  });
});

describe('the carrying test is learned from the trace’s judge', () => {
  it('"Luna, the shelter cat" carries under a half-the-words judge, not under a containment judge', async () => {
    const half = petsRun('half');
    const a = await attributeEvidenceFlow({ graph: half.g, case: half.c });
    expect(a.answer_rule?.source).toBe('fitted');
    // The memory reached the answer's context and carries: the answer is at fault.
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: half.answer });

    const strict = petsRun('containment');
    const b = await attributeEvidenceFlow({ graph: strict.g, case: strict.c });
    expect(b.answer_rule?.source).toBe('fitted');
    // Under containment the memory lost Max and the mother's cat at extraction.
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: strict.extract });
  });
  it('a trace with too few verdicts of one kind keeps the documented prior, and says so', async () => {
    const b = new DocBuilder();
    judged(b, 'x', 'What does Tom grow?', 'tomatoes', 'tomatoes', false);
    const g = buildGraph(b.doc);
    const [c] = listCases(g);
    const a = await attributeEvidenceFlow({ graph: g, case: c });
    expect(a.answer_rule).toMatchObject({ source: 'prior', passed: 0, failed: 1 });
  });
});

/**
 * Earlier questions judged by `judge`: 'f1' (token F1 against the golden answer, as SQuAD) fails
 * a long prediction that holds the answer among many other words; 'half' passes it. Both pass
 * the bare answer and fail a wrong one.
 */
function precisionHistory(b: DocBuilder, judge: 'half' | 'f1', questions = 6) {
  const items: [string, string, string][] = [
    ['What does Tom grow?', 'tomatoes', 'peppers'],
    ['Where did Ana go on holiday?', 'Lisbon', 'Madrid'],
    ['Which instrument does Mia play?', 'violin', 'piano'],
    ['What did Ben buy?', 'honey', 'bread'],
    ['Which sport does Lea follow?', 'rugby', 'tennis'],
    ['What pet does Raj have?', 'parrot', 'hamster'],
  ];
  items.slice(0, questions).forEach(([q, golden, wrong], i) => {
    judged(b, `bare-${i}`, q, `${golden}.`, golden, true);
    judged(
      b,
      `long-${i}`,
      q,
      `Most weekends they walk along the river with neighbours, cook big dinners, read novels and talk about ${golden} late into the evening.`,
      golden,
      judge === 'half',
    );
    judged(b, `wrong-${i}`, q, `${wrong}.`, golden, false);
  });
}

/** Luna's shelter told once; the memory keeps it inside one long sentence of other things. */
function shelterRun(judge: 'half' | 'f1', questions = 6) {
  const b = new DocBuilder();
  precisionHistory(b, judge, questions);
  return oneFactRun(b, {
    id: 'luna',
    message: 'conv:D1:1',
    said: 'Caroline: I adopted Luna from the shelter last spring.',
    timestamp: '8 May, 2023',
    unit: 'Caroline, who volunteers every weekend, loves long river walks, paints landscapes, bakes bread for neighbours and collects old maps, adopted Luna from the shelter',
    question: 'Where did Caroline adopt Luna from?',
    prediction: 'A breeder.',
    golden: 'the shelter',
  });
}

describe('the judge fit in steps (the engine worker answers other requests between them)', () => {
  it('pauses once per judged question and gives the fit traceJudgeFit gives, kept with the graph', () => {
    const stepped = petsRun('half').g;
    // 6 items × 3 judged questions each, plus the pets question: counted from the builder above.
    const judgedQuestions = 6 * 3 + 1;
    const steps = judgeFitSteps(stepped, {});
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(pauses).toBe(judgedQuestions);
    expect(step.value).toEqual(traceJudgeFit(petsRun('half').g, {}));
    expect(step.value.passed + step.value.failed).toBe(judgedQuestions);
    // Kept: asking again does not pause, and gives the same object.
    const again = judgeFitSteps(stepped, {}).next();
    expect(again.done).toBe(true);
    expect(again.value).toBe(step.value);
  });
});

describe('a judge that weighs precision (token F1) is learned too', () => {
  it('a long memory sentence holding "the shelter" carries under a half-the-words judge, not under a token-F1 judge', async () => {
    const half = shelterRun('half');
    const a = await attributeEvidenceFlow({ graph: half.g, case: half.c });
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: half.answer });

    const f1 = shelterRun('f1');
    const b = await attributeEvidenceFlow({ graph: f1.g, case: f1.c });
    expect(b.answer_rule).toMatchObject({ source: 'fitted', agreement: 1 });
    // A token-F1 judge would not take that sentence for "the shelter": the fact was buried at extraction.
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: f1.extract });
  });
});

describe('a judge reads the whole answer; a memory is read for the span an answerer would quote', () => {
  const rule = { kind: 'f1', minShare: 0.5, words: 'lemma', finerDates: true, dates: 'span' } as const;
  const long = 'Caroline went biking with friends and explored the trails near her home. (13 September 2023)';
  it('a long answer with the right date appended fails a token-F1 judge; the same text as a memory carries the date', () => {
    const b = new DocBuilder();
    judged(b, 'bike', 'When did Caroline go biking with friends?', long, '13 September 2023', false);
    const [c] = listCases(buildGraph(b.doc), { includePassed: true });
    const sample = judgedSample(c);
    // Three golden words among a dozen of the answer's: F1 = 2·3 / (12 + 3) = 0.4 < 0.5.
    expect(sample?.features[0].answerF1).toBeLessThan(0.5);
    expect(accepts(rule, sample!.features[0])).toBe(false);
    // Read as a memory, its date is a span an answerer would quote.
    const memory = answerFeatures({ text: long, day: null, speaker: null }, '13 September 2023', c.question);
    expect(memory.answerF1).toBeUndefined();
    expect(accepts(rule, memory)).toBe(true);
  });
});

describe('one judge across several traces', () => {
  /** Two passed verdicts a trace: too few to learn its judge alone. */
  const sparse = () => shelterRun('f1', 2);
  it('a trace with too few verdicts learns its judge from the same judge in the traces opened with it', async () => {
    const alone = sparse();
    const a = await attributeEvidenceFlow({ graph: alone.g, case: alone.c });
    expect(a.answer_rule).toMatchObject({ source: 'prior', passed: 2 });
    // The prior takes the long sentence for "the shelter": the answer is blamed.
    expect(a.error_type).toBe('ResponseError');

    const pool = new JudgePool({});
    const runs = [alone, sparse(), sparse()];
    for (const r of runs) pool.add(r.g);
    const b = await attributeEvidenceFlow({ graph: alone.g, case: alone.c }, { judgePool: pool });
    // Six passed and fifteen failed verdicts of one token-F1 judge: its rule is learned, and
    // reported against this trace's own seven verdicts (two passed, five failed).
    expect(b.answer_rule).toMatchObject({ source: 'pooled', passed: 2, failed: 5, agreement: 1 });
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: alone.extract });
  });
  it('a judge with another name, description or settings is another judge', async () => {
    const other = sparse();
    for (const op of other.g.doc.data.operations)
      if (op.op_name === 'llm-judge') op.comment = 'GPT-4o judge, lenient prompt';
    const pool = new JudgePool({});
    for (const r of [sparse(), sparse()]) pool.add(r.g);
    const a = await attributeEvidenceFlow({ graph: other.g, case: other.c }, { judgePool: pool });
    expect(judgeIdentity(other.g)).not.toBe(judgeIdentity(sparse().g));
    expect(a.answer_rule?.source).toBe('prior');
  });
});

describe('time is read as intervals, against the time each text was written', () => {
  const day = (s: string) => referenceDay(s);
  const evidence = {
    text: 'I went to a LGBTQ support group yesterday and it was so powerful.',
    day: day('8 May, 2023'),
    speaker: 'caroline',
  };
  const question = 'When did Caroline go to the LGBTQ support group?';
  it('"on the previous day" written on 8 May 2023 carries "7 May 2023"', () => {
    const c = criticalInfo(evidence, question, ['7 May 2023']);
    const unit = {
      text: 'Caroline attended an LGBTQ support group on the previous day.',
      day: day('8 May, 2023'),
      speaker: null,
    };
    expect(judgeText(unit, c)).toBe('yes');
    // The same words written a day later point at 8 May: not the answer.
    expect(judgeText({ ...unit, day: day('9 May, 2023') }, c)).toBe('no');
  });
  it('"8 May 2023" does not carry "The week before 9 June 2023"', () => {
    const c = criticalInfo(
      { ...evidence, text: 'I went to a LGBTQ support group last week.', day: day('9 June, 2023') },
      question,
      ['The week before 9 June 2023'],
    );
    expect(c.answerSpan).not.toBeNull();
    const inside = {
      text: 'Caroline went to an LGBTQ support group on 1 June 2023.',
      day: null,
      speaker: null,
    };
    const outside = {
      text: 'Caroline went to an LGBTQ support group on 8 May 2023.',
      day: null,
      speaker: null,
    };
    expect(judgeText(inside, c)).toBe('yes');
    expect(judgeText(outside, c)).toBe('no');
  });
  it('under a judge counting date words, a relative time naming another time adds none of them', () => {
    // Two in three of the answer's five words ("week", "before", "9", "june", "2023") are needed.
    const rule = { kind: 'words', minShare: null, words: 'lemma', finerDates: true, dates: 'words' } as const;
    const c = criticalInfo(
      {
        text: 'I gave a talk at a school about my transition last week.',
        day: day('9 June, 2023'),
        speaker: 'caroline',
      },
      'When did Caroline give a talk at a school?',
      ['The week before 9 June 2023'],
      { rule },
    );
    const written = (text: string) => ({ text, day: day('9 June, 2023'), speaker: null });
    // "last week" on 9 June is the answer's week: "week before 9 June 2023", all five words.
    expect(judgeText(written('Caroline gave a talk at a school last week.'), c, { rule })).toBe('yes');
    // "three years ago" is June 2020: its reading "three years before 9 June 2023" shares four of
    // the five words, yet names another time; the day written gives three ("9 June 2023").
    expect(judgeText(written('Caroline gave a talk at a school three years ago.'), c, { rule })).toBe('no');
  });
  it('a memory that drops "yesterday" loses the time a "how long" answer is computed from', () => {
    const c = criticalInfo(
      { text: 'Lost my job as a banker yesterday.', day: day('20 January, 2023'), speaker: 'jon' },
      'How long did it take for Jon to open his studio after losing his banking job?',
      ['six months'],
    );
    expect(c.supported).toBe(true);
    const kept = { text: 'Jon lost his banking job on 19 January 2023.', day: null, speaker: null };
    const lost = { text: 'Jon lost his job as a banker on an unspecified date.', day: null, speaker: null };
    expect(judgeText(kept, c)).toBe('yes');
    expect(judgeText(lost, c)).toBe('no');
  });
});

describe('an answer told across several messages', () => {
  const half = { kind: 'words', minShare: 0.5, words: 'lemma', finerDates: true, dates: 'span' } as const;
  const every = { ...half, minShare: 1 } as const;
  const memory = (text: string) => ({ text, day: null, speaker: null });
  /** The critical information of each of several messages one person said, each knowing the others. */
  const messages = (question: string, golden: string, speaker: string, texts: string[]) =>
    withOthers(texts.map((text) => criticalInfo({ text, day: null, speaker }, question, [golden])));

  // "Oliver, Luna, Bailey": one message names Luna and Oliver, the other Bailey and Oliver.
  const [, bailey] = messages("What are Melanie's pets' names?", 'Oliver, Luna, Bailey', 'melanie', [
    'Luna and Oliver! They are so sweet and playful, my pets liven up the house.',
    'We got another cat named Bailey too. Here is a pic of Oliver, my other pet.',
  ]);
  const baileyOnly = memory('Melanie has pets including another cat named Bailey.');
  const baileyAndOliver = memory('Melanie has pets named Bailey and Oliver.');

  it('under half of the words, a message that answers alone is kept only by a memory that answers alone', () => {
    // Two of three names answer; "Bailey and Oliver" does, so its memory must: "Bailey" alone is one of three.
    expect(judgeText(baileyOnly, bailey!, { rule: half })).toBe('no');
    expect(judgeText(baileyAndOliver, bailey!, { rule: half })).toBe('yes');
  });

  it('under every word, a memory keeps a message by what the other messages lack', () => {
    // "Luna and Oliver" with "Bailey" is the whole answer; Oliver is the other message's already.
    expect(judgeText(baileyOnly, bailey!, { rule: every })).toBe('yes');
    const oliverOnly = memory('Melanie has pets, among them a cat named Oliver.');
    expect(judgeText(oliverOnly, bailey!, { rule: every })).toBe('no');
  });

  it('a message that does not answer alone is needed beside each other one that does not either', () => {
    // Three activities, one a message: two of three answer under half, so each message is needed
    // beside either other one, and its memory must keep its own activity.
    const [pottery] = messages(
      'What activities has Melanie done with her family?',
      'Pottery, painting, camping',
      'melanie',
      [
        'The kids loved the pottery workshop with the family.',
        'We love painting together as a family lately.',
        'We went camping with the family two weekends ago.',
      ],
    );
    expect(
      judgeText(memory('Melanie did a pottery workshop with her family.'), pottery!, { rule: half }),
    ).toBe('yes');
    expect(judgeText(memory('Melanie did an activity with her family.'), pottery!, { rule: half })).toBe(
      'no',
    );
  });

  it("standing in, a memory counts any of the answer's words, as the judge does", () => {
    // "cozy and comfortable": one message says cozy (and "comfy"), the other comfortable. Either
    // word is half the answer, so a memory saying "comfortable" answers where the first message did.
    const [cozy] = messages(
      'What did Gina want her customers to feel in her store?',
      'cozy and comfortable',
      'gina',
      [
        'I wanted my customers to feel cozy in the store, and the furniture is comfy too.',
        'Making the store comfortable for my customers is key.',
      ],
    );
    expect(cozy?.answerTerms.map((t) => t.key)).toEqual(['cozy']);
    const comfortable = memory('Gina chose furniture for her store that makes customers feel comfortable.');
    expect(judgeText(comfortable, cozy!, { rule: half })).toBe('yes');
    expect(
      judgeText(memory('Gina chose furniture for her store that her customers like.'), cozy!, { rule: half }),
    ).toBe('no');
  });

  it('each message is read as the judge reads it: by its kind of match', () => {
    // Under half of the words as written, "I bought a cross necklace" holds two of six ("buy" is
    // not "bought"): it answers only beside "joined a nearby church" (one more), so its memory needs
    // just "cross necklace".
    const [necklace] = messages(
      'What has Maria done to feel closer to her faith?',
      'Join a local church, buy a cross necklace',
      'maria',
      [
        'And I bought a cross necklace to feel closer to my faith, which has made me happy.',
        'Just yesterday I joined a nearby church. I wanted to feel closer to my faith.',
      ],
    );
    const surface = { ...half, words: 'surface' } as const;
    const kept = memory('Maria bought a cross necklace to feel closer to her faith.');
    expect(judgeText(kept, necklace!, { rule: surface })).toBe('yes');
    expect(
      judgeText(memory('Maria bought a necklace to feel closer to her faith.'), necklace!, { rule: surface }),
    ).toBe('no');
  });

  it("a judge asking for the whole answer in order still needs this message's words", () => {
    const [aerial] = messages('What types of yoga has Maria practiced?', 'Aerial, kundalini', 'maria', [
      'I took an aerial yoga class with my friends.',
      'Kundalini yoga has been great for me lately.',
    ]);
    const phrase = { ...half, kind: 'phrase', minShare: 1 } as const;
    expect(judgeText(memory('Maria took a yoga class with her friends'), aerial!, { rule: phrase })).toBe(
      'no',
    );
  });
});

describe('a memory keeps the answer in the words its message used', () => {
  const memory = (text: string) => ({ text, day: null, speaker: null });
  // The judge reads answers as written: "by dancing" needs "dancing". The message says "Dance":
  // no stage after it could have kept "dancing", so a memory saying "Dance" loses nothing.
  const asWritten = {
    kind: 'phrase',
    minShare: 1,
    words: 'surface',
    finerDates: true,
    dates: 'span',
  } as const;
  const dance = criticalInfo(
    {
      text: 'Wow Jon, same here! Dance is pretty much my go-to for stress relief.',
      day: null,
      speaker: 'gina',
    },
    'How do Jon and Gina both like to destress?',
    ['by dancing'],
  );

  it('"Dance is my go-to for stress relief" keeps what its message said of "by dancing"', () => {
    expect(
      judgeText(memory('Gina: Dance is pretty much my go-to for stress relief.'), dance, { rule: asWritten }),
    ).toBe('yes');
  });

  it('a memory without that word still loses it', () => {
    expect(
      judgeText(memory('Gina: Music is pretty much her go-to for stress relief.'), dance, {
        rule: asWritten,
      }),
    ).toBe('no');
  });
});

describe('the part of a message that bears on the question is found by lemma', () => {
  it('"Logging meals … your aching body" bears on "logged each meal … bodies ache", not "Sure, I will tell you"', async () => {
    // A reply as golden answer (free text: followed by the message's own words). Only "tell" is
    // shared as written, with the first sentence; the second shares "log", "meal", "food", "ache"…
    // as lemmas. It was kept as a memory the search never chose: the search lost it.
    const bearing = 'Logging meals helps me find patterns in the foods you ate and your aching body.';
    const r = searchThenRerank({
      message: `Sure, I will tell you. ${bearing}`,
      memories: [bearing, 'Budi drives a taxi every day.'],
      chosen: [1],
      kept: [0],
      question: 'Will you tell me what made my bodies ache after I logged each meal?',
      golden:
        'I will tell you: after a few days of logged meal photos every evening I can look for a pattern between what food you eat and the aches or tiredness you feel.',
      before: (b) => history(b, 'half'),
    });
    const a = await attributeEvidenceFlow({ graph: r.g, case: r.c });
    expect(a.error_type).toBe('RetrievalError');
    expect(a.op_id).toBe(r.search);
  });
});

describe('a name said only to the listener', () => {
  const bowl =
    'Caroline treasures a hand-painted bowl from a friend, which reminds her of art and self-expression.';
  it('does not tie the message to that person: a memory about the speaker keeps it', () => {
    // LoCoMo asks "Melanie's bowl"; the message is Caroline's, who only greets Melanie.
    const c = criticalInfo(
      {
        text: "Yep, Melanie! I've got a hand-painted bowl a friend made. It reminds me of art and self-expression.",
        day: null,
        speaker: 'caroline',
      },
      "What is Melanie's hand-painted bowl a reminder of?",
      ['art and self-expression'],
    );
    expect(c.entities).toEqual([]);
    expect(judgeText({ text: bowl, day: null, speaker: null }, c)).toBe('yes');
  });
  it('still counts when the message is about that person too', () => {
    // "Yep, Melanie! Your bowl…": greeted, and then spoken of, so a memory must name someone asked about.
    const c = criticalInfo(
      {
        text: "Yep, Melanie! Melanie's hand-painted bowl reminds me of art and self-expression.",
        day: null,
        speaker: 'caroline',
      },
      "What is Melanie's hand-painted bowl a reminder of?",
      ['art and self-expression'],
    );
    expect(c.entities).toEqual(['melanie']);
    expect(judgeText({ text: bowl, day: null, speaker: null }, c)).toBe('no');
  });
  it('the speaker asked about keeps every name the message holds', () => {
    const c = criticalInfo(
      {
        text: 'Yeah Jon, I could help you with making content and managing your social media accounts.',
        day: null,
        speaker: 'gina',
      },
      'What offer does Gina make to Jon regarding social media?',
      ['Helping with making content and managing his social media accounts.'],
    );
    expect(c.entities).toEqual(['gina', 'jon']);
  });
});

/**
 * Earlier dated questions, judged by `judge`: 'words' counts a date's words (as a half-the-words
 * or token-F1 judge does: "8 May 2023" holds two of the three words of "7 May 2023"), 'days'
 * reads dates as days. Each item: the exact date (both pass), the next day (only 'words'
 * passes), a date of another year and month (neither passes).
 */
function datedHistory(b: DocBuilder, judge: 'words' | 'days') {
  const items: [string, string, string, string][] = [
    ['When did Tom plant his tomatoes?', '3 April 2023', '4 April 2023', '9 October 2021'],
    ['When did Ana go to the picnic?', '12 June 2023', '13 June 2023', '2 February 2021'],
    ['When did Raj visit Lisbon?', '20 July 2023', '21 July 2023', '5 March 2020'],
    ['When did Mia play her first concert?', '8 August 2023', '9 August 2023', '14 January 2021'],
  ];
  items.forEach(([q, golden, nextDay, other], i) => {
    judged(b, `exact-${i}`, q, `On ${golden}.`, golden, true);
    judged(b, `next-${i}`, q, `On ${nextDay}.`, golden, judge === 'words');
    judged(b, `other-${i}`, q, `On ${other}.`, golden, false);
  });
}

/** Caroline's support group told on 8 May 2023 ("yesterday"); the memory written says 8 May. */
function supportGroupRun(judge: 'words' | 'days') {
  const b = new DocBuilder();
  datedHistory(b, judge);
  return oneFactRun(b, {
    id: 'group',
    message: 'conv:D1:3',
    said: 'Caroline: I went to a LGBTQ support group yesterday.',
    timestamp: '8 May, 2023',
    unit: 'Caroline went to a LGBTQ support group on 8 May 2023',
    question: 'When did Caroline go to the LGBTQ support group?',
    prediction: 'I do not know.',
    golden: '7 May 2023',
  });
}

describe('a judge that reads dates as words is learned too', () => {
  it('"8 May 2023" carries "7 May 2023" under a judge counting date words, not under one reading days', async () => {
    const words = supportGroupRun('words');
    const a = await attributeEvidenceFlow({ graph: words.g, case: words.c });
    expect(a.answer_rule?.source).toBe('fitted');
    expect(a.answer_rule?.description).toMatch(/dates read as words/);
    // The memory reached the answer's context and, for this judge, gives the answer.
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: words.answer });

    const days = supportGroupRun('days');
    const b = await attributeEvidenceFlow({ graph: days.g, case: days.c });
    expect(b.answer_rule?.description).not.toMatch(/dates read as words/);
    // Read as days, the memory moved the event a day: the extraction lost the answer.
    expect(b).toMatchObject({ error_type: 'ExtractionError', op_id: days.extract });
  });
});

/**
 * Earlier questions judged by SQuAD token F1 ≥ 0.5 (every word counts): "Paris, France" (F1 2/3)
 * passes for "Paris", "He moved to Paris." (1 of 4 words: 0.4) fails, though both hold the
 * answer and the same share of content words. A rule counting answer or content words cannot
 * tell them apart.
 */
function tokenHistory(b: DocBuilder) {
  const items: [string, string, string, string][] = [
    ['Where did Tom move?', 'Paris', 'Paris, France.', 'He moved to Paris.'],
    ['What pet does Ana have?', 'a cat', 'A cat, Milo.', 'She has got a cat.'],
    ['What instrument does Mia play?', 'violin', 'Violin, mostly.', 'She plays it on violin.'],
    ['Which city did Raj visit?', 'Lisbon', 'Lisbon, Portugal.', 'He went there to Lisbon.'],
  ];
  items.forEach(([q, golden, short, wordy], i) => {
    judged(b, `short-${i}`, q, short, golden, true);
    judged(b, `wordy-${i}`, q, wordy, golden, false);
    judged(b, `wrong-${i}`, q, 'I am not sure.', golden, false);
  });
}

/** Caroline's research told once; the memory keeps it only inside a long sentence. */
function researchRun(judge: 'tokens' | 'half') {
  const b = new DocBuilder();
  if (judge === 'tokens') tokenHistory(b);
  else history(b, 'half');
  return oneFactRun(b, {
    id: 'research',
    message: 'conv:D2:4',
    said: 'Caroline: I researched adoption agencies.',
    timestamp: '3:31 pm on 23 August, 2023',
    unit: 'Caroline spent the whole weekend on her old laptop reading about many adoption agencies near her new home',
    question: 'What did Caroline research?',
    prediction: 'She researched schools.',
    golden: 'adoption agencies',
  });
}

describe('a token-F1 judge is learned as one', () => {
  it('reads a memory as that judge would: a long sentence holding the answer does not give it', async () => {
    const tokens = researchRun('tokens');
    const a = await attributeEvidenceFlow({ graph: tokens.g, case: tokens.c });
    expect(a.answer_rule?.source).toBe('fitted');
    expect(a.answer_rule?.description).toMatch(/^token F1 ≥ 0.5/);
    expect(a.answer_rule?.agreement).toBe(1);
    // 2 of the unit's 17 counted words: F1 0.21, so the extraction lost the answer for this judge.
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: tokens.extract });

    // A judge asking for half of the answer's words takes the same unit: the answer op is blamed.
    const half = researchRun('half');
    const b = await attributeEvidenceFlow({ graph: half.g, case: half.c });
    expect(b.answer_rule?.description).not.toMatch(/token F1/);
    expect(b).toMatchObject({ error_type: 'ResponseError', op_id: half.answer });
  });
});

describe('a memory written from one message alone, under a token-F1 judge', () => {
  it('is read with the message’s day as the trace writes it', async () => {
    const b = new DocBuilder();
    tokenHistory(b);
    const run = oneFactRun(b, {
      id: 'tournament',
      message: 'conv:D10:2',
      said: "John: I've been organizing something with my friends yesterday - it was cool!",
      timestamp: '12:45 am on 8 May, 2022',
      unit: 'James mentioned being busy at work.',
      question: 'When did John first organize a charity tournament with his friends?',
      prediction: 'In October 2022.',
      golden: 'May 7, 2022',
    });
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    expect(a.answer_rule?.description).toMatch(/^token F1 ≥ 0.5/);
    // "12:45 am on 8 May, 2022" shares "may" and "2022" with "May 7, 2022": F1 2/5 (a day written
    // "8 May 2022" would reach 2/3). The memory lost "yesterday": the extraction is at fault.
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: run.extract });
  });

  /** John's tournament told on 8 May 2022 ("yesterday"); the memory keeps the tournament, not when. */
  const tournamentRun = (golden: string) => {
    const b = new DocBuilder();
    tokenHistory(b);
    return oneFactRun(b, {
      id: 'tournament',
      message: 'conv:D10:2',
      said: 'John: I organized a charity tournament with my friends yesterday!',
      timestamp: '8 May, 2022',
      unit: 'Charity tournament',
      question: 'When did John first organize a charity tournament with his friends?',
      prediction: 'In October 2022.',
      golden,
    });
  };

  it('takes the day a memory was written as a date: the next day does not give the answer', async () => {
    const run = tournamentRun('May 7, 2022');
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    expect(a.answer_rule?.description).toMatch(/^token F1 ≥ 0.5/);
    // Read as words, "8 May, 2022" shares "may" and "2022" with "May 7, 2022" (F1 2/3), yet it
    // is another day: the memory lost "yesterday", so the extraction is at fault.
    expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: run.extract });
  });

  it('keeps the day a memory was written when the answer is written against it', async () => {
    const run = tournamentRun('The day before 8 May 2022');
    const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
    // "8 May, 2022" is the day the answer names: 3 of its 5 words (F1 3/4). The memory reached the
    // context and gives the answer to this judge: the answer op is at fault.
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: run.answer });
  });
});

/** Mem0's shape: one store per speaker, each unit its own chain; the fact is added to both. */
function copiesRun(opts: { retrieveCopy: boolean; deleteBoth?: boolean; copyAfterDeletion?: boolean }) {
  const b = new DocBuilder();
  const fact = 'Jon started hip-hop dance classes for kids';
  const msg = b.variable('conv:D1:1', py('Jon: I started hip-hop dance classes for kids!'), {
    category: 'message',
  });
  const facts = b.variable('facts-1', pyList([fact]), { category: 'facts' });
  b.op('extract', 'llm_call', [msg], [facts]);
  const jon1 = b.variable('mem0:Jon:u1', `{'id': 'u1', 'memory': ${py(fact)}}`, { category: 'memory_entry' });
  b.op('add_memory', 'memory', [facts], [jon1]);
  // Jon's copy is deleted (by an op named so, in a generic category); Gina's copy stays.
  const deleteJon = () => {
    const jon2 = b.variable('mem0:Jon:u1', 'None', { category: 'memory_entry', version: 2 });
    return { jon2, deletion: b.op('delete_memory', 'memory', [jon1], [jon2]) };
  };
  // Gina's copy is written before Jon's is deleted, or (copyAfterDeletion) only after: then for a
  // while no copy was left.
  const early = opts.copyAfterDeletion ? deleteJon() : null;
  const gina1 = b.variable('mem0:Gina:u2', `{'id': 'u2', 'memory': ${py(fact)}}`, {
    category: 'memory_entry',
  });
  b.op('add_memory', 'memory', [facts], [gina1]);
  const other = b.variable('mem0:Gina:u3', `{'id': 'u3', 'memory': 'Gina opened a clothing store'}`, {
    category: 'memory_entry',
  });
  b.op('add_memory', 'memory', [facts], [other]);
  const { jon2, deletion } = early ?? deleteJon();
  // Optionally Gina's copy goes too, later: from then on no copy is left.
  const gina2 = opts.deleteBoth
    ? b.variable('mem0:Gina:u2', 'None', { category: 'memory_entry', version: 2 })
    : '';
  const lastDeletion = opts.deleteBoth ? b.op('delete_memory', 'memory', [gina1], [gina2]) : '';
  const q = b.variable('qa-1', py('What classes did Jon start?'), {
    className: 'query',
    category: 'message & query',
  });
  const lines = opts.retrieveCopy ? [fact, 'Gina opened a clothing store'] : ['Gina opened a clothing store'];
  const context = b.variable('retrieved', pyList(lines), { category: 'retrieved' });
  const search = b.op(
    'search_memory',
    'retrieval',
    [q, jon2, opts.deleteBoth ? gina2 : gina1, other],
    [context],
  );
  const pred = b.variable('pred-1', py('Jon started a bakery.'), {
    className: 'prediction',
    category: 'answer',
  });
  const answer = b.op('answer', 'llm_call', [q, context], [pred]);
  const gold = b.variable('gold-1', pyList(['hip-hop dance classes for kids']), {
    className: 'golden_answers',
    category: 'golden',
  });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  const [c] = listCases(g);
  return { g, c: { ...c, evidenceIds: ['conv:D1:1@1'] }, deletion, lastDeletion, search, answer };
}

describe('copies of a fact', () => {
  it('a fact kept in two units is not lost when one is deleted', async () => {
    const reached = copiesRun({ retrieveCopy: true });
    const a = await attributeEvidenceFlow({ graph: reached.g, case: reached.c });
    expect(a).toMatchObject({ error_type: 'ResponseError', op_id: reached.answer });
    const missed = copiesRun({ retrieveCopy: false });
    const b = await attributeEvidenceFlow({ graph: missed.g, case: missed.c });
    // Gina's copy was still in the store: the search lost it, not the deletion.
    expect(b).toMatchObject({ error_type: 'RetrievalError', op_id: missed.search });
    expect(b.op_id).not.toBe(missed.deletion);
  });
  it('a copy deleted while no other copy held the fact is the earliest fault, though a later copy came back', async () => {
    // The paper's decisive error: the earliest faulty op whose repair (every later op ideal) saves
    // the answer. When Jon's copy went, no copy was left; Gina's came only later.
    for (const retrieveCopy of [false, true]) {
      const run = copiesRun({ retrieveCopy, copyAfterDeletion: true });
      const a = await attributeEvidenceFlow({ graph: run.g, case: run.c });
      expect(a).toMatchObject({ error_type: 'DeletionError', op_id: run.deletion });
    }
  });
  it('when every copy is deleted, the deletion of the last copy lost the answer for good', async () => {
    const gone = copiesRun({ retrieveCopy: false, deleteBoth: true });
    const a = await attributeEvidenceFlow({ graph: gone.g, case: gone.c });
    expect(a).toMatchObject({ error_type: 'DeletionError', op_id: gone.lastDeletion });
  });
});

describe('cases that cannot be traced', () => {
  it('an adversarial question (empty golden answer) is not attributable', async () => {
    const b = new DocBuilder();
    const msg = b.variable('conv:D1:1', py('Gina: My team won first place with "Finding Freedom"!'), {
      category: 'message',
    });
    const store = b.variable('store', pyList(["Gina's team won first place"]), { category: 'memory_store' });
    b.op('extract', 'llm_call', [msg], [store]);
    const q = b.variable('qa-5', py("What dance piece did Jon's team perform to win first place?"), {
      className: 'query',
      category: 'message & query',
    });
    const pred = b.variable('pred-5', py('Finding Freedom'), { className: 'prediction', category: 'answer' });
    b.op('answer', 'llm_call', [q, store], [pred]);
    const gold = b.variable('gold-5', pyList(['']), { className: 'golden_answers', category: 'golden' });
    const score = b.variable('score-5', '0.0', { className: 'judge_score', category: 'judge' });
    b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
    const g = buildGraph(b.doc);
    const [c] = listCases(g);
    const a = await attributeEvidenceFlow({ graph: g, case: { ...c, evidenceIds: ['conv:D1:1@1'] } });
    expect(a.error_type).toBeNull();
    expect(a.op_id).toBeNull();
    expect(a.not_attributable?.reason).toBe('no-golden-answer');
  });
});

describe('a memory no question-time op read (the judge learned)', () => {
  it('is the loss of the search that chose from the store, not of the rerank after it', async () => {
    const memories = ['Caroline moved from Sweden four years ago.', 'Caroline plays the acoustic guitar.'];
    const r = searchThenRerank({
      memories,
      chosen: [1],
      kept: [0],
      question: 'Which country did Caroline move from?',
      golden: 'Sweden',
      before: (b) => history(b, 'half'),
    });
    const a = await attributeEvidenceFlow({ graph: r.g, case: r.c });
    expect(a.answer_rule?.source).toBe('fitted');
    expect(a.error_type).toBe('RetrievalError');
    expect(a.op_id).toBe(r.search);
  });
});
