/**
 * The report's d3 charts: rates with their Wilson intervals as whiskers, and stacked
 * counts per system. Labels are set with `.text()`, so trace names cannot inject markup.
 */
import { axisBottom, scaleBand, scaleLinear } from 'd3';
import { maxOf } from '../../core/arrays.ts';
import { labelColumn, TYPE_COLOURS, textWidth } from '../../core/report/index.ts';
import { clearChart, legendEntry, percentTick } from '../lib/svg-chart.ts';

interface RateRow {
  key: string;
  colourKey: string;
  count: number;
  rate: number;
  low: number;
  high: number;
}

/** Horizontal bars of rates (0–1) with whiskers for the 95 % interval and the count beside. */
export function drawRates(svg: SVGSVGElement, rows: RateRow[], width: number): void {
  const labels = labelColumn(
    rows.map((r) => r.key),
    110,
    Math.max(140, width * 0.45),
  );
  const labelW = labels.width;
  const band = 26;
  const height = rows.length * band + 30;
  const s = clearChart(svg, width, height);
  const x = scaleLinear([0, 1], [labelW, width - 90]);
  const y = scaleBand(
    rows.map((r) => r.key),
    [4, 4 + rows.length * band],
  ).padding(0.2);
  s.append('g')
    .attr('class', 'axis')
    .attr('transform', `translate(0,${4 + rows.length * band})`)
    .call(
      axisBottom(x)
        .ticks(5)
        .tickFormat((d) => percentTick(Number(d))),
    );
  const g = s
    .append('g')
    .selectAll('g')
    .data(rows)
    .join('g')
    .attr('transform', (r) => `translate(0,${y(r.key) ?? 0})`);
  const h = y.bandwidth();
  g.append('text')
    .attr('x', labelW - 8)
    .attr('y', h / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'end')
    .attr('fill', 'var(--text)')
    .text((r) => labels.fit(r.key))
    .append('title')
    .text((r) => r.key);
  g.append('rect')
    .attr('x', x(0))
    .attr('height', h)
    .attr('width', (r) => x(r.rate) - x(0))
    .attr('fill', (r) => TYPE_COLOURS[r.colourKey] ?? 'var(--accent)');
  g.append('line')
    .attr('x1', (r) => x(r.low))
    .attr('x2', (r) => x(r.high))
    .attr('y1', h / 2)
    .attr('y2', h / 2)
    .attr('stroke', 'var(--text)')
    .attr('stroke-width', 1.5);
  for (const end of ['low', 'high'] as const)
    g.append('line')
      .attr('x1', (r) => x(r[end]))
      .attr('x2', (r) => x(r[end]))
      .attr('y1', 2)
      .attr('y2', h - 2)
      .attr('stroke', 'var(--text)');
  g.append('text')
    .attr('x', width - 84)
    .attr('y', h / 2)
    .attr('dy', '0.35em')
    .attr('font-size', 11)
    .attr('fill', 'var(--muted)')
    .text((r) => `${r.count} · ${(100 * r.rate).toFixed(1)}%`);
}

interface StackRow {
  key: string;
  parts: { key: string; value: number }[];
}

/** Stacked horizontal bars of counts with a legend. */
export function drawStacks(svg: SVGSVGElement, rows: StackRow[], keys: string[], width: number): void {
  const labels = labelColumn(
    rows.map((r) => r.key),
    90,
    Math.max(120, width * 0.4),
  );
  const labelW = labels.width;
  const band = 26;
  const top = 24;
  const height = top + rows.length * band + 6;
  const s = clearChart(svg, width, height);
  const max = maxOf(
    rows.map((r) => r.parts.reduce((n, p) => n + p.value, 0)),
    1,
  );
  const x = scaleLinear([0, max], [labelW, width - 50]);
  const legend = s.append('g');
  // Legend entries one after another, each as wide as its name; a row that would run past the edge wraps.
  let lx = labelW;
  let ly = 4;
  for (const k of keys) {
    const name = k.replace(/Error$/, '');
    const w = textWidth(name, 11) + 28;
    if (lx + w > width && lx > labelW) {
      lx = labelW;
      ly += 14;
    }
    legendEntry(legend, lx, ly, TYPE_COLOURS[k] ?? '#999', name);
    lx += w;
  }
  rows.forEach((r, i) => {
    const y = top + i * band;
    s.append('text')
      .attr('x', labelW - 8)
      .attr('y', y + band / 2)
      .attr('dy', '0.35em')
      .attr('text-anchor', 'end')
      .attr('fill', 'var(--text)')
      .text(labels.fit(r.key))
      .append('title')
      .text(r.key);
    let at = 0;
    for (const p of r.parts) {
      if (p.value <= 0) continue;
      s.append('rect')
        .attr('x', x(at))
        .attr('y', y + 4)
        .attr('height', band - 8)
        .attr('width', x(at + p.value) - x(at))
        .attr('fill', TYPE_COLOURS[p.key] ?? '#999')
        .append('title')
        .text(`${p.key}: ${p.value}`);
      at += p.value;
    }
    s.append('text')
      .attr('x', x(at) + 6)
      .attr('y', y + band / 2)
      .attr('dy', '0.35em')
      .attr('font-size', 11)
      .attr('fill', 'var(--muted)')
      .text(String(at));
  });
}
