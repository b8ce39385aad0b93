/** Types of the untyped npm package `wink-lemmatizer` (3.x): lemmas by part of speech. */
declare module 'wink-lemmatizer' {
  const lemmatizer: {
    noun(word: string): string;
    verb(word: string): string;
    adjective(word: string): string;
  };
  export default lemmatizer;
}
