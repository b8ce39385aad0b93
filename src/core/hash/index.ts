/** String hashing: the one implementation of each (fnv.ts: fast, for ids and keys; sha256.ts: cryptographic). */
export * from './fnv.ts';
export * from './sha256.ts';
