/**
 * Chart labels sized to their text: an approximate text width and a label column that fits
 * its longest label (the report's SVG charts and the app's evaluation charts).
 */
import { maxOf } from '../arrays.ts';

/** Approximate width in px of a text in a sans-serif font of `size` px (narrow and wide letters apart). */
export function textWidth(text: string, size = 12): number {
  let em = 0;
  for (const ch of text) {
    if (/[ilj.,:;|!'`]/.test(ch)) em += 0.3;
    else if (ch === ' ') em += 0.3;
    else if (/[mwMW@%]/.test(ch)) em += 0.9;
    else if (/[A-Z]/.test(ch)) em += 0.7;
    else if (/[0-9]/.test(ch)) em += 0.58;
    else em += 0.58;
  }
  return em * size;
}

/**
 * The label column of a chart: wide enough for its longest label (between `min` and `max`
 * px, with a gap to the bars), and `fit` cutting a label longer than that with "…" — so no
 * label is clipped at the chart's edge ("ession-summary memory").
 */
export function labelColumn(
  labels: readonly string[],
  min: number,
  max: number,
  size = 12,
): { width: number; fit: (label: string) => string } {
  const gap = 14;
  const width = Math.ceil(
    Math.min(
      max,
      maxOf(
        labels.map((l) => textWidth(l, size) + gap),
        min,
      ),
    ),
  );
  const fit = (label: string) => {
    if (textWidth(label, size) + gap <= width) return label;
    let cut = label;
    while (cut.length > 1 && textWidth(`${cut}…`, size) + gap > width) cut = cut.slice(0, -1);
    return `${cut}…`;
  };
  return { width, fit };
}
