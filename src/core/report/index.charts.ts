/**
 * The face of core/report for the app's evaluation charts: label columns sized to their text,
 * without the report builder and its renderings (zod, the attributors, compromise). Imported
 * through the full face, opening the Evaluation view loaded the whole report chunk on the page's thread.
 */

export { labelColumn, textWidth } from './text-width.ts';
