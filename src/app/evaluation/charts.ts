/**
 * The evaluation charts, drawn with d3 into an <svg>: grouped accuracy bars, the
 * confusion matrix (heat-map grid with counts) and the cost per case. Every label is
 * set with `.text()` (never markup), so names from traces cannot inject anything.
 */
import {
  axisBottom,
  axisLeft,
  type BaseType,
  interpolateRgb,
  max,
  rgb,
  scaleBand,
  scaleLinear,
  select,
} from 'd3';
import { maxOf } from '../../core/arrays.ts';
import { labelColumn, textWidth } from '../../core/report/index.charts.ts';
import { clearChart, legendEntry, percentTick } from '../lib/svg-chart.ts';

interface AccuracyRow {
  key: string;
  total: number;
  eta: number;
  oia: number;
}

/** Horizontal grouped bars: ETA and OIA per group (system or error type). */
export function drawAccuracy(svg: SVGSVGElement, rows: AccuracyRow[], width: number): void {
  const labels = labelColumn(
    rows.map((r) => `${r.key} (${r.total})`),
    90,
    Math.max(120, width * 0.42),
  );
  const labelW = labels.width;
  const band = 40;
  const top = 26;
  const height = top + rows.length * band + 26;
  const s = clearChart(svg, width, height);
  const x = scaleLinear([0, 1], [labelW, width - 72]);
  const y = scaleBand(
    rows.map((r) => r.key),
    [top, top + rows.length * band],
  ).padding(0.18);
  const sub = scaleBand(['eta', 'oia'], [0, y.bandwidth()]).padding(0.08);
  const fills = { eta: 'var(--accent)', oia: 'var(--ok)' } as const;

  s.append('g')
    .attr('transform', `translate(0,${top + rows.length * band})`)
    .attr('class', 'axis')
    .call(
      axisBottom(x)
        .ticks(5)
        .tickFormat((d) => percentTick(Number(d))),
    );
  s.append('g')
    .attr('class', 'grid')
    .selectAll('line')
    .data(x.ticks(5))
    .join('line')
    .attr('x1', (d) => x(d))
    .attr('x2', (d) => x(d))
    .attr('y1', top)
    .attr('y2', top + rows.length * band)
    .attr('stroke', 'var(--border)');

  const g = s
    .append('g')
    .selectAll('g')
    .data(rows)
    .join('g')
    .attr('transform', (r) => `translate(0,${y(r.key) ?? 0})`);
  g.append('text')
    .attr('x', labelW - 8)
    .attr('y', y.bandwidth() / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'end')
    .attr('fill', 'var(--text)')
    .text((r) => labels.fit(`${r.key} (${r.total})`))
    .append('title')
    .text((r) => `${r.key} (${r.total})`);
  for (const k of ['eta', 'oia'] as const) {
    g.append('rect')
      .attr('x', x(0))
      .attr('y', sub(k) ?? 0)
      .attr('height', sub.bandwidth())
      .attr('width', (r) => x(r[k]) - x(0))
      .attr('fill', fills[k]);
    g.append('text')
      .attr('x', (r) => x(r[k]) + 4)
      .attr('y', (sub(k) ?? 0) + sub.bandwidth() / 2)
      .attr('dy', '0.35em')
      .attr('font-size', 11)
      .attr('fill', 'var(--muted)')
      .text((r) => `${k.toUpperCase()} ${percentTick(r[k])}`);
  }
  const legend = s.append('g').attr('transform', `translate(${labelW},8)`);
  (['eta', 'oia'] as const).forEach((k, i) => {
    legendEntry(legend, i * 190, 0, fills[k], k === 'eta' ? 'error type accuracy' : 'op id accuracy');
  });
}

/**
 * Confusion matrix: rows are labels, columns predictions; a cell's shade is its share
 * of the row, its text the count. The diagonal (right answers) is outlined.
 */
interface ConfusionOptions {
  /** Called with a cell's label and prediction when it is clicked or activated by key. */
  onCell?: (label: string, predicted: string) => void;
  /** The cell shown as picked, `label|predicted`. */
  selected?: string;
  /** Dark theme: the shades run from the dark panel to light blue. */
  dark?: boolean;
}

/** Relative luminance of an sRGB colour (WCAG 2). */
function luminance(c: string): number {
  const { r, g, b } = rgb(c);
  const lin = (v: number) => {
    const x = v / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Black or white, whichever reads better on `fill` (one of them always reaches 4.5:1). */
function readableOn(fill: string): string {
  const l = luminance(fill);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** Sizes of a confusion matrix: the label column, the header's height and the cell side. */
interface ConfusionGrid {
  rowLabels: ReturnType<typeof labelColumn>;
  left: number;
  top: number;
  cell: number;
}

function confusionGrid(labels: string[], predicted: string[], width: number) {
  const rowLabels = labelColumn(labels, 90, 220, 11);
  const left = rowLabels.width;
  // Column names are drawn rotated up to the right: the last one needs room past its column.
  const overhang =
    Math.cos(Math.PI / 4.5) *
    maxOf(
      predicted.map((p) => textWidth(p, 11)),
      0,
    );
  const top =
    16 +
    Math.sin(Math.PI / 4.5) *
      maxOf(
        predicted.map((p) => textWidth(p, 11)),
        0,
      );
  const cell = Math.max(34, Math.min(64, (width - left - overhang) / Math.max(1, predicted.length)));
  const grid: ConfusionGrid = { rowLabels, left, top, cell };
  return { grid, svgWidth: Math.max(width, left + (predicted.length - 0.5) * cell + overhang + 6) };
}

/** The axis titles, the rotated column names, and a group per row with its label; returns the row groups. */
function confusionFrame(
  s: ReturnType<typeof clearChart>,
  grid: ConfusionGrid,
  labels: string[],
  predicted: string[],
) {
  const { left, top, cell } = grid;
  s.append('text')
    .attr('x', left)
    .attr('y', 12)
    .attr('font-size', 11)
    .attr('fill', 'var(--muted)')
    .text('predicted →');
  s.append('text')
    .attr('x', 4)
    .attr('y', top - 8)
    .attr('font-size', 11)
    .attr('fill', 'var(--muted)')
    .text('label ↓');
  s.append('g')
    .selectAll('text')
    .data(predicted)
    .join('text')
    .attr('transform', (_, i) => `translate(${left + i * cell + cell / 2},${top - 6}) rotate(-40)`)
    .attr('font-size', 11)
    .attr('fill', 'var(--text)')
    .text((p) => p);
  const rows = s
    .append('g')
    .selectAll('g')
    .data(labels)
    .join('g')
    .attr('transform', (_, i) => `translate(0,${top + i * cell})`);
  rows
    .append('text')
    .attr('x', left - 8)
    .attr('y', cell / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'end')
    .attr('font-size', 11)
    .attr('fill', 'var(--text)')
    .text((l) => grid.rowLabels.fit(l));
  return rows;
}

/** One row's cells: shade by share of the row, the count in a readable colour, the diagonal outlined. */
function confusionRow(
  rowGroup: BaseType,
  label: string,
  row: Record<string, number>,
  ctx: { grid: ConfusionGrid; predicted: string[]; shade: (t: number) => string; options: ConfusionOptions },
): void {
  const { grid, options, shade } = ctx;
  const { left, cell } = grid;
  const total = Object.values(row).reduce((a, b) => a + b, 0);
  const g = select(rowGroup)
    .selectAll('g')
    .data(ctx.predicted)
    .join('g')
    .attr('transform', (_, i) => `translate(${left + i * cell},0)`)
    .attr('data-testid', 'confusion-cell')
    .attr('data-label', label)
    .attr('data-predicted', (p) => p)
    .attr('data-count', (p) => row[p] ?? 0);
  const fill = (p: string) => (row[p] ? shade(total ? row[p] / total : 0) : null);
  g.append('rect')
    .attr('width', cell - 2)
    .attr('height', cell - 2)
    .attr('rx', 3)
    .attr('fill', (p) => fill(p) ?? 'var(--panel-2)')
    .attr('stroke', (p) =>
      options.selected === `${label}|${p}` ? 'var(--accent)' : p === label ? 'var(--text)' : 'none',
    )
    .attr('stroke-width', (p) => (options.selected === `${label}|${p}` ? 3 : 1.5));
  g.append('text')
    .attr('x', (cell - 2) / 2)
    .attr('y', (cell - 2) / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'middle')
    .attr('font-size', 12)
    .attr('font-weight', 600)
    .attr('fill', (p) => {
      const f = fill(p);
      return f ? readableOn(f) : 'var(--text)';
    })
    .text((p) => String(row[p] ?? 0));
  g.append('title').text((p) => `label ${label}, predicted ${p}: ${row[p] ?? 0} of ${total}`);
  const onCell = options.onCell;
  if (onCell) {
    // Cells with cases are buttons that list them.
    g.filter((p) => (row[p] ?? 0) > 0)
      .attr('role', 'button')
      .attr('tabindex', 0)
      .attr('aria-label', (p) => `List the ${row[p]} case(s) labelled ${label}, predicted ${p}`)
      .style('cursor', 'pointer')
      .on('click', (_, p) => onCell(label, p))
      .on('keydown', (e: KeyboardEvent, p) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        onCell(label, p);
      });
  }
}

export function drawConfusion(
  svg: SVGSVGElement,
  labels: string[],
  predicted: string[],
  counts: Record<string, Record<string, number>>,
  width: number,
  options: ConfusionOptions = {},
): void {
  const { grid, svgWidth } = confusionGrid(labels, predicted, width);
  const s = clearChart(svg, svgWidth, grid.top + labels.length * grid.cell + 8);
  // Solid shades (not alpha over the panel), so the count's colour can be chosen for contrast.
  const shade = options.dark ? interpolateRgb('#1f2a3f', '#9cbcff') : interpolateRgb('#eef3fd', '#1c4fc4');
  const ctx = { grid, predicted, shade, options };
  confusionFrame(s, grid, labels, predicted).each(function (label) {
    confusionRow(this, label, counts[label] ?? {}, ctx);
  });
}

interface CostPoint {
  /** Milliseconds the case took. */
  ms: number;
  correct: boolean;
  name: string;
}

/** One bar per case (its time), coloured by whether the error type was right, with the mean as a line. */
export function drawCost(svg: SVGSVGElement, points: CostPoint[], width: number): void {
  const height = 180;
  const m = { left: 52, right: 12, top: 12, bottom: 26 };
  const s = clearChart(svg, width, height);
  const x = scaleBand(
    points.map((_, i) => String(i)),
    [m.left, width - m.right],
  ).padding(0.15);
  const y = scaleLinear([0, max(points, (p) => p.ms) || 1], [height - m.bottom, m.top]).nice();
  s.append('g')
    .attr('class', 'axis')
    .attr('transform', `translate(${m.left},0)`)
    .call(
      axisLeft(y)
        .ticks(4)
        .tickFormat((d) => `${Number(d)} ms`),
    );
  s.append('g')
    .selectAll('rect')
    .data(points)
    .join('rect')
    .attr('x', (_, i) => x(String(i)) ?? 0)
    .attr('y', (p) => y(p.ms))
    .attr('width', x.bandwidth())
    .attr('height', (p) => y(0) - y(p.ms))
    .attr('fill', (p) => (p.correct ? 'var(--accent)' : 'var(--danger)'))
    .append('title')
    .text((p) => `${p.name}: ${p.ms.toFixed(1)} ms`);
  const mean = points.length ? points.reduce((a, p) => a + p.ms, 0) / points.length : 0;
  s.append('line')
    .attr('x1', m.left)
    .attr('x2', width - m.right)
    .attr('y1', y(mean))
    .attr('y2', y(mean))
    .attr('stroke', 'var(--warn)')
    .attr('stroke-dasharray', '4 3');
  s.append('text')
    .attr('x', width - m.right)
    .attr('y', y(mean) - 4)
    .attr('text-anchor', 'end')
    .attr('font-size', 11)
    .attr('fill', 'var(--warn)')
    .text(`mean ${mean.toFixed(1)} ms`);
  s.append('text')
    .attr('x', m.left)
    .attr('y', height - 6)
    .attr('font-size', 11)
    .attr('fill', 'var(--muted)')
    .text(`${points.length} cases, in order`);
}
