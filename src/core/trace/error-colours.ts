/**
 * One colour per error type, everywhere: the app's tags and charts, the report's charts and
 * its exported HTML. Each type has one hue: a solid `chart` fill (readable on white paper),
 * and tag text / background pairs for the light and the dark theme (text on its background
 * ≥ 4.5:1). `none` (no decisive error) is grey.
 */
import type { ErrorType } from './types.ts';

/** The colours of one error type. */
export interface ErrorTypeColours {
  /** Bars, legend swatches, stacked segments. */
  chart: string;
  light: { text: string; bg: string };
  dark: { text: string; bg: string };
}

/** Colours of the five error types and of `none`. */
export const ERROR_TYPE_COLOURS: Readonly<Record<ErrorType | 'none', ErrorTypeColours>> = {
  ExtractionError: {
    chart: '#4e79a7',
    light: { text: '#1a4f9c', bg: '#e3edfb' },
    dark: { text: '#9cc3ff', bg: '#1d2c45' },
  },
  UpdateError: {
    chart: '#f28e2b',
    light: { text: '#8a4300', bg: '#fdebd9' },
    dark: { text: '#ffbf80', bg: '#3d2a17' },
  },
  DeletionError: {
    chart: '#e15759',
    light: { text: '#a11a1a', bg: '#fbe4e4' },
    dark: { text: '#ff9e9e', bg: '#3f1f1f' },
  },
  RetrievalError: {
    chart: '#59a14f',
    light: { text: '#1d6b2f', bg: '#e1f3e5' },
    dark: { text: '#8fe0a2', bg: '#1c3323' },
  },
  ResponseError: {
    chart: '#8e6bbf',
    light: { text: '#5b2fb0', bg: '#eee7fb' },
    dark: { text: '#c9b3ff', bg: '#2d2445' },
  },
  none: {
    chart: '#bab0ac',
    light: { text: '#5d636e', bg: '#f3f3f1' },
    dark: { text: '#b8bcc4', bg: '#2a2d33' },
  },
};

/** The chart colour of an error type (or `none`); unknown types are grey. */
export function errorTypeColour(type: string | null | undefined): string {
  const c = (ERROR_TYPE_COLOURS as Record<string, ErrorTypeColours | undefined>)[type ?? 'none'];
  return (c ?? ERROR_TYPE_COLOURS.none).chart;
}

/**
 * The CSS custom properties of the tags in one theme: `--et-<type>` (text) and
 * `--et-<type>-bg` for each of the five, e.g. `--et-extraction`.
 */
export function errorTypeCssVars(theme: 'light' | 'dark'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [type, c] of Object.entries(ERROR_TYPE_COLOURS)) {
    const name = `--et-${type.replace(/Error$/, '').toLowerCase()}`;
    out[name] = c[theme].text;
    out[`${name}-bg`] = c[theme].bg;
  }
  return out;
}
