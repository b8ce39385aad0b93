/** The one cryptographic digest of a text (`@noble/hashes`: synchronous, the same in browser, worker and Node). */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** SHA-256 of the UTF-8 bytes of `text`, as 64 hex digits (synchronous: cache keys are made inline). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
