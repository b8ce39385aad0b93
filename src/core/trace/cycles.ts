/**
 * Cycles in a trace's data flow: edges read as variable → variable (source → target through
 * an op) that lead back to where they started — an op writing what it read, or a later op
 * writing a variable an earlier op read. A trace of a run has none (a value is written before
 * it is read, and a changed value is a new version), so a cycle means ids were reused or
 * edges are wrong. Found with Tarjan's strongly connected components, iteratively (no
 * recursion on long chains), in O(variables + edges).
 */

/** Variables on a cycle (one strongly connected component) and the first edge of it in file order. */
interface EdgeCycle {
  /** Indices of the variables in it, in the order given. */
  vars: number[];
  /** Index (in the given edge arrays) of its first edge. */
  firstEdge: number;
}

/**
 * The cycles among `n` variables joined by edges `src[i] → dst[i]`: every strongly connected
 * component with more than one variable, or one variable with an edge to itself.
 */
export function edgeCycles(n: number, src: Int32Array, dst: Int32Array): EdgeCycle[] {
  const offsets = new Int32Array(n + 1);
  for (const s of src) offsets[s + 1]++;
  for (let v = 0; v < n; v++) offsets[v + 1] += offsets[v];
  const fill = offsets.slice(0, n);
  const out = new Int32Array(src.length); // edge indices grouped by source
  for (let e = 0; e < src.length; e++) out[fill[src[e]]++] = e;

  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const component = new Int32Array(n).fill(-1);
  const sccStack: number[] = [];
  const call: number[] = []; // the DFS path: variables whose edges are being walked
  const cursor = new Int32Array(n); // next edge of each variable on the path
  let counter = 0;
  let components = 0;

  for (let root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    const enter = (v: number) => {
      index[v] = low[v] = counter++;
      cursor[v] = offsets[v];
      sccStack.push(v);
      onStack[v] = 1;
      call.push(v);
    };
    enter(root);
    while (call.length) {
      const v = call[call.length - 1];
      if (cursor[v] < offsets[v + 1]) {
        const w = dst[out[cursor[v]++]];
        if (index[w] < 0) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      call.pop();
      if (call.length) low[call[call.length - 1]] = Math.min(low[call[call.length - 1]], low[v]);
      if (low[v] !== index[v]) continue;
      for (;;) {
        const w = sccStack.pop() as number;
        onStack[w] = 0;
        component[w] = components;
        if (w === v) break;
      }
      components++;
    }
  }

  // A component is a cycle when an edge stays inside it (two or more variables, or a self-loop).
  const first = new Int32Array(components).fill(-1);
  for (let e = 0; e < src.length; e++) {
    const c = component[src[e]];
    if (c === component[dst[e]] && first[c] < 0) first[c] = e;
  }
  const members = new Map<number, number[]>();
  for (let v = 0; v < n; v++)
    if (first[component[v]] >= 0) {
      const list = members.get(component[v]) ?? [];
      list.push(v);
      members.set(component[v], list);
    }
  return [...members]
    .map(([c, vars]) => ({ vars, firstEdge: first[c] }))
    .sort((a, b) => a.firstEdge - b.firstEdge);
}
