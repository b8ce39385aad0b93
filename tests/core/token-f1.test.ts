/**
 * Token F1 as SQuAD and LoCoMo score answers. Expected values are counted by hand from the
 * texts: the words both hold, over each text's word count.
 */
import { describe, expect, it } from 'vitest';
import { answerTokens, tokenF1 } from '../../src/core/text/index.ts';

const f1 = (a: string, b: string) => tokenF1(answerTokens(a), answerTokens(b));

describe('token F1', () => {
  it('drops punctuation, case and the words a, an, the, and', () => {
    expect(answerTokens('The cat, and a Dog!')).toEqual(['cat', 'dog']);
    // A time's digits are words of their own.
    expect(answerTokens('9:16 am on 10 August, 2022')).toEqual([
      '9',
      '16',
      'am',
      'on',
      '10',
      'august',
      '2022',
    ]);
  });
  it('is the harmonic mean of the shared words over each side', () => {
    expect(f1('Paris', 'Paris')).toBe(1);
    // "he went to paris" against "paris": precision 1/4, recall 1 → 2·(1/4)/(5/4) = 0.4.
    expect(f1('He went to Paris.', 'Paris')).toBeCloseTo(0.4, 10);
    // 3 shared of 7 and of 3 words: precision 3/7, recall 1 → 0.6.
    expect(f1('9:16 am on 10 August, 2022', 'August 9, 2022')).toBeCloseTo(0.6, 10);
    // A repeated word counts as often as the golden answer has it.
    expect(f1('paris paris', 'paris')).toBeCloseTo(2 / 3, 10);
    expect(f1('', 'paris')).toBe(0);
    expect(f1('London', 'Paris')).toBe(0);
  });
});
