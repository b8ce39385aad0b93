/**
 * Small SVG charts as strings, for the self-contained HTML report (no scripts, no
 * external assets; core has no DOM). Every label goes through `escapeHtml`.
 */

import { maxOf } from '../arrays.ts';
import { ERROR_TYPE_COLOURS } from '../trace/index.ts';
import { labelColumn, textWidth } from './text-width.ts';

// In a module of their own: the app's evaluation charts use them without the report (./index.charts.ts).
export { labelColumn, textWidth } from './text-width.ts';

/** Escapes `& < > " '` for HTML text and attribute values (the report's SVG and HTML). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** One colour per error type (and grey for "none"), readable on paper: the app's (core/trace `ERROR_TYPE_COLOURS`). */
export const TYPE_COLOURS: Record<string, string> = Object.fromEntries(
  Object.entries(ERROR_TYPE_COLOURS).map(([type, c]) => [type, c.chart]),
);

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

const n2 = (x: number) => (Math.round(x * 10) / 10).toString();

/** One bar of `rateBars`: its label, rate with interval, the note at its end and an optional colour. */
export interface RateBar {
  label: string;
  rate: number;
  low: number;
  high: number;
  note: string;
  colour?: string;
}

/** Horizontal bars of rates (0–100 %) with their intervals as whiskers. */
export function rateBars(bars: RateBar[], minWidth = 640): string {
  const labels = labelColumn(
    bars.map((b) => b.label),
    120,
    420,
  );
  const labelW = labels.width;
  const noteW = maxOf(
    bars.map((b) => textWidth(b.note) + 16),
    150,
  );
  const width = Math.max(minWidth, labelW + noteW + 260);
  const row = 24;
  const top = 8;
  const plotW = width - labelW - noteW;
  const h = top + bars.length * row + 24;
  const x = (v: number) => labelW + v * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" role="img" ${FONT}>`,
  ];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${n2(x(t))}" x2="${n2(x(t))}" y1="${top}" y2="${top + bars.length * row}" stroke="#ddd"/>`,
      `<text x="${n2(x(t))}" y="${top + bars.length * row + 16}" text-anchor="middle" fill="#666">${t * 100} %</text>`,
    );
  }
  bars.forEach((b, i) => {
    const y = top + i * row;
    const mid = y + row / 2;
    parts.push(
      `<text x="${labelW - 8}" y="${mid}" dy="0.35em" text-anchor="end" fill="#222"><title>${escapeHtml(b.label)}</title>${escapeHtml(labels.fit(b.label))}</text>`,
      `<rect x="${labelW}" y="${y + 5}" width="${n2(Math.max(0, b.rate) * plotW)}" height="${row - 10}" fill="${b.colour ?? '#4e79a7'}"/>`,
      `<line x1="${n2(x(b.low))}" x2="${n2(x(b.high))}" y1="${mid}" y2="${mid}" stroke="#222" stroke-width="1.5"/>`,
      `<line x1="${n2(x(b.low))}" x2="${n2(x(b.low))}" y1="${mid - 5}" y2="${mid + 5}" stroke="#222"/>`,
      `<line x1="${n2(x(b.high))}" x2="${n2(x(b.high))}" y1="${mid - 5}" y2="${mid + 5}" stroke="#222"/>`,
      `<text x="${width - noteW + 8}" y="${mid}" dy="0.35em" fill="#444">${escapeHtml(b.note)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** One row of `stackedBars`: a label and its counts per key. */
export interface StackRow {
  label: string;
  parts: { key: string; value: number }[];
}

/** Horizontal stacked bars of counts, one colour per key, with a legend. */
export function stackedBars(rows: StackRow[], keys: string[], minWidth = 640): string {
  const labels = labelColumn(
    rows.map((r) => r.label),
    100,
    360,
  );
  const labelW = labels.width;
  const legend = keys.map((k) => k.replace(/Error$/, ''));
  const legendW = legend.reduce((w, k) => w + textWidth(k) + 30, 0);
  const width = Math.max(minWidth, labelW + 300, labelW + legendW);
  const row = 24;
  const top = 26;
  const max = maxOf(
    rows.map((r) => r.parts.reduce((s, p) => s + p.value, 0)),
    1,
  );
  const plotW = width - labelW - 60;
  const h = top + rows.length * row + 8;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" role="img" ${FONT}>`,
  ];
  let lx = labelW;
  keys.forEach((k, i) => {
    out.push(
      `<rect x="${n2(lx)}" y="4" width="10" height="10" fill="${TYPE_COLOURS[k] ?? '#999'}"/>`,
      `<text x="${n2(lx + 14)}" y="13" fill="#444">${escapeHtml(legend[i])}</text>`,
    );
    lx += textWidth(legend[i]) + 30;
  });
  rows.forEach((r, i) => {
    const y = top + i * row;
    let x = labelW;
    out.push(
      `<text x="${labelW - 8}" y="${y + row / 2}" dy="0.35em" text-anchor="end" fill="#222"><title>${escapeHtml(r.label)}</title>${escapeHtml(labels.fit(r.label))}</text>`,
    );
    for (const p of r.parts) {
      if (p.value <= 0) continue;
      const w = (p.value / max) * plotW;
      out.push(
        `<rect x="${n2(x)}" y="${y + 5}" width="${n2(w)}" height="${row - 10}" fill="${TYPE_COLOURS[p.key] ?? '#999'}"><title>${escapeHtml(`${p.key}: ${p.value}`)}</title></rect>`,
      );
      x += w;
    }
    const total = r.parts.reduce((s, p) => s + p.value, 0);
    out.push(`<text x="${n2(x + 6)}" y="${y + row / 2}" dy="0.35em" fill="#444">${total}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}
