/**
 * Trace text never drives the terminal: ESC sequences (colours, an OSC 52 clipboard write),
 * BEL, C1 controls and a lone CR from a trace come out of every command's human output,
 * warnings and syntax messages as visible `\uXXXX`; the Markdown and HTML reports carry
 * none; `--json` still reads back as the same strings.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeControls, oneLine } from '../../src/core/text/index.ts';
import { runCli } from '../helpers/cli.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

const ESC = '\u001b';
const BEL = '\u0007';
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=${BEL}`; // writes "rm -rf ~" to the clipboard
const CSI_C1 = '\u009b2J'; // clears the screen on terminals that read C1
const HOSTILE = `${ESC}[31mred${ESC}[0m ${OSC52} ring${BEL} ${CSI_C1} back\rover`;

/** Any character a terminal would act on, except line feed and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const dir = mkdtempSync(join(tmpdir(), 'memtrace-escapes-'));

function hostileTrace(): string {
  const b = new DocBuilder(`graph-${ESC}x`.replace(ESC, 'e')); // a graph_id may not hold controls; the rest may
  const m = b.variable('conv:D1:1', `'I met ${HOSTILE} in May'`, { category: 'message' });
  const facts = b.variable('facts', `['${HOSTILE}']`, { category: 'facts' });
  b.op('fact-extraction', 'extraction', [m], [facts]);
  const j = b.judged('q1', `When did we meet? ${HOSTILE}`, `never ${HOSTILE}`, [`May ${HOSTILE}`], 0, [m]);
  // A warning whose message quotes trace text: an unknown session id holding the sequences.
  b.doc.data.nodes[0].session_id = `s-${HOSTILE}`;
  b.doc.data.annotations = [
    { query_id: j.query, final_error_type: 'ExtractionError', final_op_id: b.doc.data.operations[0].op_id },
  ];
  const file = join(dir, 'hostile.json');
  writeFileSync(file, JSON.stringify(b.doc));
  return file;
}

function expectInert(text: string, what: string) {
  expect(RAW_CONTROL.exec(text), `${what} holds a raw control character`).toBeNull();
}

describe('escapeControls', () => {
  it('writes C0 (but LF and tab in multi-line text), DEL and C1 as \\uXXXX; one line escapes LF and tab too', () => {
    expect(escapeControls(`a${ESC}[1mb${BEL}\u007f\u0085\u009b\n\tc\r\nd\re`)).toBe(
      'a\\u001b[1mb\\u0007\\u007f\\u0085\\u009b\n\tc\nd\\u000de',
    );
    expect(oneLine('a\nb\tc\r\n')).toBe('a\\u000ab\\u0009c\\u000d\\u000a');
    const plain = 'plain text — ünïcödé ✓';
    expect(escapeControls(plain)).toBe(plain);
    // JSON text escaped this way reads back as the same value.
    const json = JSON.stringify({ s: HOSTILE });
    expect(JSON.parse(escapeControls(json))).toEqual({ s: HOSTILE });
  });
});

describe('hostile trace text in the CLI', () => {
  const file = hostileTrace();

  it('cases (human) and validate (warnings) escape it; --json reads back unchanged', async () => {
    const cases = await runCli(['cases', file]);
    expect(cases.code).toBe(0);
    expectInert(cases.stdout + cases.stderr, 'cases');
    expect(cases.stdout).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(cases.stdout.trim().split('\n')).toHaveLength(1); // one row, even with a CR inside
    const json = await runCli(['cases', file, '--json']);
    expectInert(json.stdout, 'cases --json');
    expect(JSON.parse(json.stdout)[0].question).toBe(`When did we meet? ${HOSTILE}`);
    const v = await runCli(['validate', file]);
    expect(v.code).toBe(0);
    expectInert(v.stdout + v.stderr, 'validate');
    expect(v.stdout).toMatch(/unknown session_id "s-\\u001b\[31mred/);
  });

  it('a JSON syntax error at an ESC byte is reported without the raw byte', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, `{"graph_id": "g", "data": ${ESC}]52;c;eA==${BEL}}`);
    for (const args of [
      ['validate', broken],
      ['stats', broken],
      ['validate', broken, file],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expectInert(r.stdout + r.stderr, args.join(' '));
      expect(r.stdout + r.stderr).toMatch(/broken\.json:1:\d+: error: invalid JSON/);
    }
  });

  it('attribute and stats output, and the Markdown and HTML reports, carry no raw control character', async () => {
    const a = await runCli(['attribute', file, '--method', 'evidence']);
    expectInert(a.stdout + a.stderr, 'attribute');
    const s = await runCli(['stats', file]);
    expectInert(s.stdout + s.stderr, 'stats');
    for (const format of ['md', 'html']) {
      const out = join(dir, `report.${format}`);
      const r = await runCli(['report', file, '--format', format, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      const text = readFileSync(out, 'utf8');
      expectInert(text, `the ${format} report`);
      expect(text).toContain('\\u001b[31mred');
      const printed = await runCli(['report', file, '--format', format]);
      expectInert(printed.stdout, `the ${format} report on stdout`);
    }
  }, 120_000);
});
