/**
 * Days and spans written as dated answers write them (what a judge counting words reads): the
 * texts are the inputs' own dates, so the expectation is the date each names.
 */
import { describe, expect, it } from 'vitest';
import { dayText, referenceDay, spanText, temporalMentions } from '../../src/core/nlp/index.ts';

const spanOf = (text: string) => temporalMentions(text, null)[0]?.span ?? null;

describe('dates written as words', () => {
  it('a day, a month and a year read back as written', () => {
    expect(dayText(referenceDay('7 May 2023')!)).toBe('7 May 2023');
    expect(spanText(spanOf('7 May 2023')!)).toBe('7 May 2023');
    expect(spanText(spanOf('June 2023')!)).toBe('June 2023');
    expect(spanText(spanOf('2022')!)).toBe('2022');
  });
  it('another span gives its first and last days', () => {
    const day = referenceDay('9 June 2023')!;
    expect(spanText({ start: day - 7, end: day - 1, fuzz: 0 })).toBe('2 June 2023 8 June 2023');
  });
});

describe('relative times next to numbers', () => {
  it('"yesterday" after a number still names the day before the text was written', () => {
    // compromise alone reads nothing in this sentence ("2077 yesterday" is no date it knows).
    const written = referenceDay('21 October 2022')!;
    const found = temporalMentions('James tried Cyberpunk 2077 yesterday and found it addictive.', written);
    expect(found.find((m) => m.relative === 'yesterday')?.span).toEqual({
      start: written - 1,
      end: written - 1,
      fuzz: 0,
    });
  });
});
