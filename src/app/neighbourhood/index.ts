/** The graph around an op, a variable or a case, drawn as a small layered SVG. */
export { default as NeighbourhoodView } from './NeighbourhoodView.svelte';
