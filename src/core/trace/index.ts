/**
 * The trace model and its files: types, import (JSON syntax, validation, nesting limit),
 * identity, Python-repr values, versions' repeated text stored once, export, and the OTLP span pieces other modules use.
 */

export {
  isConversationMessage,
  isGenericCategory,
  isMessageCategory,
  isPromptCategory,
  isQueryCategory,
} from './categories.ts';
export { ERROR_TYPE_COLOURS, errorTypeCssVars } from './error-colours.ts';
export { exportSmartcomment, smartcommentPieces } from './export.ts';
export { fullNameOf, fullNodeIdOf, splitFullNodeId } from './identity.ts';
export { checkParsedValue, type ImportOptions, type ImportResult, parseTraceText } from './import.ts';
export { formatIssue, IssueCollector, type TraceIssue } from './issues.ts';
export { findJsonSyntaxError } from './json-syntax.ts';
export { joinPath, MAX_NESTING, nestsDeeperThan, TOO_DEEP_MESSAGE, tooDeepAt } from './nesting.ts';
export { normalizeUnit, textPieces, textUnits } from './otel/dataflow.ts';
export { documentToSpans, type EmitOptions, opSpanId, type SpanDescription } from './otel/emit.ts';
export { type RecordRef, RecordTexts } from './otel/record-texts.ts';
export { messageText, parseValue, prettyValue, readableValue, valueStrings, valueText } from './pyrepr.ts';
export { sharedString } from './shared-string.ts';
export { parseTraceChunks } from './stream.ts';
export {
  type Annotation,
  type EdgeRecord,
  ERROR_TYPES,
  type ErrorType,
  isErrorType,
  type JsonObject,
  type OperationRecord,
  SENTINEL,
  type SessionRecord,
  type TraceDocument,
  type TraceHeader,
  type VariableRecord,
} from './types.ts';
export { decodeUtf8, stripBom } from './utf8.ts';
export {
  firstMark,
  hasSharedValue,
  type SharedText,
  shareVersionTexts,
  type ValueCut,
  valueCut,
} from './version-text.ts';
