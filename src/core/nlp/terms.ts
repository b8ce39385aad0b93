/**
 * Content words of a text and their normalised keys, so that "signed", "signs" and
 * "signing" meet, and so do "went"/"go", "children"/"child" and "happier"/"happy": a
 * token's key is its lemma (`wink-lemmatizer`, which knows irregular forms), tried as a
 * noun, a verb and an adjective. Lemmas, not stems: "happiness" is not "happy" and
 * "adoption" not "adopt" to a judge of answers either. Number words become digits
 * (compromise). Fast enough to run per memory unit; keys are cached.
 */
import nlp from 'compromise';
import lemmatizer from 'wink-lemmatizer';
import { tokenize } from '../retrieval/index.ts';

/** Function words and chat fillers: never content. */
const STOPWORDS: ReadonlySet<string> = new Set(
  'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its just me my no not of on or our she so than that the their them then there they this to too up us was we were what when where which who whom why will with would you your yes yeah oh wow hey hi ok okay really very much also about'.split(
    ' ',
  ),
);

/** Words that carry content: stop words and single letters out; numbers (days, counts) always in. */
export function contentTokens(text: string): string[] {
  return tokenize(text).filter((t) => (t.length > 1 || (t >= '0' && t <= '9')) && !STOPWORDS.has(t));
}

const keys = new Map<string, string>();

/** The normalised key of one lower-case token ("enrolled" → "enrol", "went" → "go", "2" → "2"). */
export function termKey(token: string): string {
  let k = keys.get(token);
  if (k === undefined) {
    k = /^\d+$/.test(token) ? token : lemmatizer.adjective(lemmatizer.verb(lemmatizer.noun(token)));
    if (keys.size > 200_000) keys.clear();
    keys.set(token, k);
  }
  return k;
}

const NUMBER_WORD =
  /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|twice|once)\b/i;

/** The text with number words as digits ("seven years" → "7 years", "first" → "1st"); the text itself when it has none. */
export function numbersAsDigits(text: string): string {
  if (!NUMBER_WORD.test(text)) return text;
  const doc = nlp(text);
  doc.numbers().toNumber();
  return doc.text();
}

/** A content word with its key. */
export interface Term {
  surface: string;
  key: string;
}

/** Content terms of a text, number words as digits. */
export function contentTerms(text: string): Term[] {
  return contentTokens(numbersAsDigits(text)).map((surface) => ({ surface, key: termKey(surface) }));
}
