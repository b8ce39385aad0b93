import { describe, expect, it } from 'vitest';
import {
  acceptsAnswer,
  acceptsMemory,
  answerWords,
  CarryRule,
  type Conversation,
  containmentRule,
  halfWordsRule,
  offlineJudge,
  ruleJudge,
  tokenF1Rule,
} from '../../src/systems/index.ts';

/** A conversation of one session on 8 May 2023 in which Ann says `texts` (turns D1:1, D1:2, …). */
function annSays(...texts: string[]): Conversation {
  const turns = texts.map((text, i) => ({ id: `D1:${i + 1}`, speaker: 'Ann', role: 'user' as const, text }));
  return {
    dataset: 'locomo',
    id: 'c',
    speakers: ['Ann', 'Bo'],
    sessions: [{ index: 1, id: 's1', dateTime: '1:00 pm on 8 May, 2023', turns }],
    questions: [],
  };
}

// Expected values are worked out by hand in the comments (SQuAD normalisation drops punctuation,
// articles and "and"; F1 = 2PR / (P + R) over those tokens).
describe('judge rules', () => {
  it('containment: the normalised golden answer inside the prediction, at word boundaries', () => {
    expect(containmentRule('She moved from Sweden four years ago.', ['Sweden'])).toBe(true);
    expect(containmentRule('She read Swedenborg.', ['Sweden'])).toBe(false); // not a word of it
    // "The week before 9 June 2023" → "week before 9 june 2023", inside the prediction.
    expect(
      containmentRule('It was the week before 9 June 2023, I think.', ['The week before 9 June 2023']),
    ).toBe(true);
    expect(containmentRule('9 June 2023', ['The week before 9 June 2023'])).toBe(false);
    expect(containmentRule('anything', [''])).toBe(false); // an empty golden answer holds nothing
  });

  it('token-f1: F1 ≥ 0.5 against some golden answer', () => {
    // 4 tokens "on 7 may 2023", 3 shared with "7 may 2023": P 3/4, R 1 → F1 0.857.
    expect(tokenF1Rule('on 7 May 2023', ['7 May 2023'])).toBe(true);
    // 10 tokens ("the" dropped), 3 shared: P 0.3, R 1 → F1 0.46 — too verbose, though it contains the answer.
    const verbose = 'Caroline went to the LGBTQ support group on 7 May 2023 happily';
    expect(tokenF1Rule(verbose, ['7 May 2023'])).toBe(false);
    expect(containmentRule(verbose, ['7 May 2023'])).toBe(true);
    // "8 may 2023" vs "7 may 2023": 2 of 3 → F1 0.667, accepted (the rule does not know dates).
    expect(tokenF1Rule('8 May 2023', ['7 May 2023'])).toBe(true);
    expect(tokenF1Rule('Sweden', ['Norway', 'Sweden'])).toBe(true); // any golden answer
  });

  it("half-words: at least half of the golden answer's content words", () => {
    const gold = "Luna is from the shelter and Max is her mother's cat";
    // Content words: luna, shelter, max, mother, cat ("s" of "mother's" is no word).
    expect([...answerWords(gold)].sort()).toEqual(['cat', 'luna', 'max', 'mother', 'shelter']);
    expect(halfWordsRule('Luna, the shelter cat', [gold])).toBe(true); // 3 of 5
    expect(halfWordsRule('Luna and Max', [gold])).toBe(false); // 2 of 5
    expect(halfWordsRule('Max, her mother’s cat', [gold])).toBe(true); // max, mother, cat: 3 of 5
    // A golden answer of stop words only is matched on its words.
    expect(halfWordsRule('Yes, she did.', ['Yes'])).toBe(true);
    expect(halfWordsRule('No.', ['Yes'])).toBe(false);
  });

  it('the rules disagree on one case, as judges do', () => {
    const gold = ["Luna is from the shelter and Max is her mother's cat"];
    const q = 'Where did Luna and Max come from?';
    const p = 'Luna, the shelter cat';
    // containment: no. F1: "luna shelter cat" vs 10 tokens, 3 shared: P 1, R 0.3 → 0.46: no.
    // offline: the gold (10 tokens) is ≥ 3 × 3 long, but the words beyond the question are
    // shelter, cat: 2 < 3 supported words: no. half-words: 3 of 5: yes.
    expect(acceptsAnswer('containment', p, gold, q)).toBe(false);
    expect(acceptsAnswer('token-f1', p, gold, q)).toBe(false);
    expect(acceptsAnswer('offline', p, gold, q)).toBe(false);
    expect(acceptsAnswer('half-words', p, gold, q)).toBe(true);
    expect(offlineJudge(p, gold, q).correct).toBe(false);
    const v = ruleJudge('half-words', p, gold, q);
    expect(v).toEqual({ correct: true, response: 'CORRECT', judge: 'offline', rule: 'half-words' });
  });
});

describe('carrying under each rule', () => {
  const memory = [
    {
      text: 'Caroline went to the LGBTQ support group yesterday. She found it powerful.',
      date: '8 May 2023',
    },
  ];
  it('token-f1 judges the best window of one or two segments, not the whole memory', () => {
    // Segments: "8 May 2023", the two sentences, and "7 May 2023" ("yesterday" said on 8 May).
    expect(acceptsMemory('token-f1', [memory], ['7 May 2023'])).toBe(true);
    // Judged whole, the memory is far too long for F1 0.5.
    expect(acceptsAnswer('token-f1', `8 May 2023: ${memory[0].text} (7 May 2023)`, ['7 May 2023'])).toBe(
      false,
    );
    // The first sentence has 7 tokens: "LGBTQ support group" shares 3 (P 3/7, R 1 → 0.6), "support
    // group" 2 (P 2/7 → 0.44): the judge would reject that sentence as a prediction of it, too.
    expect(acceptsMemory('token-f1', [memory], ['LGBTQ support group'])).toBe(true);
    expect(acceptsMemory('token-f1', [memory], ['support group'])).toBe(false);
    expect(acceptsMemory('half-words', [memory], ['support group'])).toBe(true);
    expect(acceptsMemory('token-f1', [memory], ['a pottery class'])).toBe(false);
  });
  it('the other rules judge the whole memory read with its date', () => {
    expect(acceptsMemory('containment', [memory], ['7 May 2023'])).toBe(true);
    expect(acceptsMemory('half-words', [memory], ['support group in May'])).toBe(true); // support, group, may
    expect(acceptsMemory('containment', [memory], ['support group in May'])).toBe(false);
  });

  it("CarryRule uses the trace's rule: the evidence carries under half-words, not under containment", () => {
    const conv = annSays('Luna came from the shelter, she is a sweet cat.');
    const q = { answers: ["Luna is from the shelter and Max is her mother's cat"], evidence: ['D1:1'] };
    expect(new CarryRule(conv, q, 'half-words').evidenceCarries).toBe(true); // luna, shelter, cat
    expect(new CarryRule(conv, q, 'containment').evidenceCarries).toBe(false);
    expect(new CarryRule(conv, q).evidenceCarries).toBe(false); // offline: F1 and support too low
    const rule = new CarryRule(conv, q, 'half-words');
    expect(
      rule.keeps([{ text: 'Ann has a cat from the shelter named Luna.', date: '8 May 2023' }], 'D1:1'),
    ).toBe(true);
    expect(rule.keeps([{ text: 'Ann has a cat.', date: '8 May 2023' }], 'D1:1')).toBe(false);
  });

  it('CarryRule: two evidence turns that each answer alone are kept only by a text that answers alone', () => {
    const conv = (second: string) => annSays('I volunteer at the homeless shelter.', second);
    const q = { answers: ['homeless shelter'], evidence: ['D1:1', 'D1:2'] };
    const tea = [{ text: 'Ann likes tea.', date: '8 May 2023' }];
    const says = [{ text: 'Ann helps at a homeless shelter.', date: '8 May 2023' }];
    // Alternatives: either turn answers, so "tea" read beside the other would pass — it must not keep either.
    const both = new CarryRule(conv('The homeless shelter needs people.'), q, 'containment');
    for (const t of ['D1:1', 'D1:2']) {
      expect(both.keeps(tea, t)).toBe(false);
      expect(both.keeps(says, t)).toBe(true);
    }
    // D1:2 adds nothing the answer needs: any text keeps it; D1:1 still needs the answer's words.
    const one = new CarryRule(conv('I started there last month.'), q, 'containment');
    expect(one.keeps(tea, 'D1:2')).toBe(true);
    expect(one.keeps(tea, 'D1:1')).toBe(false);
    expect(one.keeps(says, 'D1:1')).toBe(true);
  });

  it('CarryRule: of three turns any two of which answer, a text keeps one only if it completes each other turn', () => {
    const conv = annSays('We held a toy event.', 'We ran for veterans.', 'We helped domestic abuse victims.');
    // half-words: 2 of the 3 content words (toy, veterans, domestic) answer; each turn holds one.
    const rule = new CarryRule(
      conv,
      { answers: ['toy, veterans, domestic'], evidence: ['D1:1', 'D1:2', 'D1:3'] },
      'half-words',
    );
    expect(rule.evidenceCarries).toBe(true);
    // Beside both others "tea" would pass (they answer without D1:1); beside either one alone it does not.
    expect(rule.keeps([{ text: 'Ann likes tea.', date: '8 May 2023' }], 'D1:1')).toBe(false);
    expect(rule.keeps([{ text: 'Ann organised a toy drive.', date: '8 May 2023' }], 'D1:1')).toBe(true);
    expect(rule.keeps([{ text: 'Ann organised a toy drive.', date: '8 May 2023' }], 'D1:2')).toBe(false);
  });
});
