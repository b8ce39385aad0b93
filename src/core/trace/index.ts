export * from './categories.ts';
export * from './error-colours.ts';
export * from './export.ts';
export * from './identity.ts';
export * from './import.ts';
export * from './issues.ts';
export * from './json-syntax.ts';
export * from './nesting.ts';
export { normalizeUnit, textPieces, textUnits } from './otel/dataflow.ts';
export {
  documentToSpans,
  type EmitOptions,
  opSpanId,
  type SpanDescription,
} from './otel/emit.ts';
export { type RecordRef, RecordTexts } from './otel/record-texts.ts';
export * from './pyrepr.ts';
export { parseTraceChunks } from './stream.ts';
export * from './types.ts';
export * from './utf8.ts';
