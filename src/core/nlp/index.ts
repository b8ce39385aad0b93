/** The face of `src/core/nlp`: what other modules and layers import from it. */
export { type DaySpan, hasTemporalCue, referenceDay, spanStates, temporalMentions } from './temporal.ts';
export { contentTerms, contentTokens, numbersAsDigits, type Term, termKey } from './terms.ts';
