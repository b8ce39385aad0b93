/** What the d3 charts share: a cleared, sized <svg>, legend entries, percent labels. Text goes in with `.text()` only. */
import { type Selection, select } from 'd3';

/** `0.456` → `46%`. */
export const percentTick = (x: number) => `${Math.round(100 * x)}%`;

/** The svg emptied and sized to `width` × `height` (its viewBox too). */
export function clearChart(svg: SVGSVGElement, width: number, height: number) {
  const s = select(svg);
  s.selectAll('*').remove();
  s.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  return s;
}

/** A legend entry at (x, y) of `parent`: a 10 px swatch of `colour` and its label. */
export function legendEntry<E extends SVGGElement | SVGSVGElement>(
  parent: Selection<E, unknown, null, undefined>,
  x: number,
  y: number,
  colour: string,
  label: string,
): void {
  const item = parent.append('g').attr('transform', `translate(${x},${y})`);
  item.append('rect').attr('width', 10).attr('height', 10).attr('fill', colour);
  item
    .append('text')
    .attr('x', 14)
    .attr('y', 9)
    .attr('font-size', 11)
    .attr('fill', 'var(--muted)')
    .text(label);
}
