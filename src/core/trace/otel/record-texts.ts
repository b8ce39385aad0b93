/**
 * Successive contents of one memory record, read once and kept as slices of shared strings.
 *
 * A record that a system keeps rewriting — a context window that slides, a transcript or a
 * summary that grows — is written in full by every update span, so a trace can hold the
 * same lines hundreds of times (a 100 MB file, 1 MB of distinct text). Two savings, both
 * giving the values JSON.parse would:
 * - *Reading*: when a span's `gen_ai.memory.records` text equals the record's previous one
 *   except inside the content string, and that string keeps the previous one's later lines
 *   (its start dropped, lines added at its end), only the dropped start and the added end
 *   are decoded (`read`). Everything else was checked to be the same characters.
 * - *Keeping*: a record's contents are laid end to end in a *run*, joined into one string
 *   every megabyte or so, and each content becomes a slice of it (V8 keeps a slice of 13 or
 *   more characters as a view on its parent). Decoded copies die young instead of being
 *   copied into the old generation, and the document holds each line about once.
 * Contents reach their holders at `flush` (until then a record read incrementally holds '').
 */

/** Contents shorter than this are left as they are. */
const MIN_LENGTH = 1024;
/** Decoded characters held before the runs are joined (the copies die then). */
const BATCH = 1 << 20;

/** A memory record as the span reader maps it (`content.ts`). */
export interface RecordRef {
  id: string | null;
  content: string | null;
}

/** A record's contents: the run is `shared` (from run offset `sharedAt`) followed by `tails`. */
interface Run {
  shared: string;
  sharedAt: number;
  tails: string[];
  length: number;
  /** The latest content (null when it was read incrementally and not joined yet) and where it starts. */
  last: string | null;
  lastAt: number;
  /** Holders waiting for their slice: content = run[start, end). */
  waiting: { holder: RecordRef; start: number; end: number }[];
}

/** A record's last `gen_ai.memory.records` text: its content string's body is raw[bodyAt, raw.length - closeLength). */
interface RawRecord {
  raw: string;
  bodyAt: number;
  closeLength: number;
  id: string | null;
}

/** The successive contents of the memory records of one trace, read and kept once (see the file's header). */
export class RecordTexts {
  private readonly runs = new Map<string, Run>();
  private readonly raws = new Map<string, RawRecord>();
  private held = 0;

  /**
   * The records of a `gen_ai.memory.records` text of the record `key` (store + record id),
   * equal to `parse(raw)`; the contents are filed (`add`) and reach the refs at `flush`.
   */
  read(key: string, raw: string, parse: (raw: string) => RecordRef[]): RecordRef[] {
    const prev = this.raws.get(key);
    const ref = prev ? this.readChanged(key, prev, raw) : null;
    if (ref) return [ref];
    const refs = parse(raw);
    this.raws.delete(key);
    const only = refs.length === 1 ? refs[0].content : null;
    if (only !== null && only.length >= MIN_LENGTH) {
      const bodyAt = contentBodyAt(raw, only);
      if (bodyAt >= 0)
        this.raws.set(key, {
          raw,
          bodyAt,
          closeLength: raw.length - bodyAt - JSON.stringify(only).length + 2,
          id: refs[0].id,
        });
    }
    for (const [i, r] of refs.entries()) this.add(refs.length === 1 ? key : `${key}\u0000${i}`, r);
    return refs;
  }

  /** Files `holder.content`, the latest content of the record `key`, to become a slice at the next flush. */
  add(key: string, holder: RecordRef): void {
    const text = holder.content;
    if (text === null || text.length < MIN_LENGTH) return;
    let run = this.runs.get(key);
    if (run && run.last === null) this.join(run);
    const at = run?.last ? overlapStart(run.last, text) : -1;
    if (!run || at < 0) {
      if (run) this.join(run);
      run = {
        shared: '',
        sharedAt: 0,
        tails: [text],
        length: text.length,
        last: text,
        lastAt: 0,
        waiting: [],
      };
      this.runs.set(key, run);
      run.waiting.push({ holder, start: 0, end: text.length });
    } else {
      // text = run.last.slice(at) + tail: the run grows by the tail only.
      this.extend(run, holder, at, text.slice(run.last!.length - at));
      run.last = text;
    }
    this.held += text.length;
    if (this.held >= BATCH) this.flush();
  }

  /** Joins every run and hands each waiting holder its slice. */
  flush(): void {
    for (const run of this.runs.values()) this.join(run);
    this.held = 0;
  }

  /** The record of `raw` when it differs from the record's previous text only as described above, else null. */
  private readChanged(key: string, prev: RawRecord, raw: string): RecordRef | null {
    const run = this.runs.get(key);
    const { bodyAt, closeLength } = prev;
    const end = raw.length - closeLength;
    const prevEnd = prev.raw.length - closeLength;
    if (!run || end < bodyAt) return null;
    // The same text before and after the content string's body…
    if (raw.slice(0, bodyAt) !== prev.raw.slice(0, bodyAt) || raw.slice(end) !== prev.raw.slice(prevEnd))
      return null;
    // …and a body that keeps the previous body from a line on.
    const body = raw.slice(bodyAt, end);
    const prevBody = prev.raw.slice(bodyAt, prevEnd);
    const at = rawOverlapStart(prevBody, body);
    if (at < 0) return null;
    let dropped: string;
    let added: string;
    try {
      // Both pieces start and end between escapes, so each decodes on its own.
      dropped = at ? (JSON.parse(`"${prevBody.slice(0, at)}"`) as string) : '';
      added = JSON.parse(`"${body.slice(prevBody.length - at)}"`) as string;
    } catch {
      return null; // not a valid string body (the whole text is parsed instead)
    }
    const ref: RecordRef = { id: prev.id, content: '' };
    this.extend(run, ref, dropped.length, added);
    run.last = null;
    prev.raw = raw;
    this.held += added.length;
    if (this.held >= BATCH) this.flush();
    return ref;
  }

  /** The run's latest content, without its first `drop` characters, followed by `tail`, for `holder`. */
  private extend(run: Run, holder: RecordRef, drop: number, tail: string): void {
    if (tail) run.tails.push(tail);
    run.length += tail.length;
    run.lastAt += drop;
    run.waiting.push({ holder, start: run.lastAt, end: run.length });
  }

  private join(run: Run): void {
    if (!run.waiting.length) return;
    // Text before the first waiting content is needed no more.
    const from = run.waiting[0].start;
    const head = run.shared.slice(from - run.sharedAt);
    // A run of one content (a record written once) is that content: nothing to join.
    const shared = !head && run.tails.length === 1 ? run.tails[0] : [head, ...run.tails].join('');
    for (const w of run.waiting) w.holder.content = shared.slice(w.start - from, w.end - from);
    run.shared = shared;
    run.sharedAt = from;
    run.tails = [];
    run.waiting = [];
    run.last = shared.slice(run.lastAt - from);
  }
}

/** `next.slice(0, part.length) === part` — a memory compare; startsWith goes char by char (20× slower here). */
function begins(next: string, part: string): boolean {
  return next.length >= part.length && next.slice(0, part.length) === part;
}

/**
 * Where a suffix of `prev` starts that `next` begins with (the record kept its later lines),
 * or -1: 0 when `next` begins with all of `prev`, else the start of a line of `prev`, the
 * kept part at least MIN_LENGTH long.
 */
function overlapStart(prev: string, next: string): number {
  if (begins(next, prev)) return 0;
  const nl = next.indexOf('\n');
  if (nl < 0) return -1;
  const first = next.slice(0, nl + 1);
  for (let at = prev.indexOf(first, 1); at >= 0; at = prev.indexOf(first, at + 1)) {
    if (prev.length - at < MIN_LENGTH) return -1;
    if (prev[at - 1] === '\n' && begins(next, prev.slice(at))) return at;
  }
  return -1;
}

/** Whether the backslash at `i` starts an escape (an even number of backslashes before it). */
function escapes(s: string, i: number): boolean {
  let n = 0;
  while (i - 1 - n >= 0 && s[i - 1 - n] === '\\') n++;
  return n % 2 === 0;
}

/**
 * The same as `overlapStart` on JSON string bodies (raw, escaped): where a suffix of `prev`
 * starts, right after an escaped newline (`\n`), that `next` begins with; 0 when `next`
 * begins with all of `prev`; -1 when neither.
 */
function rawOverlapStart(prev: string, next: string): number {
  if (begins(next, prev)) return 0;
  let nl = next.indexOf('\\n');
  while (nl >= 0 && !escapes(next, nl)) nl = next.indexOf('\\n', nl + 1);
  if (nl < 0) return -1;
  const first = next.slice(0, nl + 2);
  for (let at = prev.indexOf(first, 2); at >= 0; at = prev.indexOf(first, at + 1)) {
    if (prev.length - at < MIN_LENGTH) return -1;
    if (
      prev[at - 2] === '\\' &&
      prev[at - 1] === 'n' &&
      escapes(prev, at - 2) &&
      begins(next, prev.slice(at))
    )
      return at;
  }
  return -1;
}

/**
 * Where, in the JSON text of a one-record list, the body of the record's content string
 * starts, when it is written as JSON.stringify writes `content`; else -1. Checked by
 * parsing the text with that body removed: the content must then be empty.
 */
function contentBodyAt(raw: string, content: string): number {
  const literal = JSON.stringify(content);
  const at = raw.indexOf(literal);
  if (at < 0 || !escapes(raw, at) /* a quote, not preceded by an escaping backslash */) return -1;
  try {
    const emptied = JSON.parse(raw.slice(0, at + 1) + raw.slice(at + literal.length - 1));
    const rec = Array.isArray(emptied) && emptied.length === 1 ? emptied[0] : null;
    return rec && typeof rec === 'object' && !Array.isArray(rec) && rec.content === '' ? at + 1 : -1;
  } catch {
    return -1;
  }
}
