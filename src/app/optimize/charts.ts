/** The Optimise view's score curves (d3): training before/after and held-out per round; labels via `.text()`. */
import { axisBottom, axisLeft, line, scaleLinear } from 'd3';
import { clearChart, legendEntry, percentTick } from '../lib/svg-chart.ts';

interface ScorePoint {
  round: number;
  trainBefore: number;
  trainAfter: number | null;
  heldOut: number;
}

export function drawScores(svg: SVGSVGElement, points: ScorePoint[], width: number): void {
  const height = 220;
  const s = clearChart(svg, width, height);
  const n = Math.max(1, points.length);
  const x = scaleLinear([0.5, n + 0.5], [44, width - 16]);
  const y = scaleLinear([0, 1], [height - 28, 26]);
  s.append('g')
    .attr('class', 'axis')
    .attr('transform', `translate(0,${height - 28})`)
    .call(
      axisBottom(x)
        .ticks(n)
        .tickFormat((d) => `round ${d}`),
    );
  s.append('g')
    .attr('class', 'axis')
    .attr('transform', 'translate(44,0)')
    .call(
      axisLeft(y)
        .ticks(5)
        .tickFormat((d) => percentTick(Number(d))),
    );
  const series: { key: keyof ScorePoint; label: string; colour: string }[] = [
    { key: 'trainBefore', label: 'training, prompts in force', colour: 'var(--muted)' },
    { key: 'trainAfter', label: 'training, candidate', colour: 'var(--accent)' },
    { key: 'heldOut', label: 'held-out, prompts in force', colour: 'var(--ok)' },
  ];
  series.forEach((ser, i) => {
    const pts = points
      .filter((p) => p[ser.key] !== null)
      .map((p) => [x(p.round), y(p[ser.key] as number)] as [number, number]);
    s.append('path')
      .attr('d', line()(pts) ?? '')
      .attr('fill', 'none')
      .attr('stroke', ser.colour)
      .attr('stroke-width', 2);
    s.append('g')
      .selectAll('circle')
      .data(pts)
      .join('circle')
      .attr('cx', (d) => d[0])
      .attr('cy', (d) => d[1])
      .attr('r', 3.5)
      .attr('fill', ser.colour);
    legendEntry(s, 50 + i * 190, 8, ser.colour, ser.label);
  });
}
