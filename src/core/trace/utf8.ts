/**
 * Strict UTF-8: a trace's bytes decode exactly or not at all. Lossy decoding would turn bad
 * bytes into U+FFFD, so an export would no longer be byte-identical and two distinct ids could
 * become one. The offset of the first bad byte is found only when decoding fails.
 */

/** The decoded text, or where the first invalid byte is and a message naming it. */
export type Utf8Result =
  | { ok: true; text: string }
  | { ok: false; offset: number; line: number; message: string };

const strict = new TextDecoder('utf-8', { fatal: true });

/** The text without a leading UTF-8 byte-order mark, which some editors add and `JSON.parse` rejects. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Decodes bytes as strict UTF-8 (a leading BOM is dropped, as TextDecoder does); invalid input fails with
 * the first bad byte's offset and line instead of being replaced.
 */
export function decodeUtf8(bytes: Uint8Array): Utf8Result {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    const offset = firstInvalidByte(bytes);
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    const hex = (bytes[offset] ?? 0).toString(16).padStart(2, '0');
    return {
      ok: false,
      offset,
      line,
      message: `not valid UTF-8: byte ${offset} (line ${line}, 0x${hex}) starts no well-formed character`,
    };
  }
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidByte(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    let n = 0;
    let min = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      min = 0x10000;
    } else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i; // cut short, or not a continuation byte
      cp = (cp << 6) | (x & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}
