/** Graph layouts (pure, no DOM): whole-graph time-ordered lanes in bands and small layered neighbourhoods. */
export * from './lane-rows.ts';
export * from './lanes.ts';
export * from './layered.ts';
export * from './neighbourhood.ts';
