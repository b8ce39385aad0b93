/**
 * The whole-graph time-ordered lane layout.
 *
 * x is execution order: an op sits at column `opRank[op]`. A lane is a logical
 * variable (a lineage: all versions of one `full_name`), so a version chain is one
 * line. Lanes are grouped into **bands** a person can read at a glance: the raw
 * messages of a session, memory units of one kind (each chain its own lane), the
 * variables of the questions, and the other single-version variables by kind. Inside a
 * band, lanes whose lifetimes never overlap may share a **slot** (one drawn row); how
 * many rows a band takes depends on whether it is expanded (`laneRows`). An op is a
 * vertical connector at its column joining the rows of its variables. Sentinel
 * variables and ops are hidden (slot / column -1).
 *
 * Everything is numeric and typed so the layout can be computed in a worker and
 * transferred (`laneLayoutTransferables`). O(V + E + L log L) for L lanes.
 */
import { isSentinelOp, isSentinelVar, row, type TraceGraph } from '../graph/index.ts';
import { isConversationMessage } from '../trace/index.ts';

/** Role bits of a variable inside one op: 1 input, 2 output, 3 intermediate. */
export const ROLE_INPUT = 1;
/** Role bit: the op writes the variable. */
export const ROLE_OUTPUT = 2;
/** Both role bits: the op reads and writes the variable. */
export const ROLE_INTERMEDIATE = 3;

/** Band kinds, in the order bands are stacked. */
export const BAND_MESSAGES = 0;
/** Band kind: memory units of one kind, a version chain per lane. */
export const BAND_UNITS = 1;
/** Band kind: other single-version variables, by category and producing op. */
export const BAND_OTHER = 2;
/** Band kind: the questions' variables (query, prediction, golden answers, judge verdict). */
export const BAND_QUESTIONS = 3;

/** Variables of these classes belong to a question (the paper's judge reads them by class). */
const QUESTION_CLASSES = new Set(['query', 'prediction', 'golden_answers', 'judge_response', 'judge_score']);

/** Options of `laneLayout`: slot packing and banding. */
export interface LaneLayoutOptions {
  /**
   * Share a slot (a drawn row) between lanes of one band whose lifetimes do not overlap
   * (greedy interval packing, lowest free slot first). Default false: a slot per lane.
   */
  pack?: boolean;
  /** Columns of empty space required between two lanes packed into one slot. Default 1. */
  packGap?: number;
  /** Group lanes into bands (default true); false: every lane is its own band. */
  bands?: boolean;
}

/**
 * The whole-graph lane layout (`laneLayout`) as typed arrays: op columns, each variable's lane, slot and x
 * span, lanes, slots and bands, and the labels needed to draw and hit-test it without the graph.
 */
export interface LaneLayout {
  /** x extent: columns 0 .. columns-1 (one per op, in execution order). */
  columns: number;
  /** Visible lanes (logical variables). */
  lanes: number;
  /** Slots (rows when every band is expanded). */
  slots: number;
  bands: number;

  /** Column of each op (its execution rank), -1 for hidden (sentinel) ops. */
  opColumn: Int32Array;
  /** Op at each column, -1 when the op there is hidden. */
  columnOp: Int32Array;
  /** Time of the op at each column in ms (its `created_at` read as UTC), NaN when unreadable. */
  columnTime: Float64Array;
  /** Visible variables of each op (unique, first appearance), CSR with a role per item. */
  opVarOffsets: Int32Array;
  opVarItems: Int32Array;
  opVarRole: Uint8Array;
  /**
   * 1 when the item is an input the op reads only through edges an importer inferred
   * (`metadata.inferred`, e.g. from OpenTelemetry spans), not recorded; drawn dotted.
   */
  opVarInferred: Uint8Array;
  opCategory: Uint16Array;

  /** Lane of each variable, -1 when hidden. */
  varLane: Int32Array;
  /** Slot of each variable, -1 when hidden. */
  varSlot: Int32Array;
  /** Where a version starts and ends on its lane, in columns (halves allowed). */
  varX0: Float64Array;
  varX1: Float64Array;
  varCategory: Uint16Array;

  /** Lineage shown on each lane; lanes are in band order, then by first appearance. */
  laneLineage: Int32Array;
  laneBand: Int32Array;
  laneSlot: Int32Array;
  laneX0: Float64Array;
  laneX1: Float64Array;

  /** Variables of each slot sorted by x (x0 and x1 both non-decreasing), for culling. */
  slotVarOffsets: Int32Array;
  slotVarItems: Int32Array;
  slotBand: Int32Array;

  /** BAND_* of each band. */
  bandKind: Uint8Array;
  /** Slots of band b: bandSlotOffsets[b] .. bandSlotOffsets[b+1]. */
  bandSlotOffsets: Int32Array;
  bandLaneCount: Int32Array;
  /** Category code (into `categories`) that names the band's kind; -1 when mixed. */
  bandCategory: Int32Array;
  bandX0: Float64Array;
  bandX1: Float64Array;

  /** Category names indexed by opCategory / varCategory / bandCategory. */
  categories: string[];
  /** Labels and ids, so a transferred layout can be drawn and hit-tested alone. */
  laneName: string[];
  bandName: string[];
  opId: string[];
  opName: string[];
  varId: string[];
}

/** Column a record created at `createdAt` falls before, by binary search over op times. */
function columnOfTime(g: TraceGraph, createdAt: string): number {
  let lo = 0;
  let hi = g.opOrder.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (g.opCreatedAt[g.opOrder[mid]] < createdAt) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `YYYY-MM-DD HH:MM:SS.mmm` as milliseconds (read as UTC; only differences are shown),
 * NaN otherwise. A scan of the digits, no regex: it runs once per op.
 */
function timeOf(stamp: string): number {
  const part = [0, 0, 0, 0, 0, 0, 0];
  let k = 0;
  let digits = 0;
  let msDigits = 0;
  for (let i = 0; i < stamp.length && k < 7; i++) {
    const c = stamp.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      part[k] = part[k] * 10 + (c - 48);
      digits++;
      if (k === 6) msDigits++;
    } else if (digits > 0) {
      k++;
      digits = 0;
    } else return Number.NaN;
  }
  if (k < 5 || (k === 5 && digits === 0)) return Number.NaN;
  const ms = msDigits === 0 ? 0 : msDigits === 1 ? part[6] * 100 : msDigits === 2 ? part[6] * 10 : part[6];
  return Date.UTC(part[0], part[1] - 1, part[2], part[3], part[4], part[5], ms);
}

/** Category names, each coded by its first appearance. */
interface CategoryTable {
  names: string[];
  code(name: string): number;
}

function categoryTable(): CategoryTable {
  const names: string[] = [];
  const index = new Map<string, number>();
  return {
    names,
    code(name) {
      let c = index.get(name);
      if (c === undefined) {
        c = names.length;
        index.set(name, c);
        names.push(name);
      }
      return c;
    },
  };
}

/** Columns of the ops: execution rank, sentinels hidden (-1), with each column's time. */
interface OpColumns {
  opColumn: Int32Array;
  columnOp: Int32Array;
  columnTime: Float64Array;
  opCategory: Uint16Array;
}

function opColumns(g: TraceGraph, cats: CategoryTable): OpColumns {
  const no = g.opId.length;
  const opColumn = new Int32Array(no);
  const columnOp = new Int32Array(no);
  const columnTime = new Float64Array(no);
  const opCategory = new Uint16Array(no);
  for (let c = 0; c < no; c++) {
    const o = g.opOrder[c];
    const hidden = isSentinelOp(g, o);
    opColumn[o] = hidden ? -1 : c;
    columnOp[c] = hidden ? -1 : o;
    columnTime[c] = timeOf(g.opCreatedAt[o]);
    opCategory[o] = cats.code(g.opCategory[o]);
  }
  return { opColumn, columnOp, columnTime, opCategory };
}

/**
 * Where each variable sits in x before lanes make chains monotone: x0 at its first producing
 * column, `useMax` the last column touching it (x1 is filled in by `chainLanes`).
 */
interface VarSpans {
  hidden: Uint8Array;
  category: Uint16Array;
  x0: Float64Array;
  x1: Float64Array;
  useMax: Float64Array;
  /** First visible producing op, -1 when none. */
  producer: Int32Array;
}

function varSpans(g: TraceGraph, opColumn: Int32Array, cats: CategoryTable): VarSpans {
  const nv = g.varId.length;
  const s: VarSpans = {
    hidden: new Uint8Array(nv),
    category: new Uint16Array(nv),
    x0: new Float64Array(nv),
    x1: new Float64Array(nv),
    useMax: new Float64Array(nv),
    producer: new Int32Array(nv).fill(-1),
  };
  for (let v = 0; v < nv; v++) {
    s.hidden[v] = isSentinelVar(g, v) ? 1 : 0;
    s.category[v] = cats.code(g.varCategory[v]);
    let prod = Number.POSITIVE_INFINITY;
    let cons = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const e of row(g.varInEdges, v)) {
      const c = opColumn[g.edgeOp[e]];
      if (c < 0) continue;
      if (c < prod) {
        prod = c;
        s.producer[v] = g.edgeOp[e];
      }
      if (c > last) last = c;
    }
    for (const e of row(g.varOutEdges, v)) {
      const c = opColumn[g.edgeOp[e]];
      if (c < 0) continue;
      if (c < cons) cons = c;
      if (c > last) last = c;
    }
    // A produced version starts at its producer; an input-only one just before its first reader;
    // one no op touches at the place its timestamp falls.
    s.x0[v] = prod !== Number.POSITIVE_INFINITY ? prod : cons !== Number.POSITIVE_INFINITY ? cons - 0.5 : 0;
    if (prod === Number.POSITIVE_INFINITY && cons === Number.POSITIVE_INFINITY) {
      s.x0[v] = columnOfTime(g, g.varCreatedAt[v]) - 0.5;
    }
    s.useMax[v] = last;
  }
  return s;
}

/** Lanes before ordering, indexed by draft lane (lineage order). */
interface LaneDraft {
  lineage: number[];
  start: number[];
  end: number[];
  /** First visible version. */
  first: number[];
  versions: number[];
}

/**
 * One lane per lineage with a visible version. Makes the versions monotone along the chain
 * and sets each version's x1 (the next one's x0; the last one's last use) in `s`.
 */
function chainLanes(g: TraceGraph, s: VarSpans): LaneDraft {
  const { hidden, x0, x1 } = s;
  const d: LaneDraft = { lineage: [], start: [], end: [], first: [], versions: [] };
  for (let l = 0; l < g.lineageNames.length; l++) {
    const chain = row(g.lineages, l);
    let prev = -1;
    let first = -1;
    let versions = 0;
    for (let k = 0; k < chain.length; k++) {
      const v = chain[k];
      if (hidden[v]) continue;
      versions++;
      if (first < 0) first = v;
      if (prev >= 0) {
        if (x0[v] < x0[prev]) x0[v] = x0[prev];
        x1[prev] = x0[v];
      }
      prev = v;
    }
    if (prev < 0) continue;
    x1[prev] = Math.max(s.useMax[prev], x0[prev] + 0.5);
    d.lineage.push(l);
    d.start.push(x0[first]);
    d.end.push(x1[prev]);
    d.first.push(first);
    d.versions.push(versions);
  }
  return d;
}

/** Bands in order of first sight (draft bands), and the draft band of each draft lane. */
interface BandDraft {
  laneBand: Int32Array;
  kind: number[];
  name: string[];
  category: number[];
  start: number[];
}

/** Which band a lane belongs to: its kind, a key (numbers exact in a double) and what names it. */
interface BandKey {
  kind: number;
  /** kind · 2^44 + a · 2^22 + b; negative for an ungrouped lane. */
  key: number;
  session: string;
  op: string;
}

/** Reads the band of each lane: messages by session, units by kind, questions, others by producer. */
class BandKeys {
  private readonly question: Uint8Array;
  private readonly sessionCode = new Map<string, number>();
  private readonly opNameCode = new Map<string, number>();
  private readonly oneSession: string | undefined;

  constructor(
    private readonly g: TraceGraph,
    private readonly s: VarSpans,
    private readonly lanes: LaneDraft,
    readonly grouped: boolean,
  ) {
    this.question = questionVariables(g, s.hidden);
    this.oneSession = g.sessions.length === 1 ? g.sessions[0].session_id : undefined;
  }

  of(i: number): BandKey {
    const { g, s, lanes } = this;
    const v = lanes.first[i];
    const cat = s.category[v];
    if (!this.grouped)
      return { kind: lanes.versions[i] > 1 ? BAND_UNITS : BAND_OTHER, key: -1 - i, session: '', op: '' };
    if (lanes.versions[i] > 1)
      return { kind: BAND_UNITS, key: BAND_UNITS * 2 ** 44 + cat * 2 ** 22, session: '', op: '' };
    if (this.question[v]) return { kind: BAND_QUESTIONS, key: BAND_QUESTIONS * 2 ** 44, session: '', op: '' };
    if (isConversationMessage(g.varCategory[v])) {
      // With one session there is nothing to tell apart (and the record need not be read).
      const id = this.oneSession ?? g.vars[v].session_id;
      const session = typeof id === 'string' ? id : '';
      return {
        kind: BAND_MESSAGES,
        key: BAND_MESSAGES * 2 ** 44 + codeOf(this.sessionCode, session),
        session,
        op: '',
      };
    }
    const p = s.producer[v];
    const op = p >= 0 ? g.opName[p] || g.opCategory[p] : '';
    return {
      kind: BAND_OTHER,
      key: BAND_OTHER * 2 ** 44 + cat * 2 ** 22 + codeOf(this.opNameCode, op),
      session: '',
      op,
    };
  }

  /** The name of a band first seen on lane i. */
  name(i: number, b: BandKey): string {
    const { g } = this;
    const category = g.varCategory[this.lanes.first[i]];
    if (!this.grouped) return g.lineageNames[this.lanes.lineage[i]];
    if (b.kind === BAND_UNITS) return category;
    if (b.kind === BAND_QUESTIONS) return 'questions';
    if (b.kind === BAND_MESSAGES) return `messages · ${sessionName(g, b.session)}`;
    return b.op ? `${category} · ${b.op}` : `${category} · read only`;
  }
}

function codeOf(m: Map<string, number>, key: string): number {
  let c = m.get(key);
  if (c === undefined) {
    c = m.size;
    m.set(key, c);
  }
  return c;
}

/** Groups the lanes into bands, in order of first sight; each band's start is its lanes' earliest. */
function bandLanes(g: TraceGraph, s: VarSpans, lanes: LaneDraft, grouped: boolean): BandDraft {
  const keys = new BandKeys(g, s, lanes, grouped);
  const bandOfKey = new Map<number, number>();
  const n = lanes.lineage.length;
  const d: BandDraft = { laneBand: new Int32Array(n), kind: [], name: [], category: [], start: [] };
  for (let i = 0; i < n; i++) {
    const k = keys.of(i);
    let b = bandOfKey.get(k.key);
    if (b === undefined) {
      b = d.kind.length;
      bandOfKey.set(k.key, b);
      d.kind.push(k.kind);
      d.name.push(keys.name(i, k));
      d.category.push(k.kind === BAND_QUESTIONS ? -1 : s.category[lanes.first[i]]);
      d.start.push(lanes.start[i]);
    } else if (lanes.start[i] < d.start[b]) d.start[b] = lanes.start[i];
    d.laneBand[i] = b;
  }
  return d;
}

/** Lanes in their final order, with the lane of each lineage (-1 when hidden). */
interface LaneOrder {
  laneLineage: Int32Array;
  laneBand: Int32Array;
  laneX0: Float64Array;
  laneX1: Float64Array;
  lineageLane: Int32Array;
}

/**
 * Lane order: band (by rank; counting sort), then first appearance, draft index breaking ties
 * (keys exact in a double, sorted per band as typed arrays).
 */
function orderLanes(
  lanes: LaneDraft,
  laneBand: Int32Array,
  bandRank: Int32Array,
  lineages: number,
): LaneOrder {
  const n = lanes.lineage.length;
  const nb = bandRank.length;
  const bandFill = new Int32Array(nb + 1);
  for (let i = 0; i < n; i++) bandFill[bandRank[laneBand[i]] + 1]++;
  for (let b = 0; b < nb; b++) bandFill[b + 1] += bandFill[b];
  const bandBegin = bandFill.slice();
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++)
    keys[bandFill[bandRank[laneBand[i]]]++] = (lanes.start[i] * 2 + 2) * 2 ** 22 + i;
  for (let b = 0; b < nb; b++) keys.subarray(bandBegin[b], bandBegin[b + 1]).sort();
  const o: LaneOrder = {
    laneLineage: new Int32Array(n),
    laneBand: new Int32Array(n),
    laneX0: new Float64Array(n),
    laneX1: new Float64Array(n),
    lineageLane: new Int32Array(lineages).fill(-1),
  };
  for (let k = 0; k < n; k++) {
    const i = keys[k] % 2 ** 22;
    o.laneLineage[k] = lanes.lineage[i];
    o.laneBand[k] = bandRank[laneBand[i]];
    o.laneX0[k] = lanes.start[i];
    o.laneX1[k] = lanes.end[i];
    o.lineageLane[o.laneLineage[k]] = k;
  }
  return o;
}

/** The slots (drawn rows) of the lanes and bands. */
interface SlotPlan {
  slots: number;
  laneSlot: Int32Array;
  slotBand: Int32Array;
  bandSlotOffsets: Int32Array;
  bandLaneCount: Int32Array;
  bandX0: Float64Array;
  bandX1: Float64Array;
}

/** Per band, a slot per lane or lanes packed; bands keep their order. */
function slotLanes(o: LaneOrder, nb: number, options: LaneLayoutOptions): SlotPlan {
  const { laneBand, laneX0, laneX1 } = o;
  const lanes = laneBand.length;
  const laneSlot = new Int32Array(lanes);
  const bandSlotOffsets = new Int32Array(nb + 1);
  const bandLaneCount = new Int32Array(nb);
  const bandX0 = new Float64Array(nb).fill(Number.POSITIVE_INFINITY);
  const bandX1 = new Float64Array(nb).fill(Number.NEGATIVE_INFINITY);
  for (let k = 0; k < lanes; ) {
    const b = laneBand[k];
    let end = k;
    while (end < lanes && laneBand[end] === b) end++;
    const local = options.pack
      ? packRows(laneX0.subarray(k, end), laneX1.subarray(k, end), options.packGap ?? 1)
      : identityRows(end - k);
    let slots = 0;
    for (let i = k; i < end; i++) {
      const s = local[i - k];
      laneSlot[i] = bandSlotOffsets[b] + s;
      if (s + 1 > slots) slots = s + 1;
      if (laneX0[i] < bandX0[b]) bandX0[b] = laneX0[i];
      if (laneX1[i] > bandX1[b]) bandX1[b] = laneX1[i];
    }
    bandLaneCount[b] = end - k;
    bandSlotOffsets[b + 1] = bandSlotOffsets[b] + slots;
    k = end;
  }
  const slots = bandSlotOffsets[nb];
  const slotBand = new Int32Array(slots);
  for (let b = 0; b < nb; b++)
    for (let s = bandSlotOffsets[b]; s < bandSlotOffsets[b + 1]; s++) slotBand[s] = b;
  return { slots, laneSlot, slotBand, bandSlotOffsets, bandLaneCount, bandX0, bandX1 };
}

/** Each variable's lane and slot (-1 when hidden), and the variables of each slot sorted by x. */
function slotVariables(g: TraceGraph, hidden: Uint8Array, o: LaneOrder, p: SlotPlan) {
  const nv = g.varId.length;
  const varLane = new Int32Array(nv).fill(-1);
  const varSlot = new Int32Array(nv).fill(-1);
  for (let v = 0; v < nv; v++) {
    if (hidden[v]) continue;
    varLane[v] = o.lineageLane[g.varLineage[v]];
    varSlot[v] = p.laneSlot[varLane[v]];
  }
  // Lanes in lane order are sorted by start and never overlap inside a slot, so appending each
  // lane's chain in order keeps every slot sorted by x.
  const slots = p.slots;
  const slotVarOffsets = new Int32Array(slots + 1);
  for (let v = 0; v < nv; v++) if (varSlot[v] >= 0) slotVarOffsets[varSlot[v] + 1]++;
  for (let r = 0; r < slots; r++) slotVarOffsets[r + 1] += slotVarOffsets[r];
  const fill = slotVarOffsets.slice(0, slots);
  const slotVarItems = new Int32Array(slotVarOffsets[slots]);
  for (let k = 0; k < o.laneLineage.length; k++) {
    const r = p.laneSlot[k];
    for (const v of row(g.lineages, o.laneLineage[k])) if (!hidden[v]) slotVarItems[fill[r]++] = v;
  }
  return { varLane, varSlot, slotVarOffsets, slotVarItems };
}

/** Op connectors: each op's unique visible variables (first appearance) with their role. */
function opConnectors(g: TraceGraph, hidden: Uint8Array) {
  const no = g.opId.length;
  const opVarOffsets = new Int32Array(no + 1);
  const items: number[] = [];
  const roles: number[] = [];
  const recorded: number[] = []; // per item: read through at least one edge not marked inferred
  const seen = new Int32Array(g.varId.length).fill(-1); // position in `items` for the current op
  for (let o = 0; o < no; o++) {
    const begin = items.length;
    const add = (v: number, bit: number, rec: number) => {
      if (hidden[v]) return;
      if (seen[v] >= begin) {
        roles[seen[v]] |= bit;
        recorded[seen[v]] |= rec;
        return;
      }
      seen[v] = items.length;
      items.push(v);
      roles.push(bit);
      recorded.push(rec);
    };
    for (const e of row(g.opEdges, o)) {
      add(g.edgeSrc[e], ROLE_INPUT, g.edgeInferred[e] ? 0 : 1);
      add(g.edgeDst[e], ROLE_OUTPUT, 1);
    }
    opVarOffsets[o + 1] = items.length;
  }
  const opVarInferred = new Uint8Array(items.length);
  for (let i = 0; i < items.length; i++) opVarInferred[i] = roles[i] === ROLE_INPUT && !recorded[i] ? 1 : 0;
  return {
    opVarOffsets,
    opVarItems: Int32Array.from(items),
    opVarRole: Uint8Array.from(roles),
    opVarInferred,
  };
}

/** Lays out the whole graph as time-ordered lanes in bands (see the module comment). */
export function laneLayout(g: TraceGraph, options: LaneLayoutOptions = {}): LaneLayout {
  const cats = categoryTable();
  const ops = opColumns(g, cats);
  const spans = varSpans(g, ops.opColumn, cats);
  const draft = chainLanes(g, spans);
  const bands = bandLanes(g, spans, draft, options.bands ?? true);
  const nb = bands.kind.length;
  // Bands ordered by kind, then first appearance.
  const bandOrder = Array.from({ length: nb }, (_, b) => b).sort(
    (a, b) => bands.kind[a] - bands.kind[b] || bands.start[a] - bands.start[b] || a - b,
  );
  const bandRank = new Int32Array(nb);
  bandOrder.forEach((b, k) => {
    bandRank[b] = k;
  });
  const order = orderLanes(draft, bands.laneBand, bandRank, g.lineageNames.length);
  const plan = slotLanes(order, nb, options);
  const vars = slotVariables(g, spans.hidden, order, plan);
  const conn = opConnectors(g, spans.hidden);
  const lanes = draft.lineage.length;
  const laneName = new Array<string>(lanes);
  for (let k = 0; k < lanes; k++) laneName[k] = g.lineageNames[order.laneLineage[k]];

  return {
    columns: g.opId.length,
    lanes,
    slots: plan.slots,
    bands: nb,
    opColumn: ops.opColumn,
    columnOp: ops.columnOp,
    columnTime: ops.columnTime,
    opVarOffsets: conn.opVarOffsets,
    opVarItems: conn.opVarItems,
    opVarRole: conn.opVarRole,
    opVarInferred: conn.opVarInferred,
    opCategory: ops.opCategory,
    varLane: vars.varLane,
    varSlot: vars.varSlot,
    varX0: spans.x0,
    varX1: spans.x1,
    varCategory: spans.category,
    laneLineage: order.laneLineage,
    laneBand: order.laneBand,
    laneSlot: plan.laneSlot,
    laneX0: order.laneX0,
    laneX1: order.laneX1,
    slotVarOffsets: vars.slotVarOffsets,
    slotVarItems: vars.slotVarItems,
    slotBand: plan.slotBand,
    bandKind: Uint8Array.from(bandOrder.map((b) => bands.kind[b])),
    bandSlotOffsets: plan.bandSlotOffsets,
    bandLaneCount: plan.bandLaneCount,
    bandCategory: Int32Array.from(bandOrder.map((b) => bands.category[b])),
    bandX0: plan.bandX0,
    bandX1: plan.bandX1,
    categories: cats.names,
    laneName,
    bandName: bandOrder.map((b) => bands.name[b]),
    opId: g.opId,
    opName: g.opName,
    varId: g.varId,
  };
}

function sessionName(g: TraceGraph, id: string): string {
  const s = g.sessions.find((x) => x.session_id === id);
  return typeof s?.session_name === 'string' && s.session_name ? s.session_name : id || 'no session';
}

/**
 * Variables of the questions: those of the judge's classes, and the single-version
 * outputs of ops that read one (in execution order, so a retrieval's results and the
 * answer's context follow their query). Memory units (version chains) never are.
 */
function questionVariables(g: TraceGraph, hidden: Uint8Array): Uint8Array {
  const out = new Uint8Array(g.varId.length);
  const lo = g.lineages.offsets;
  const single = (v: number) => lo[g.varLineage[v] + 1] - lo[g.varLineage[v]] === 1;
  for (let v = 0; v < g.varId.length; v++) {
    // full_name is `class_name:name`: the record (slow to read on 100k parsed objects) is
    // looked at only when the full name starts like one of the classes.
    const full = g.varFullName[v];
    const colon = full.indexOf(':');
    if (colon < 0 || hidden[v] || !QUESTION_CLASSES.has(full.slice(0, colon))) continue;
    if (g.vars[v].class_name === full.slice(0, colon)) out[v] = 1;
  }
  const eo = g.opEdges.offsets;
  const items = g.opEdges.items;
  for (const o of g.opOrder) {
    let reads = false;
    for (let k = eo[o]; k < eo[o + 1] && !reads; k++) if (out[g.edgeSrc[items[k]]]) reads = true;
    if (!reads) continue;
    for (let k = eo[o]; k < eo[o + 1]; k++) {
      const t = g.edgeDst[items[k]];
      if (!hidden[t] && single(t)) out[t] = 1;
    }
  }
  return out;
}

function identityRows(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * Greedy interval packing of lanes (sorted by start) into rows: each lane takes the
 * lowest-numbered row that is free by its start. Two binary heaps; O(L log L).
 */
export function packRows(start: Float64Array, end: Float64Array, gap: number): Int32Array {
  const n = start.length;
  const rowOf = new Int32Array(n);
  const busy = new MinHeap(); // key: end of the lane occupying the row
  const free = new MinHeap(); // key: row number
  let rows = 0;
  for (let i = 0; i < n; i++) {
    while (busy.size > 0 && busy.peekKey() + gap < start[i]) free.push(busy.peekValue(), busy.pop());
    const r = free.size > 0 ? free.pop() : rows++;
    rowOf[i] = r;
    busy.push(end[i], r);
  }
  return rowOf;
}

/** A binary min-heap of (key, value) pairs; pop returns the value. */
class MinHeap {
  private keys: number[] = [];
  private values: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  peekKey(): number {
    return this.keys[0];
  }
  peekValue(): number {
    return this.values[0];
  }
  push(key: number, value: number): void {
    const k = this.keys;
    const v = this.values;
    let i = k.length;
    k.push(key);
    v.push(value);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (k[p] <= key) break;
      k[i] = k[p];
      v[i] = v[p];
      i = p;
    }
    k[i] = key;
    v[i] = value;
  }
  pop(): number {
    const k = this.keys;
    const v = this.values;
    const top = v[0];
    const lastK = k.pop()!;
    const lastV = v.pop()!;
    const n = k.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && k[c + 1] < k[c]) c++;
      if (k[c] >= lastK) break;
      k[i] = k[c];
      v[i] = v[c];
      i = c;
    }
    k[i] = lastK;
    v[i] = lastV;
    return top;
  }
}

/** The buffers of a layout, for `postMessage(layout, transferables)` / comlink `transfer`. */
export function laneLayoutTransferables(l: LaneLayout): ArrayBuffer[] {
  const arrays = [
    l.opColumn,
    l.columnOp,
    l.columnTime,
    l.opVarOffsets,
    l.opVarItems,
    l.opVarRole,
    l.opVarInferred,
    l.opCategory,
    l.varLane,
    l.varSlot,
    l.varX0,
    l.varX1,
    l.varCategory,
    l.laneLineage,
    l.laneBand,
    l.laneSlot,
    l.laneX0,
    l.laneX1,
    l.slotVarOffsets,
    l.slotVarItems,
    l.slotBand,
    l.bandKind,
    l.bandSlotOffsets,
    l.bandLaneCount,
    l.bandCategory,
    l.bandX0,
    l.bandX1,
  ];
  return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** Index of the first variable in slot s (a position in slotVarItems) whose x1 ≥ x. */
export function firstInSlot(l: LaneLayout, s: number, x: number): number {
  let lo = l.slotVarOffsets[s];
  let hi = l.slotVarOffsets[s + 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (l.varX1[l.slotVarItems[mid]] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
