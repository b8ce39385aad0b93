/**
 * SHA-1 of a string's UTF-8 bytes, as 40 hex digits — the content-hash names of the
 * toolkit (`<type>:<sha1 of json.dumps(value)>`). `@noble/hashes` (audited, synchronous,
 * the same in browsers, workers and Node); Web Crypto's `subtle.digest` would make every
 * traced variable asynchronous.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function sha1Hex(text: string): string {
  return bytesToHex(sha1(utf8ToBytes(text)));
}

export function sha1Bytes(bytes: Uint8Array): string {
  return bytesToHex(sha1(bytes));
}
