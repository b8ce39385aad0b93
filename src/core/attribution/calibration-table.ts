/** Written by `bench/attribution-rules.ts --write-calibration` from the dev parts; do not edit by hand. */
export const CALIBRATION: Readonly<Record<string, { n: number; right: number }>> = {
  'context-states|prior': { n: 85, right: 64 },
  'flow:DeletionError|judge': { n: 25, right: 21 },
  'flow:ExtractionError|judge': { n: 29, right: 28 },
  'flow:ResponseError|judge': { n: 12, right: 12 },
  'flow:RetrievalError|judge': { n: 20, right: 15 },
  'flow:UpdateError|judge': { n: 10, right: 10 },
  'memory-lost|prior': { n: 5, right: 2 },
  'never-stored+stated|prior': { n: 8, right: 8 },
  'never-stored|prior': { n: 13, right: 12 },
  'no-golden-answer|prior': { n: 8, right: 2 },
  'store-states|prior': { n: 32, right: 30 },
};
