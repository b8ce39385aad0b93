/** String hashing: the one implementation of each (fnv.ts: fast, for ids and keys; sha256.ts: cryptographic). */

export { ContentHasher, fnv1a, hash16, hash53, hex8 } from './fnv.ts';
export { sha256Hex } from './sha256.ts';
