import type { RoadGraph } from './RoadGraph.js';

/**
 * Strongly connected components of the directed road graph (Kosaraju, iterative over the CSR
 * arrays): component[node] is its component's id, size[id] its node count. Within a component
 * every node reaches every other; a tiny one (a fenced estate, a one-way trap, a piece cut off by
 * the extract's edge) is where a snapped point gets no route.
 */
export function stronglyConnectedComponents(graph: RoadGraph): { component: Int32Array; size: Int32Array } {
  const n = graph.nodeCount;
  const { firstOut, edgeHead, firstIn, inEdge, edgeTail } = graph;
  // Pass 1: finishing order of a depth-first search on the forward graph.
  const order = new Int32Array(n);
  let finished = 0;
  const visited = new Uint8Array(n);
  const stack = new Int32Array(n);
  const nextEdge = new Int32Array(n);
  for (let root = 0; root < n; root++) {
    if (visited[root]) continue;
    let top = 0;
    stack[0] = root;
    visited[root] = 1;
    nextEdge[root] = firstOut[root];
    while (top >= 0) {
      const u = stack[top];
      if (nextEdge[u] < firstOut[u + 1]) {
        const v = edgeHead[nextEdge[u]++];
        if (!visited[v]) {
          visited[v] = 1;
          nextEdge[v] = firstOut[v];
          stack[++top] = v;
        }
      } else {
        order[finished++] = u;
        top--;
      }
    }
  }
  // Pass 2: on the reverse graph, in reverse finishing order, each search is one component.
  const component = new Int32Array(n).fill(-1);
  const sizes: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const root = order[i];
    if (component[root] !== -1) continue;
    const id = sizes.length;
    let size = 0;
    let top = 0;
    stack[0] = root;
    component[root] = id;
    while (top >= 0) {
      const u = stack[top--];
      size++;
      for (let k = firstIn[u]; k < firstIn[u + 1]; k++) {
        const v = edgeTail[inEdge[k]];
        if (component[v] === -1) {
          component[v] = id;
          stack[++top] = v;
        }
      }
    }
    sizes.push(size);
  }
  return { component, size: Int32Array.from(sizes) };
}

/**
 * Per node, 1 when it reaches a node with seed[node] !== 0 (`forward`: along the roads' directions,
 * so the node can drive there) or is reached from one (forward false: against them, so the node
 * can be driven to from there). A breadth-first search over the CSR arrays, O(nodes + edges).
 */
export function reachability(graph: RoadGraph, seed: Uint8Array, towardsSeed: boolean): Uint8Array {
  const n = graph.nodeCount;
  const { firstOut, edgeHead, firstIn, inEdge, edgeTail } = graph;
  const out = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0, tail = 0;
  for (let v = 0; v < n; v++) if (seed[v]) { out[v] = 1; queue[tail++] = v; }
  while (head < tail) {
    const u = queue[head++];
    // Towards the seed: who can drive to u (its in-edges' tails); from the seed: where u leads.
    if (towardsSeed) {
      for (let i = firstIn[u], end = firstIn[u + 1]; i < end; i++) {
        const v = edgeTail[inEdge[i]];
        if (!out[v]) { out[v] = 1; queue[tail++] = v; }
      }
    } else {
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if (!out[v]) { out[v] = 1; queue[tail++] = v; }
      }
    }
  }
  return out;
}
