/** Written by `bench/attribution-rules.ts --write-calibration` from the dev parts; do not edit by hand. */
export const CALIBRATION: Readonly<Record<string, { n: number; right: number }>> = {
  'context-states|prior': { n: 69, right: 64 },
  'flow:DeletionError|judge': { n: 25, right: 21 },
  'flow:ExtractionError|judge': { n: 29, right: 28 },
  'flow:ResponseError|judge': { n: 32, right: 32 },
  'flow:RetrievalError|judge': { n: 24, right: 19 },
  'flow:UpdateError|judge': { n: 10, right: 10 },
  'memory-lost|prior': { n: 6, right: 2 },
  'never-stored+stated|prior': { n: 7, right: 7 },
  'never-stored|prior': { n: 16, right: 15 },
  'no-golden-answer|prior': { n: 8, right: 5 },
  'store-states|prior': { n: 45, right: 45 },
};
