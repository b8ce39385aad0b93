/** Writes a document back to smartcomment JSON: the same records, keys and order as read. */
import type { TraceDocument } from './types.ts';

/** Options of `exportSmartcomment`. */
export interface ExportOptions {
  /** Spaces of indentation (the toolkit writes 2); 0 writes compact JSON. */
  indent?: number;
}

/** The document as smartcomment JSON text: its own records, keys and order (2-space indent unless chosen). */
export function exportSmartcomment(doc: TraceDocument, options: ExportOptions = {}): string {
  return JSON.stringify(doc, null, options.indent ?? 2);
}
