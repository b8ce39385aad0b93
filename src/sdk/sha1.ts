/** SHA-1 of a string's UTF-8 bytes, as 40 hex digits. Pure TypeScript (browser, worker, Node). */

const encoder = new TextEncoder();

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

export function sha1Hex(text: string): string {
  return sha1Bytes(encoder.encode(text));
}

export function sha1Bytes(bytes: Uint8Array): string {
  const len = bytes.length;
  const words = ((len + 8) >>> 6) + 1; // 512-bit blocks
  const w32 = new Uint32Array(words * 16);
  for (let i = 0; i < len; i++) w32[i >>> 2] |= bytes[i] << (24 - (i & 3) * 8);
  w32[len >>> 2] |= 0x80 << (24 - (len & 3) * 8);
  // Message length in bits as a 64-bit big-endian number.
  w32[words * 16 - 1] = (len * 8) >>> 0;
  w32[words * 16 - 2] = Math.floor((len * 8) / 0x100000000);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Int32Array(80);
  for (let block = 0; block < words; block++) {
    for (let t = 0; t < 16; t++) w[t] = w32[block * 16 + t];
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = (rotl(a, 5) + f + e + k + w[t]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  let out = '';
  for (const h of [h0, h1, h2, h3, h4]) out += (h >>> 0).toString(16).padStart(8, '0');
  return out;
}
