/** Graph layouts (pure, no DOM): whole-graph time-ordered lanes and small layered neighbourhoods. */
export * from './lanes.ts';
export * from './layered.ts';
export * from './neighbourhood.ts';
