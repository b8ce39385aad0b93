/** The face of `src/core/semantic`: what other modules and layers import from it. */

export { decodeVectorFile, encodeVectorFile } from './vector-file.ts';
export { vectorSimilarity, WordVectors } from './word-vectors.ts';
