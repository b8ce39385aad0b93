/**
 * Colours of the lane view come from CSS custom properties (set in LaneView.svelte with
 * light-dark() defaults, overridable by the app's --mt-* variables). The canvas needs
 * concrete colours, so each property is resolved once per theme change through a probe
 * element's computed `color`.
 */
export interface LaneTheme {
  bg: string;
  lane: string;
  text: string;
  muted: string;
  accent: string;
  hover: string;
  op: string;
  /** A collapsed band's density. */
  dense: string;
  /** Lines between bands and the ruler's ticks. */
  edge: string;
  /** Background of the gutter, ruler and minimap. */
  panel: string;
  markAnswer: string;
  markLabel: string;
  markAttribution: string;
  /** Op colour by category name; unknown categories use `op`. */
  category: Map<string, string>;
  /** Packed ABGR (little-endian ImageData) of bg, lane and op for the raster level of detail. */
  rgba: {
    bg: [number, number, number];
    lane: [number, number, number];
    op: [number, number, number];
    dense: [number, number, number];
  };
}

const BASE_VARS = ['bg', 'lane', 'text', 'muted', 'accent', 'hover', 'op', 'dense', 'edge', 'panel'] as const;
const MARK_VARS = {
  markAnswer: 'mark-answer',
  markLabel: 'mark-label',
  markAttribution: 'mark-attribution',
} as const;
/** Categories with their own colour (`--lanes-cat-<name>`); others are drawn in `--lanes-op`. */
export const CATEGORY_VARS = [
  'extraction',
  'update',
  'deletion',
  'retrieval',
  'generation',
  'evaluation',
  'mutation',
  'llm_call',
] as const;

function parseRgb(css: string): [number, number, number] {
  const m = css.match(/[\d.]+/g);
  if (!m || m.length < 3) return [128, 128, 128];
  return [Number(m[0]), Number(m[1]), Number(m[2])];
}

/** Resolves the theme's custom properties on `el` to concrete colours. */
export function readTheme(el: HTMLElement): LaneTheme {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  el.appendChild(probe);
  const resolve = (name: string) => {
    probe.style.color = `var(--lanes-${name})`;
    return getComputedStyle(probe).color;
  };
  const base = Object.fromEntries(BASE_VARS.map((n) => [n, resolve(n)])) as Record<
    (typeof BASE_VARS)[number],
    string
  >;
  const category = new Map<string, string>();
  for (const c of CATEGORY_VARS) category.set(c, resolve(`cat-${c.replace('_', '-')}`));
  const marks = {
    markAnswer: resolve(MARK_VARS.markAnswer),
    markLabel: resolve(MARK_VARS.markLabel),
    markAttribution: resolve(MARK_VARS.markAttribution),
  };
  probe.remove();
  return {
    ...base,
    ...marks,
    category,
    rgba: {
      bg: parseRgb(base.bg),
      lane: parseRgb(base.lane),
      op: parseRgb(base.op),
      dense: parseRgb(base.dense),
    },
  };
}
