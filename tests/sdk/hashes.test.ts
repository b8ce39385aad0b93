import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseValue, type TraceDocument } from '../../src/core/trace/index.ts';
import { contentName, pyJsonDumps, sha1Hex } from '../../src/sdk/index.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const nodeSha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');

describe('SDK content hashes (@noble/hashes SHA-1) against the toolkit', () => {
  for (const file of smartcommentFiles()) {
    it(`every content-hash name in ${basename(file)} is <type>:<sha1 of json.dumps(value)>`, () => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument;
      let checked = 0;
      for (const n of doc.data.nodes) {
        const m = /^([a-z]+):([0-9a-f]{40})$/.exec(n.name);
        if (!m) continue;
        const value = parseValue(n.value);
        // The toolkit's own bytes decide: Node's crypto over the same json.dumps text.
        expect(nodeSha1(pyJsonDumps(value))).toBe(m[2]);
        expect(contentName(value, sha1Hex)).toBe(n.name);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
  it('sha1Hex equals Node crypto on multi-block and non-ASCII text', () => {
    for (const s of ['', 'a'.repeat(119), 'b'.repeat(120), '\u00e9\u4e2d\ud83d\ude00'.repeat(40)])
      expect(sha1Hex(s)).toBe(nodeSha1(s));
  });
});
