/**
 * Span traces as a tree / waterfall: the spans a stored graph holds (`spanInputs`) and the
 * tree's rows built from them (`buildSpanTable`).
 */
export { cell, findCell, type PackedStrings, packStrings } from './packed.ts';
export { spanInputs } from './read.ts';
export {
  buildSpanTable,
  CYCLE,
  ORPHAN,
  type SpanInput,
  type SpanTable,
  STATUS,
} from './tree.ts';
