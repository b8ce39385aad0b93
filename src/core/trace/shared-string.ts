/**
 * The string a shared version's value reads as, without reading the value. A long-context
 * window's value is a Python repr (`'…'`) whose text is a cut of its chain's shared segment
 * (`version-text.ts`); reading it whole makes a copy, and parsing it another, for each of
 * thousands of versions. Here the segment is parsed once for all its versions, in pieces between
 * their cuts' starts and ends, and a version's string is a slice of the result (no copy).
 *
 * A piece parsed alone reads as it does inside the whole text when it starts and ends between
 * escapes; one cut inside an escape fails to parse (a lone backslash before the closing quote, a
 * short hex escape), so a version cut there, or one whose text does not read as a string, is read
 * by the caller as before (null).
 */
import { parseValue } from './pyrepr.ts';
import { type SharedText, valueCut } from './version-text.ts';

/** A segment read as a string with one kind of quotes: the text, and where each bound it could be cut at falls in it. */
interface ReadSegment {
  quote: string;
  text: string;
  at: Map<number, number>;
}

/** Segments read lately: a walk reads a chain's versions one after another. */
const recent = new Map<SharedText, ReadSegment>();
const RECENT = 8;
/** Pieces joined across bounds cut inside escapes before the text is taken not to read in pieces. */
const MAX_JOINED = 4;

/**
 * The string the record's value reads as (`parseValue`), when it is a shared string repr (its
 * quotes at both ends); null otherwise, or when its segment does not read in pieces.
 */
export function sharedString(record: object): string | null {
  const cut = valueCut(record);
  if (!cut || (cut.open !== "'" && cut.open !== '"') || cut.close !== cut.open) return null;
  const read = readSegment(cut.shared, cut.open);
  const from = read.at.get(cut.start);
  const to = read.at.get(cut.end);
  return from === undefined || to === undefined ? null : read.text.slice(from, to);
}

/** The segment parsed piece by piece with `quote` (kept for the next versions of its chain). */
function readSegment(shared: SharedText, quote: string): ReadSegment {
  const known = recent.get(shared);
  const read = known?.quote === quote ? known : parsePieces(shared, quote);
  recent.delete(shared); // the most recent last: the oldest goes first
  recent.set(shared, read);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value as SharedText);
  return read;
}

/**
 * The segment parsed in pieces between its bounds. A bound inside an escape leaves the piece before
 * it unparsable (a lone backslash, a short hex escape): the piece runs on to the next bound, and
 * the versions cut at that bound are read as before.
 */
function parsePieces(shared: SharedText, quote: string): ReadSegment {
  const { text, bounds } = shared;
  const pieces: string[] = [];
  const at = new Map<number, number>([[bounds[0], 0]]);
  let length = 0;
  let from = 0;
  for (let i = 1; i < bounds.length; i++) {
    const piece = parseValue(`${quote}${text.slice(bounds[from], bounds[i])}${quote}`);
    if (typeof piece !== 'string') {
      // Not an escape cut in two: a text that does not read with these quotes. Its rest is read as before.
      if (i - from >= MAX_JOINED) break;
      continue;
    }
    pieces.push(piece);
    length += piece.length;
    at.set(bounds[i], length);
    from = i;
  }
  return { quote, text: pieces.join(''), at };
}
