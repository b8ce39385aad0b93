/** Non-cryptographic string hashing: the one implementation (see hash.ts). */
export * from './hash.ts';
