/**
 * The receiver's fast path for protobuf: the wire bytes → each trace's OTLP/JSON line as bytes,
 * in one pass, with no object tree, no `JSON.stringify` of one and few strings (building the
 * tree and collecting it took most of the server's time). JSON is written into one buffer as
 * the messages are read (plain ASCII text copied as it is); each span's bytes and each envelope
 * field's are kept as ranges, and every trace's line is put together from them. The lines are
 * the ones the tree path makes (`decodeWire` → `checkRequest` → `splitByTrace` →
 * `JSON.stringify`), byte for byte. A request this path does not take as it is returns null
 * and the tree path answers it: a span to refuse, nesting past the limit, bytes that are not
 * protobuf, a field sent twice or a list sent in pieces (an object keeps one value per key).
 */
import { MAX_NESTING } from '../trace/index.ts';
import { addSpan, emptySummary, type ReceivedTrace, serviceName } from './group.ts';
import type { OtlpResourceSpans, OtlpSpan } from './request.ts';
import { type Field, type MessageType, Reader, requestMessageType } from './wire.ts';

/** One trace's part of a request: its line (OTLP/JSON and a newline) and what it adds to its description. */
export interface LinePart {
  traceId: string;
  line: Uint8Array;
  summary: ReceivedTrace;
}

/** A growing byte buffer the JSON is written into. */
class Out {
  buf: Buffer;
  len = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(Math.max(size, 1024));
  }
  room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  byte(c: number): void {
    this.room(1);
    this.buf[this.len++] = c;
  }
  /** ASCII text (numbers, base64): short, so copied by hand (a native write costs more). */
  ascii(s: string): void {
    this.room(s.length);
    const b = this.buf;
    for (let i = 0; i < s.length; i++) b[this.len++] = s.charCodeAt(i);
  }
  /** `"text"` for ASCII text. */
  quoted(s: string): void {
    this.room(s.length + 2);
    const b = this.buf;
    b[this.len++] = QUOTE;
    for (let i = 0; i < s.length; i++) b[this.len++] = s.charCodeAt(i);
    b[this.len++] = QUOTE;
  }
  utf8(s: string): void {
    this.room(s.length * 3);
    this.len += this.buf.write(s, this.len, 'utf8');
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
/** The hex digits' character codes. */
const HEX = Buffer.from('0123456789abcdef');

/** JSON.stringify's short escapes of control characters (others are `\u00xx`). */
const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };

/**
 * ASCII bytes as a JSON string, escaped as `JSON.stringify` escapes them; false (nothing
 * written) at a byte past ASCII: such text goes through a string.
 */
function writeAsciiJson(o: Out, src: Buffer, start: number, end: number): boolean {
  o.room(6 * (end - start) + 2);
  const b = o.buf;
  let at = o.len;
  b[at++] = QUOTE;
  for (let i = start; i < end; i++) {
    const c = src[i];
    if (c >= 0x80) return false;
    if (c >= 0x20 && c !== QUOTE && c !== 0x5c) b[at++] = c;
    else if (c === QUOTE || c === 0x5c) {
      b[at++] = 0x5c;
      b[at++] = c;
    } else if (SHORT_ESCAPES[c] !== undefined) {
      b[at++] = 0x5c;
      b[at++] = SHORT_ESCAPES[c];
    } else {
      at += b.write(`\\u00${HEX_DIGITS[c >> 4]}${HEX_DIGITS[c & 15]}`, at, 'latin1');
    }
  }
  b[at++] = QUOTE;
  o.len = at;
  return true;
}
const HEX_DIGITS = '0123456789abcdef';

/** A span's range in the buffer and the fields its description and grouping read. */
interface SpanRange {
  start: number;
  end: number;
  facts: OtlpSpan;
}
/** A scope's or resource's own fields (ranges of `"key":value`) and what it holds. */
interface ScopeRanges {
  members: number[];
  spans: SpanRange[];
}
interface ResourceRanges {
  members: number[];
  scopes: ScopeRanges[];
  service: string | null;
}

/** Where a message is: the request, a resourceSpans, a scopeSpans, a span, or inside one of them. */
const Level = { Request: 0, Resource: 1, Scope: 2, Span: 3, Value: 4 } as const;
type Level = (typeof Level)[keyof typeof Level];
/** The spine field of each level: its messages go one level down. */
const SPINE = ['resourceSpans', 'scopeSpans', 'spans'];

interface Frame {
  type: MessageType;
  end: number;
  depth: number;
  level: Level;
  field: Field | null;
  /** Where its JSON starts in the buffer. */
  start: number;
  /** Field numbers seen (bits), the repeated field whose list is open, members written. */
  seen: number;
  open: Field | null;
  count: number;
  /** A spine message's own members (start, end pairs) and what it holds. */
  members: number[];
  resources: ResourceRanges[];
  scopes: ScopeRanges[];
  spans: SpanRange[];
  /** Where the member being read started (a spine message's envelope field). */
  memberStart: number;
  service: string | null;
  facts: OtlpSpan | null;
}

/** Thrown (and caught in `wireLines`) when the tree path must answer the request. */
class NotFast extends Error {}

class LineWriter {
  readonly out: Out;
  readonly r: Reader;
  constructor(readonly body: Buffer) {
    this.out = new Out(body.length * 3);
    this.r = new Reader(body);
  }

  /** Frames of values, reused per stack place (a request has millions of small messages). */
  readonly pool: Frame[] = [];

  /** A frame for a message at stack place `at`: a value's reused, a spine message's new (its lists are kept). */
  frame(at: number, type: MessageType, end: number, depth: number, level: Level, field: Field | null): Frame {
    const reused = level >= Level.Span ? this.pool[at] : undefined;
    if (reused) {
      reused.type = type;
      reused.end = end;
      reused.depth = depth;
      reused.level = level;
      reused.field = field;
      reused.start = this.out.len;
      reused.seen = 0;
      reused.open = null;
      reused.count = 0;
      reused.facts = level === Level.Span ? newFacts() : null;
      return reused;
    }
    const f = this.newFrame(type, end, depth, level, field);
    if (level >= Level.Span) this.pool[at] = f;
    return f;
  }

  newFrame(type: MessageType, end: number, depth: number, level: Level, field: Field | null): Frame {
    const spine = level < Level.Span;
    return {
      type,
      end,
      depth,
      level,
      field,
      start: this.out.len,
      seen: 0,
      open: null,
      count: 0,
      members: spine ? [] : EMPTY,
      resources: level === Level.Request ? [] : EMPTY_RESOURCES,
      scopes: level === Level.Resource ? [] : EMPTY_SCOPES,
      spans: level === Level.Scope ? [] : EMPTY_SPANS,
      memberStart: 0,
      service: null,
      facts: level === Level.Span ? newFacts() : null,
    };
  }

  /** Starts field `f` (number `num`) of `top`: a comma, its key, a list opened (a list's next item: a comma). */
  begin(top: Frame, f: Field, num: number): void {
    if (f === top.open) {
      this.out.byte(COMMA);
      return;
    }
    if (num > 30 || top.seen & (1 << num)) throw new NotFast();
    top.seen |= 1 << num;
    const o = this.out;
    if (top.open) {
      o.byte(0x5d);
      top.open = null;
    }
    if (top.level < Level.Span) {
      if (f.repeated) throw new NotFast(); // (an envelope's own fields are single)
      top.memberStart = o.len;
    } else if (top.count > 0) o.byte(COMMA);
    top.count++;
    o.room(f.keyBytes.length);
    for (let i = 0; i < f.keyBytes.length; i++) o.buf[o.len++] = f.keyBytes[i];
    if (f.repeated) {
      o.byte(0x5b);
      top.open = f;
    }
  }

  /** A string, bytes or id field's value. */
  text(top: Frame, f: Field): string | null {
    const r = this.r;
    const end = r.lengthEnd(top.end);
    const start = r.pos;
    r.pos = end;
    const b = this.body;
    const o = this.out;
    if (f.kind === 'id') {
      o.room(2 + 2 * (end - start));
      o.buf[o.len++] = QUOTE;
      for (let i = start; i < end; i++) {
        o.buf[o.len++] = HEX[b[i] >> 4];
        o.buf[o.len++] = HEX[b[i] & 15];
      }
      o.buf[o.len++] = QUOTE;
      return top.facts ? b.toString('hex', start, end) : null;
    }
    if (f.kind === 'bytes') {
      o.quoted(b.toString('base64', start, end));
      return null;
    }
    const fact = top.facts !== null && f.name === 'name';
    if (writeAsciiJson(o, b, start, end)) return fact ? b.toString('latin1', start, end) : null;
    const s = b.toString('utf8', start, end);
    o.utf8(JSON.stringify(s));
    return s;
  }

  /** A scalar field's value written; the span's own facts kept. */
  scalar(top: Frame, f: Field): void {
    let v: unknown;
    if (f.kind === 'string' || f.kind === 'bytes' || f.kind === 'id') v = this.text(top, f);
    else {
      v = this.r.scalar(f.kind, top.end);
      if (typeof v === 'string') this.out.quoted(v);
      else this.out.ascii(String(v));
    }
    if (top.facts && v !== null) setFact(top.facts, f.name, v);
  }
}

/** A span's facts, all keys made at once (one object shape, fast to set). */
const newFacts = (): OtlpSpan => ({
  traceId: '',
  spanId: '',
  parentSpanId: undefined,
  name: undefined,
  startTimeUnixNano: undefined,
  endTimeUnixNano: undefined,
});

/** Keeps the fields the grouping and the description read. */
function setFact(facts: OtlpSpan, name: string, v: unknown): void {
  switch (name) {
    case 'traceId':
    case 'spanId':
    case 'parentSpanId':
    case 'name':
    case 'startTimeUnixNano':
    case 'endTimeUnixNano':
      facts[name] = v as string;
  }
}

const EMPTY: number[] = [];
const EMPTY_RESOURCES: ResourceRanges[] = [];
const EMPTY_SCOPES: ScopeRanges[] = [];
const EMPTY_SPANS: SpanRange[] = [];

/** A valid id of `hexLength` digits (the decoder writes lower-case hex): not all zeros. */
const validId = (v: unknown, hexLength: number) =>
  typeof v === 'string' && v.length === hexLength && /[1-9a-f]/.test(v);

/** Ends the message on top of the stack into the one below. */
function close(w: LineWriter, top: Frame, below: Frame): void {
  const o = w.out;
  if (top.level === Level.Span) {
    if (top.open) o.byte(0x5d);
    o.byte(0x7d);
    const s = top.facts as OtlpSpan;
    // A span the tree path would refuse (bad ids) or change (an empty parent id it deletes).
    if (!validId(s.traceId, 32) || !validId(s.spanId, 16)) throw new NotFast();
    if (s.parentSpanId && !validId(s.parentSpanId, 16)) throw new NotFast();
    below.spans.push({ start: top.start, end: o.len, facts: s });
    o.byte(COMMA); // between spans: a run of one trace's adjacent spans is copied at once
  } else if (top.level === Level.Scope) below.scopes.push({ members: top.members, spans: top.spans });
  else if (top.level === Level.Resource)
    below.resources.push({ members: top.members, scopes: top.scopes, service: top.service });
  else {
    if (top.open) o.byte(0x5d);
    o.byte(0x7d);
    if (below.level < Level.Span) {
      below.members.push(below.memberStart, o.len);
      if (below.level === Level.Resource && top.field?.name === 'resource') {
        const resource = JSON.parse(o.buf.toString('utf8', top.start, o.len));
        below.service = serviceName({ resource, scopeSpans: [] } as OtlpResourceSpans);
      }
    }
  }
}

/** Reads the request, writing its JSON; its resources' ranges. */
function readRequest(w: LineWriter): ResourceRanges[] {
  const r = w.r;
  const stack: Frame[] = [w.frame(0, requestMessageType(), w.body.length, 1, Level.Request, null)];
  for (;;) {
    const top = stack[stack.length - 1];
    if (r.pos >= top.end) {
      if (stack.length === 1) return top.resources;
      stack.pop();
      close(w, top, stack[stack.length - 1]);
      continue;
    }
    const tag = r.varint32();
    const num = tag >>> 3;
    const f = top.type.fields[num];
    if (!f || (tag & 7) !== f.wire) {
      r.skip(tag & 7, top.end);
      continue;
    }
    const spine = top.level < Level.Span && f.name === SPINE[top.level];
    if (top.facts && f.name === 'parentSpanId' && w.body[r.pos] === 0) {
      // An empty parent id: the tree path deletes it (a root span), so it is not written.
      if (top.seen & (1 << num)) throw new NotFast();
      top.seen |= 1 << num;
      r.pos = r.lengthEnd(top.end);
      top.facts.parentSpanId = '';
      continue;
    }
    if (!spine) w.begin(top, f, num);
    if (!f.type) {
      w.scalar(top, f);
      if (top.level < Level.Span) top.members.push(top.memberStart, w.out.len);
      continue;
    }
    const end = r.lengthEnd(top.end);
    const depth = top.depth + (f.repeated ? 2 : 1);
    if (depth > MAX_NESTING || (f.repeated && top.depth + 1 > MAX_NESTING)) throw new NotFast();
    const level = spine ? ((top.level + 1) as Level) : Level.Value;
    const child = w.frame(stack.length, f.type, end, depth, level, f);
    if (child.level >= Level.Span) w.out.byte(0x7b);
    stack.push(child);
  }
}

/** One trace's part: its description and, per envelope it meets, the resource, the scope and its spans. */
interface Grouped {
  summary: ReceivedTrace;
  groups: { i: number; j: number; spans: SpanRange[] }[];
}

const OPEN_LINE = Buffer.from('{"resourceSpans":[');
const OPEN_SCOPES = Buffer.from('"scopeSpans":[');
const OPEN_SPANS = Buffer.from('"spans":[');
const CLOSE_LIST = Buffer.from(']}');
const CLOSE_LINE = Buffer.from(']}]}\n');

/** Builds a line from constant pieces and ranges of the JSON buffer: sized first, then copied once. */
class LineBuilder {
  private readonly ranges: number[] = [];
  private size = 0;
  constructor(private readonly src: Buffer) {}
  /** A constant piece, as a range of its own buffer (kept apart by a negative index). */
  piece(b: Buffer): void {
    this.pieces.push(b);
    this.ranges.push(-this.pieces.length, 0);
    this.size += b.length;
  }
  private readonly pieces: Buffer[] = [];
  range(start: number, end: number): void {
    this.ranges.push(start, end);
    this.size += end - start;
  }
  comma(): void {
    this.piece(COMMA_PIECE);
  }
  build(): Buffer {
    const out = Buffer.allocUnsafe(this.size);
    let at = 0;
    for (let k = 0; k < this.ranges.length; k += 2) {
      const a = this.ranges[k];
      if (a < 0) at += this.pieces[-a - 1].copy(out, at);
      else at += this.src.copy(out, at, a, this.ranges[k + 1]);
    }
    return out;
  }
}
const COMMA_PIECE = Buffer.from(',');

/** A message's own members (`"a":…,"b":…`), each followed by a comma. */
function addMembers(b: LineBuilder, members: number[]): void {
  for (let m = 0; m < members.length; m += 2) {
    b.range(members[m], members[m + 1]);
    b.comma();
  }
}

/** Spans in order: each run of adjacent ones (a comma between them in the buffer) as one range. */
function addSpans(b: LineBuilder, spans: SpanRange[]): void {
  let runStart = spans[0].start;
  for (let n = 1; n <= spans.length; n++) {
    if (n < spans.length && spans[n].start === spans[n - 1].end + 1) continue;
    b.range(runStart, spans[n - 1].end);
    if (n < spans.length) {
      b.comma();
      runStart = spans[n].start;
    }
  }
}

/** The line of one trace: `{"resourceSpans":[{…,"scopeSpans":[{…,"spans":[…]}]}]}` and a newline. */
function lineOf(g: Grouped, resources: ResourceRanges[], buf: Buffer): Buffer {
  const b = new LineBuilder(buf);
  b.piece(OPEN_LINE);
  g.groups.forEach(({ i, j, spans }, k) => {
    if (k === 0 || g.groups[k - 1].i !== i) {
      if (k > 0) {
        b.piece(CLOSE_LIST);
        b.comma();
      }
      b.piece(BRACE);
      addMembers(b, resources[i].members);
      b.piece(OPEN_SCOPES);
    } else b.comma();
    b.piece(BRACE);
    addMembers(b, resources[i].scopes[j].members);
    b.piece(OPEN_SPANS);
    addSpans(b, spans);
    b.piece(CLOSE_LIST);
  });
  b.piece(CLOSE_LINE);
  return b.build();
}
const BRACE = Buffer.from('{');

/**
 * A protobuf request's parts by trace id, in the order the traces first appear, each with its
 * line; null when the tree path must answer (a span to refuse, nesting too deep, bad bytes).
 */
export function wireLines(body: Uint8Array): { parts: LinePart[]; accepted: number } | null {
  const w = new LineWriter(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  let resources: ResourceRanges[];
  try {
    resources = readRequest(w);
  } catch {
    return null; // (bad bytes too: the tree path names the place)
  }
  const byTrace = new Map<string, Grouped>();
  let accepted = 0;
  resources.forEach((rs, i) => {
    rs.scopes.forEach((sc, j) => {
      for (const span of sc.spans) {
        const id = span.facts.traceId;
        const g = byTrace.get(id) ?? { summary: emptySummary(id, rs.service), groups: [] };
        byTrace.set(id, g);
        const last = g.groups[g.groups.length - 1];
        if (last && last.i === i && last.j === j) last.spans.push(span);
        else g.groups.push({ i, j, spans: [span] });
        g.summary.service ??= rs.service;
        addSpan(g.summary, span.facts);
        accepted++;
      }
    });
  });
  const buf = w.out.buf;
  const parts = [...byTrace].map(([traceId, g]) => ({
    traceId,
    line: lineOf(g, resources, buf),
    summary: g.summary,
  }));
  return { parts, accepted };
}
