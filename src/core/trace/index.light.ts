/**
 * The light face of core/trace: the error types, issue places and the JSON checks that the app's
 * start chunk and core/labels, core/bench need, without the importers (OpenTelemetry readers and
 * their semantic-convention tables, which a bundler keeps once the full face is imported).
 */

export { issuePlace } from './issues.ts';
export { findJsonSyntaxError } from './json-syntax.ts';
export { ERROR_TYPES, isErrorType } from './types.ts';
export { stripBom } from './utf8.ts';
