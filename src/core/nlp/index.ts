/**
 * Language analysis on top of compromise (and wink-lemmatizer): content words and their lemma
 * keys, number words as digits, time expressions as day spans. Heavy (the NLP libraries load
 * with it): only the evidence matcher of core/attribution uses it; light text helpers are in
 * core/text.
 */

export {
  type DaySpan,
  dayText,
  hasTemporalCue,
  referenceDay,
  spanStates,
  spanText,
  type TemporalMention,
  temporalMentions,
} from './temporal.ts';
export { contentTerms, contentTokens, numbersAsDigits, type Term, termKey } from './terms.ts';
