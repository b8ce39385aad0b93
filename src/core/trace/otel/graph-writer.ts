/**
 * The records of the document a span file becomes, and the rules that name and link them:
 * a text is one variable (content identity; a text a later span writes again is a new one,
 * readers take the latest), a later input containing an earlier output's line / sentence / JSON
 * string (normalised: `dataflow.ts`) is linked to it, memory records chain by store id + record id. Edges found so carry
 * `metadata.inferred`. The fields every record shares are spelled out in each literal rather
 * than spread from one object: a spread inside a literal builds about half as fast, on tens of
 * thousands of records.
 */

import { hash16 } from '../../hash/index.ts';
import type {
  EdgeRecord,
  JsonObject,
  OperationRecord,
  SessionRecord,
  TraceDocument,
  VariableRecord,
} from '../types.ts';
import { SENTINEL } from '../types.ts';
import { normalizeUnit, textUnits } from './dataflow.ts';
import type { ContentItem, ItemRole } from './items.ts';
import { TextMap, textSlot } from './text-map.ts';

const ROLE_CATEGORY: Record<ItemRole, string> = {
  prompt: 'prompt',
  message: 'message',
  query: 'query',
  output: 'llm_output',
  tool: 'tool_result',
  document: 'document',
  record: 'memory_record',
  value: 'value',
  tool_call: 'tool_call',
  tool_definition: 'tool_definition',
  comment: 'evaluator_comment',
};

/** A text an op kept (a memory write's input): the variable, and the op that wrote it to a store. */
export interface StoredText {
  varId: string;
  /** Everything the op read (the text came with them: the output it was cut from, say). */
  inputs: readonly OpInput[];
  opId: string;
  category: string;
  session: string;
  at: string;
}

/** An input of an op: a variable id, and why the edge was inferred when it was. */
export interface OpInput {
  id: string;
  inferred?: string;
}

/** Outputs with more units than this (windows, transcripts) are found only as a whole, by their first lines. */
const MAX_UNITS = 128;
const LONG_TEXT = 8192;
const ANCHORS = 4;

/** The first `n` meaningful lines (as `unitsOf` counts them) without splitting the whole text. */
function firstLines(text: string, n: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (out.length < n && at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = normalizeUnit(text.slice(at, end));
    if (line.length >= 16) out.push(line);
    at = end + 1;
  }
  return out;
}

/** A content item's text slot, computed once. */
export const slotOf = (it: ContentItem): string => {
  it.slot ??= textSlot(it.text);
  return it.slot;
};

export class GraphWriter {
  readonly nodes: VariableRecord[] = [];
  readonly operations: OperationRecord[] = [];
  readonly edges: EdgeRecord[] = [];
  /** The op that wrote each variable. */
  readonly producerOf = new Map<string, string>();
  inferredEdges = 0;
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly byText = new TextMap<{ id: string }>();
  // A unit → the variable it came from; `whole` when only the whole output counts (long texts are
  // filed under their first lines only, and a hit must contain the whole output).
  private readonly byUnit = new TextMap<{ id: string; whole?: string }>();
  // Outputs are split into units only when an input needs looking up by unit (often none does).
  private readonly pendingUnits: { text: string; id: string }[] = [];
  private readonly usedNames = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();
  // Normalised texts that ops other than model calls and searches took in (memory writes), latest op last.
  private readonly stored = new Map<string, StoredText>();
  private sentinel = false;

  /** `classOf`: the class (query, prediction, …) a judge gave a text, which holds for it everywhere. */
  constructor(
    readonly graphId: string,
    readonly classOf: TextMap<string>,
  ) {}

  ensureSession(id: string, at: string): void {
    if (this.sessions.has(id)) return;
    this.sessions.set(id, {
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      metadata: {},
      session_id: id,
      session_name: id,
      comment: null,
      category: 'session',
    } as SessionRecord);
  }

  addNode(
    name: string,
    className: string | null,
    version: number,
    value: string,
    category: string,
    session: string,
    at: string,
    metadata: JsonObject = {},
  ): string {
    const fullName = className === null ? name : `${className}:${name}`;
    const id = `${fullName}@${version}`;
    this.nodes.push({
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      metadata,
      name,
      version,
      value,
      class_name: className,
      comment: null,
      category,
      session_id: session,
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: id,
    } as VariableRecord);
    return id;
  }

  /** The variable already holding a text, if any. */
  known(it: ContentItem): { id: string } | undefined {
    return this.byText.get(it.text, slotOf(it));
  }

  /** The variable of a text; `fresh` makes a new one (a span writing a text an earlier span also wrote). */
  contentVar(
    it: ContentItem,
    session: string,
    at: string,
    fresh = false,
    known = this.known(it), // callers that looked it up already pass it
  ): { id: string; known: boolean } {
    if (known && !fresh) return { id: known.id, known: true };
    const slot = slotOf(it);
    const className = this.classOf.get(it.text, slot) ?? it.className ?? null;
    const hash = slot.length === it.text.length ? hash16(it.text) : slot.slice(0, 16);
    let name = `text:${hash}`;
    let used = `${className}|${name}`;
    // The next suffix to try per base name: a text written again and again (a tool's "ok")
    // must not scan every earlier suffix.
    const base = used;
    for (let n = this.nextSuffix.get(base) ?? 2; this.usedNames.has(used); n++) {
      this.nextSuffix.set(base, n + 1);
      name = `text:${hash}-${n}`;
      used = `${className}|${name}`;
    }
    this.usedNames.add(used);
    // The judge's variables are named by class; the question keeps the paper's category.
    const category = className === 'query' ? 'message & query' : (className ?? ROLE_CATEGORY[it.role]);
    const id = this.addNode(name, className, 1, it.text, category, session, at);
    this.byText.set(it.text, { id }, slot);
    return { id, known: false };
  }

  /** Files an output's units, to be indexed when an input first needs them. */
  fileUnits(text: string, id: string): void {
    this.pendingUnits.push({ text, id });
  }

  /** The earlier outputs a text contains (by line, list item or record), other than `except` and `opId`'s own. */
  containedSources(text: string, except: string | undefined, opId: string): string[] {
    const sources: string[] = [];
    for (const u of textUnits(text)) {
      const hit = this.unitIndex().get(u);
      if (!hit || (hit.whole !== undefined && !text.includes(hit.whole))) continue;
      const src = hit.id;
      if (src !== except && this.producerOf.get(src) !== opId && !sources.includes(src)) sources.push(src);
    }
    return sources;
  }

  /** Where each op that wrote an output ran and what it read (for the edges of pieces of its outputs). */
  readonly opWrites = new Map<string, Omit<StoredText, 'varId'>>();

  /**
   * The op that wrote `source` when `text` is exactly one of its units (normalised, JSON
   * decoded): a piece of that output (see `SpanOp.readItem`).
   */
  pieceWriter(text: string, source: string): Omit<StoredText, 'varId'> | undefined {
    // One unit, after decoding: a fact as text, or wrapped in JSON (`{"text": …}`).
    const units = textUnits(text);
    if (units.length !== 1) return undefined;
    // Plain text must be the unit itself (short lines around it would be more than the piece).
    if (!/^\s*[[{"]/.test(text) && normalizeUnit(text) !== units[0]) return undefined;
    const hit = this.unitIndex().get(units[0]);
    if (!hit || hit.id !== source || hit.whole !== undefined) return undefined;
    const op = this.producerOf.get(source);
    return op === undefined ? undefined : this.opWrites.get(op);
  }

  /** Files the input of an op that may store it (a memory write of any convention), by its units. */
  fileStored(text: string, s: StoredText): void {
    for (const u of [normalizeUnit(text), ...textUnits(text)]) this.stored.set(u, s);
  }

  /**
   * The latest op that took in a text a search returned (a stored text coming back: the search
   * read that write), by the whole text or else its first unit found; undefined when none did.
   */
  storedWriter(text: string): StoredText | undefined {
    const whole = this.stored.get(normalizeUnit(text));
    if (whole) return whole;
    for (const u of textUnits(text)) {
      const hit = this.stored.get(u);
      if (hit) return hit;
    }
    return undefined;
  }

  private unitIndex(): TextMap<{ id: string; whole?: string }> {
    for (const p of this.pendingUnits) {
      const units = p.text.length > LONG_TEXT ? null : textUnits(p.text);
      if (units && units.length <= MAX_UNITS) {
        const hit = { id: p.id };
        for (const u of units) this.byUnit.set(u, hit);
      } else {
        const hit = { id: p.id, whole: p.text };
        for (const u of firstLines(p.text, ANCHORS)) this.byUnit.set(u, hit);
      }
    }
    this.pendingUnits.length = 0;
    return this.byUnit;
  }

  addOperation(
    opId: string,
    opName: string | null,
    category: string,
    session: string,
    at: string,
    metadata: JsonObject,
    comment: string | null,
  ): void {
    this.operations.push({
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      metadata,
      op_id: opId,
      op_name: opName,
      comment,
      category,
      session_id: session,
    } as OperationRecord);
  }

  /** One edge per input × output of an op (the NONE sentinel stands in for a missing side). */
  writeEdges(
    opId: string,
    category: string,
    session: string,
    at: string,
    inputs: readonly OpInput[],
    outputs: string[],
    /** Marks every edge as inferred for this reason (an op's edges found after it was written). */
    inferredAs?: string,
  ) {
    if (!inputs.length && !outputs.length) return;
    if (!inputs.length || !outputs.length) this.sentinel = true;
    const src = inputs.length ? inputs : [{ id: SENTINEL.variable }];
    const dst = outputs.length ? outputs : [SENTINEL.variable];
    for (const s of src)
      for (const t of dst) {
        const inferred = inferredAs ?? ('inferred' in s ? s.inferred : undefined);
        if (inferred) this.inferredEdges++;
        this.edges.push({
          created_at: at,
          filename: 'otel',
          lineno: 0,
          graph_id: this.graphId,
          user_id: null,
          project_id: null,
          metadata: inferred ? { inferred } : {},
          edge_id: `edge-${hash16(`${opId}|${s.id}|${t}`)}${this.edges.length.toString(16)}`,
          op_id: opId,
          category,
          source_full_node_id: s.id,
          target_full_node_id: t,
          comment: null,
          session_id: session,
        } as EdgeRecord);
      }
  }

  /** The document of everything written (with the NONE sentinel when an edge needs it). */
  document(header: Omit<TraceDocument, 'data'>): TraceDocument {
    const sessions = [...this.sessions.values()];
    if (this.sentinel) this.addSentinel(sessions);
    const data = { sessions, nodes: this.nodes, operations: this.operations, edges: this.edges };
    return { ...header, data } as TraceDocument;
  }

  private addSentinel(sessions: SessionRecord[]): void {
    const at = '1970-01-01 00:00:00.000';
    this.ensureSession(SENTINEL.session, at);
    const s = this.sessions.get(SENTINEL.session)!;
    s.category = SENTINEL.category;
    s.comment = 'NONE sentinel';
    if (!sessions.includes(s)) sessions.push(s);
    this.nodes.unshift({
      created_at: at,
      filename: 'otel',
      lineno: 0,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      metadata: {},
      name: 'NONE',
      version: 1,
      value: 'NONE',
      class_name: 'COMMENT',
      comment: null,
      category: SENTINEL.category,
      session_id: SENTINEL.session,
      full_name: 'COMMENT:NONE',
      node_id: 'NONE@1',
      full_node_id: SENTINEL.variable,
    } as VariableRecord);
  }
}
