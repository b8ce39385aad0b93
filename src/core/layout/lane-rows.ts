/**
 * The rows a lane layout is drawn in, for a choice of expanded bands: an expanded band
 * takes a row per slot, a collapsed one a single row where all its slots are drawn as
 * density. Computed on the page whenever a band opens or closes: O(V + op items).
 */
import type { LaneLayout } from './lanes.ts';

/**
 * The rows of a lane layout for one choice of expanded bands (`laneRows`): each row's band and slots, and
 * each variable's and op's rows.
 */
export interface LaneRows {
  rows: number;
  /** Band drawn in each row. */
  rowBand: Int32Array;
  /** Slots drawn in row r: rowSlot0[r] .. rowSlot1[r] (more than one when the band is collapsed). */
  rowSlot0: Int32Array;
  rowSlot1: Int32Array;
  /** First row of each band. */
  bandRow: Int32Array;
  /** 1 when the band is expanded. */
  expanded: Uint8Array;
  /** Row of each variable, -1 when hidden. */
  varRow: Int32Array;
  /** Rows spanned by each op's connector; -1 when it touches no visible variable or is hidden. */
  opRowMin: Int32Array;
  opRowMax: Int32Array;
  /**
   * Rows spanned by the op's recorded variables (all but inputs read only through inferred
   * edges); the rest of the connector, out to inferred inputs, is drawn dotted. -1 when none.
   */
  opRecordedMin: Int32Array;
  opRecordedMax: Int32Array;
}

/** Bands open by default: all of them on a small graph, else those of a few slots. */
export function defaultExpanded(
  l: LaneLayout,
  options: { allUpTo?: number; bandUpTo?: number } = {},
): Uint8Array {
  const out = new Uint8Array(l.bands);
  const all = l.slots <= (options.allUpTo ?? 160);
  for (let b = 0; b < l.bands; b++) {
    const slots = l.bandSlotOffsets[b + 1] - l.bandSlotOffsets[b];
    out[b] = all || slots <= (options.bandUpTo ?? 12) ? 1 : 0;
  }
  return out;
}

/**
 * The rows to draw a lane layout in when the bands flagged in `expanded` take a row per slot and the
 * others one row each.
 */
export function laneRows(l: LaneLayout, expanded: Uint8Array): LaneRows {
  const nb = l.bands;
  const bandRow = new Int32Array(nb);
  let rows = 0;
  for (let b = 0; b < nb; b++) {
    bandRow[b] = rows;
    rows += expanded[b] ? l.bandSlotOffsets[b + 1] - l.bandSlotOffsets[b] : 1;
  }
  const rowBand = new Int32Array(rows);
  const rowSlot0 = new Int32Array(rows);
  const rowSlot1 = new Int32Array(rows);
  const slotRow = new Int32Array(l.slots);
  for (let b = 0; b < nb; b++) {
    const s0 = l.bandSlotOffsets[b];
    const s1 = l.bandSlotOffsets[b + 1];
    if (expanded[b]) {
      for (let s = s0; s < s1; s++) {
        const r = bandRow[b] + (s - s0);
        rowBand[r] = b;
        rowSlot0[r] = s;
        rowSlot1[r] = s + 1;
        slotRow[s] = r;
      }
    } else {
      const r = bandRow[b];
      rowBand[r] = b;
      rowSlot0[r] = s0;
      rowSlot1[r] = s1;
      for (let s = s0; s < s1; s++) slotRow[s] = r;
    }
  }
  const nv = l.varSlot.length;
  const varRow = new Int32Array(nv);
  for (let v = 0; v < nv; v++) varRow[v] = l.varSlot[v] < 0 ? -1 : slotRow[l.varSlot[v]];
  const no = l.opColumn.length;
  const opRowMin = new Int32Array(no).fill(-1);
  const opRowMax = new Int32Array(no).fill(-1);
  const opRecordedMin = new Int32Array(no).fill(-1);
  const opRecordedMax = new Int32Array(no).fill(-1);
  for (let o = 0; o < no; o++) {
    if (l.opColumn[o] < 0) continue;
    let min = -1;
    let max = -1;
    let rmin = -1;
    let rmax = -1;
    for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
      const r = varRow[l.opVarItems[i]];
      if (min < 0 || r < min) min = r;
      if (r > max) max = r;
      if (l.opVarInferred[i]) continue;
      if (rmin < 0 || r < rmin) rmin = r;
      if (r > rmax) rmax = r;
    }
    opRowMin[o] = min;
    opRowMax[o] = max;
    opRecordedMin[o] = rmin;
    opRecordedMax[o] = rmax;
  }
  return {
    rows,
    rowBand,
    rowSlot0,
    rowSlot1,
    bandRow,
    expanded: expanded.slice(),
    varRow,
    opRowMin,
    opRowMax,
    opRecordedMin,
    opRecordedMax,
  };
}
