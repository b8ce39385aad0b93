/** What the graph views select and report: an op or a variable, by id (and index when known). */
export interface LaneSelection {
  kind: 'op' | 'var';
  /** op_id or full_node_id. */
  id: string;
  /** Index of the op / variable in the graph (and the layout). */
  index?: number;
}
