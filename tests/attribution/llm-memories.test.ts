/**
 * Evidence-flow on memories an LLM wrote: paraphrase, third person, resolved dates,
 * summaries, a store the tracer does not see. Each graph is built so its decisive op
 * is known by construction (where the fact was lost, or that it reached the answer).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { attributeEvidenceFlow, type EvidenceFlowOptions } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { vectorSimilarity } from '../../src/core/semantic/index.ts';
import { loadWordVectors } from '../../src/core/semantic/word-vectors.node.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { factRun, message, py, pyList, type Said } from '../helpers/llm-memory-graph.ts';

let withVectors: EvidenceFlowOptions;
beforeAll(() => {
  withVectors = { layer: 'vectors', similar: vectorSimilarity(loadWordVectors()) };
}, 120_000);

async function attribute(run: ReturnType<typeof factRun>, options?: EvidenceFlowOptions) {
  return attributeEvidenceFlow({ graph: run.g, case: run.c }, options ?? withVectors);
}

const CAMPING: Said = {
  speaker: 'Caroline',
  text: 'We took the kids to the mountains and slept in tents last month!',
  date: '10:37 am on 7 July, 2023',
};
const POTTERY: Said = {
  speaker: 'Melanie',
  text: "Wow, Caroline! That's great! I just signed up for a pottery class yesterday. It's like therapy for me.",
  date: '1:36 pm on 3 July, 2023',
};
const RUNNING: Said = {
  speaker: 'Melanie',
  text: "I've been running farther to de-stress, which has been great for my headspace.",
  date: '4:33 pm on 12 July, 2023',
};
const SUPPORT: Said = {
  speaker: 'Caroline',
  text: 'I went to a LGBTQ support group yesterday and it was so powerful.',
  date: '1:56 pm on 8 May, 2023',
};
const OTHERS = [
  {
    said: {
      speaker: 'Melanie',
      text: 'I ran a charity race for mental health last Saturday.',
      date: '1:14 pm on 25 May, 2023',
    },
    facts: ['Melanie ran a charity race for mental health on 20 May 2023.'],
  },
  {
    said: {
      speaker: 'Caroline',
      text: 'I have been reading a lot about adoption agencies.',
      date: '1:14 pm on 25 May, 2023',
    },
    facts: ['Caroline is researching adoption agencies.'],
  },
];

describe('paraphrased memories still carry the evidence', () => {
  const camping = (facts: string[], retrieved: boolean) =>
    factRun({
      evidence: CAMPING,
      facts,
      others: OTHERS,
      question: 'When did Caroline go camping in the mountains?',
      gold: 'June 2023',
      retrieved,
    });
  it('"went camping in the mountains with her kids in June 2023" holds "slept in tents last month" (said in July)', async () => {
    const fact = 'Caroline went camping in the mountains with her kids in June 2023.';
    const missed = camping([fact], false);
    expect(await attribute(missed)).toMatchObject({ error_type: 'RetrievalError', op_id: missed.ops.search });
    const held = camping([fact], true);
    expect(await attribute(held)).toMatchObject({ error_type: 'ResponseError', op_id: held.ops.answer });
  });
  it('"Caroline camped in June 2023" holds it too', async () => {
    const run = camping(['Caroline camped in June 2023.'], false);
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
  it('a memory that kept the trip but lost its date lost the critical information: ExtractionError', async () => {
    const run = camping(['Caroline took her kids on a camping trip in the mountains.'], true);
    expect(await attribute(run)).toMatchObject({ error_type: 'ExtractionError', op_id: run.ops.extract });
  });
  it('"Melanie enrolled in a ceramics course on 2 July 2023" holds "I just signed up for a pottery class yesterday"', async () => {
    const run = factRun({
      evidence: POTTERY,
      facts: ['Melanie enrolled in a ceramics course on 2 July 2023, which she finds therapeutic.'],
      others: OTHERS,
      question: 'When did Melanie sign up for a pottery class?',
      gold: '2 July 2023',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
  it('"Melanie runs to clear her mind" holds "running has been great for my headspace"', async () => {
    const run = factRun({
      evidence: RUNNING,
      facts: ['Melanie runs to clear her mind and de-stress.'],
      others: OTHERS,
      question: 'What has Melanie been doing to de-stress?',
      gold: 'Running',
      retrieved: true,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'ResponseError', op_id: run.ops.answer });
  });
  it('a relative date in the message is compared with the absolute date in the memory and the golden answer', async () => {
    const resolved = factRun({
      evidence: SUPPORT,
      facts: ['Caroline attended an LGBTQ support group on 7 May 2023 and found it powerful.'],
      others: OTHERS,
      question: 'When did Caroline go to the LGBTQ support group?',
      gold: '7 May 2023',
      retrieved: false,
    });
    expect(await attribute(resolved)).toMatchObject({
      error_type: 'RetrievalError',
      op_id: resolved.ops.search,
    });
    // Off by a day: not the same date.
    const wrongDay = factRun({
      evidence: SUPPORT,
      facts: ['Caroline attended an LGBTQ support group on 6 May 2023.'],
      others: OTHERS,
      question: 'When did Caroline go to the LGBTQ support group?',
      gold: '7 May 2023',
      retrieved: true,
    });
    expect(await attribute(wrongDay)).toMatchObject({
      error_type: 'ExtractionError',
      op_id: wrongDay.ops.extract,
    });
  });
  it('a memory keeping the whole answer ("indoor bouldering") needs only one of the question\'s topic words', async () => {
    const run = factRun({
      evidence: {
        speaker: 'Ana',
        text: "Work has been hectic, but I just started doing indoor bouldering, it's great. Have you tried any new workout classes?",
        date: '9:20 am on 3 March, 2023',
      },
      facts: ['Ana helps out at the library on weekends and recently started indoor bouldering.'],
      others: OTHERS,
      question: 'What type of workout class did Ana start doing?',
      gold: 'indoor bouldering',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
  it('answer words the question already says do not count: "gluten-free chocolate cake" does not hold "gluten-free chocolate mousse"', async () => {
    const run = factRun({
      evidence: {
        speaker: 'Ana',
        text: 'Lemon sorbet is great, but my real weakness is a gluten-free chocolate mousse.',
        date: '2:10 pm on 4 June, 2023',
      },
      facts: ['Ana enjoys gluten-free desserts such as lemon sorbet and a gluten-free chocolate cake.'],
      others: OTHERS,
      question: 'Which gluten-free dessert does Ana love besides lemon sorbet?',
      gold: 'gluten-free chocolate mousse',
      retrieved: true,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'ExtractionError', op_id: run.ops.extract });
  });
  it('another memory that states a similar answer does not stand in for the evidence', async () => {
    // The retrieved memory is about a different race; the evidence's unit was not retrieved.
    const run = factRun({
      evidence: {
        speaker: 'Melanie',
        text: 'I ran a 5k for charity last Sunday!',
        date: '1:14 pm on 25 May, 2023',
      },
      facts: ['Melanie ran a 5k charity race on 21 May 2023.'],
      others: OTHERS,
      question: 'When did Melanie run a charity race?',
      gold: 'The sunday before 25 May 2023',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
});

describe('shapes real traces have', () => {
  it('a store the search does not take as an input is inferred from what it returned', async () => {
    const base = {
      evidence: POTTERY,
      facts: ['Melanie signed up for a pottery class on 2 July 2023.'],
      others: OTHERS,
      question: 'When did Melanie sign up for a pottery class?',
      gold: '2 July 2023',
      untracedStore: true,
    };
    const missed = factRun({ ...base, retrieved: false });
    expect(await attribute(missed)).toMatchObject({ error_type: 'RetrievalError', op_id: missed.ops.search });
    const held = factRun({ ...base, retrieved: true });
    expect(await attribute(held)).toMatchObject({ error_type: 'ResponseError', op_id: held.ops.answer });
  });

  it('a session summary carries the facts of several messages; a consolidation that drops one is an UpdateError', async () => {
    const b = new DocBuilder();
    const msgs = [SUPPORT, CAMPING].map((s, i) =>
      b.variable(`conv:D1:${i + 1}`, message(s), { category: 'message', metadata: { timestamp: s.date } }),
    );
    const summaryText =
      'Caroline told Melanie about the LGBTQ support group she attended on 7 May 2023. She also said the group made her feel accepted. Later Caroline described a camping trip in the mountains with her kids in June 2023.';
    const s1 = b.variable('session-summary', py(summaryText), { category: 'summary' });
    const summarise = b.op('summarise-session', 'llm_call', msgs, [s1]);
    const s2 = b.variable(
      'session-summary',
      py('Caroline and Melanie talked about family and camping in June 2023.'),
      {
        category: 'summary',
        version: 2,
      },
    );
    const consolidate = b.op('consolidate', 'update', [s1], [s2]);
    const q = b.variable('qa-1', py('When did Caroline go to the LGBTQ support group?'), {
      className: 'query',
      category: 'message & query',
      metadata: { evidence: ['conv:D1:1'] },
    });
    const ctx = b.variable(
      'context',
      pyList(['Caroline and Melanie talked about family and camping in June 2023.']),
      {
        category: 'retrieved',
      },
    );
    b.op('read-summaries', 'retrieval', [q, s2], [ctx]);
    const pred = b.variable('pred-1', py('Not sure.'), { className: 'prediction', category: 'answer' });
    b.op('answer', 'generation', [q, ctx], [pred]);
    const gold = b.variable('gold-1', pyList(['7 May 2023']), {
      className: 'golden_answers',
      category: 'golden',
    });
    const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
    b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
    const g = buildGraph(b.doc);
    const [c] = listCases(g);
    const a = await attributeEvidenceFlow({ graph: g, case: c }, withVectors);
    expect(a).toMatchObject({ error_type: 'UpdateError', op_id: consolidate });
    expect(summarise).not.toBe(consolidate);
  });

  it('numbers in dict values count as information', async () => {
    const b = new DocBuilder();
    const msg = b.variable(
      'conv:D1:1',
      message({ speaker: 'Kenta', text: 'I just turned 42 last week.', date: '2024/03/02 (Sat) 10:00' }),
      {
        category: 'message',
      },
    );
    const profile = b.variable('profile', "{'name': 'Kenta', 'age': 42}", { category: 'profile' });
    b.op('profile-update', 'update', [msg], [profile]);
    const q = b.variable('qa-1', py('How old is Kenta?'), {
      className: 'query',
      category: 'message & query',
      metadata: { evidence: ['conv:D1:1'] },
    });
    const ctx = b.variable('context', "[{'name': 'Kenta', 'age': 42}]", { category: 'retrieved' });
    b.op('lookup', 'retrieval', [q, profile], [ctx]);
    const pred = b.variable('pred-1', py('He is 40.'), { className: 'prediction', category: 'answer' });
    const answer = b.op('answer', 'generation', [q, ctx], [pred]);
    const gold = b.variable('gold-1', pyList(['42']), { className: 'golden_answers', category: 'golden' });
    const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
    b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
    const g = buildGraph(b.doc);
    const [c] = listCases(g);
    expect(await attributeEvidenceFlow({ graph: g, case: c }, withVectors)).toMatchObject({
      error_type: 'ResponseError',
      op_id: answer,
    });
  });
});

describe('says when it does not know', () => {
  it('the golden answer is inferred, not stated, and nothing carries the evidence: no decisive memory error', async () => {
    const run = factRun({
      evidence: {
        speaker: 'Caroline',
        text: "I'm keen on helping people who went through what I went through.",
        date: '1:56 pm on 8 May, 2023',
      },
      facts: ['Caroline likes the colour blue.'],
      others: OTHERS,
      question: 'What fields would Caroline be likely to pursue in her education?',
      gold: 'Psychology, counseling certification',
      retrieved: true,
    });
    const a = await attribute(run);
    expect(a.error_type).toBeNull();
    expect(a.op_id).toBeNull();
    expect(a.reason).toMatch(/does not state the golden answer/);
  });
  it('an inferred answer whose evidence the extraction dropped whole (it wrote nothing) is lost at extraction', async () => {
    // As above, but the extraction kept nothing of the message: nothing was left to infer from.
    const run = factRun({
      evidence: {
        speaker: 'Caroline',
        text: "I'm keen on helping people who went through what I went through.",
        date: '1:56 pm on 8 May, 2023',
      },
      facts: [],
      others: OTHERS,
      question: 'What fields would Caroline be likely to pursue in her education?',
      gold: 'Psychology, counseling certification',
      retrieved: true,
    });
    const a = await attribute(run);
    expect(a).toMatchObject({
      error_type: 'ExtractionError',
      op_id: run.ops.extract,
      not_attributable: null,
    });
    expect(a.reason).toMatch(/wrote nothing at all/);
  });
  it('nothing written from a question is no loss: an inferred answer whose evidence only asks stays not attributable', async () => {
    // LoCoMo conv-26 qa-107's evidence is the question before the answer; a question has no fact to keep.
    const run = factRun({
      evidence: {
        speaker: 'Caroline',
        text: 'Wow! What got you into running?',
        date: '4:33 pm on 12 July, 2023',
      },
      facts: [],
      others: OTHERS,
      question: "What is Melanie's reason for getting into running?",
      gold: 'To de-stress and clear her mind',
      retrieved: true,
    });
    const a = await attribute(run);
    expect(a).toMatchObject({ error_type: null, op_id: null });
    expect(a.not_attributable?.reason).toBe('inferred');
  });
});

describe('copies the evidence’s way does not reach', () => {
  it('a copy of the fact from a memory the trace does not show being written reached the answer: the answer is at fault, not extraction', async () => {
    // Nothing of the evidence reached the store (the search read no carrier), but the search
    // returned a line of a memory written elsewhere in the run (not in this slice) that states
    // the same fact.
    const run = factRun({
      evidence: POTTERY,
      facts: [],
      others: OTHERS,
      untracedLines: [
        '4:33 pm on 12 July, 2023: Melanie signed up for a pottery class on 2 July 2023 and loves it.',
      ],
      question: 'When did Melanie sign up for a pottery class?',
      gold: '2 July 2023',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'ResponseError', op_id: run.ops.answer });
  });
  it('the same line from a memory the trace shows being written from another message is another fact: the search lost the evidence', async () => {
    const run = factRun({
      evidence: POTTERY,
      facts: ['Melanie signed up for a pottery class on 2 July 2023.'],
      others: [
        {
          said: {
            speaker: 'Melanie',
            text: 'Remember the pottery class I signed up for on 2 July? I love it.',
            date: '4:33 pm on 12 July, 2023',
          },
          facts: ['Melanie signed up for a pottery class on 2 July 2023 and loves it.'],
        },
        ...OTHERS,
      ],
      question: 'When did Melanie sign up for a pottery class?',
      gold: '2 July 2023',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
});

describe('list answers', () => {
  it('each evidence message of a long list answer is followed for its own part: a kept part not retrieved is a retrieval loss', async () => {
    // Two messages each state one part of a 17-word answer; both parts were extracted, only the
    // second's memory was retrieved. The first part was lost at retrieval.
    const run = factRun({
      evidence: {
        speaker: 'Gina',
        text: 'This hoodie is from my own collection. I made a limited edition line of hoodies last week!',
        date: '2:15 pm on 21 June, 2023',
      },
      facts: ['Gina made a limited edition line of hoodies to show off her style.'],
      others: [
        {
          said: {
            speaker: 'Gina',
            text: "I got new offers and promotions going on my online store. It's been a wild ride!",
            date: '1:26 pm on 3 April, 2023',
          },
          facts: ['Gina has new offers and promotions for her online store.'],
          evidence: true,
        },
        ...OTHERS,
      ],
      question: 'How did Gina promote her clothes store?',
      gold: 'worked with a local artist on unique fashion pieces, made a limited edition line of hoodies, got new offers and promotions for the online store',
      retrieved: false,
    });
    expect(await attribute(run)).toMatchObject({ error_type: 'RetrievalError', op_id: run.ops.search });
  });
});
