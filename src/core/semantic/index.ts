/**
 * Word vectors for semantic similarity: the compact vector file format and similarity by averaged
 * word vectors (the Node loader of the file is `word-vectors.node.ts`, a face of its own).
 */

export { decodeVectorFile, encodeVectorFile } from './vector-file.ts';
export { vectorSimilarity, WordVectors } from './word-vectors.ts';
