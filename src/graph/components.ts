import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';
import type { RoadGraph } from './RoadGraph.js';

/**
 * Strongly connected components of the directed road graph (Kosaraju, iterative over the CSR
 * arrays): component[node] is its component's id, size[id] its node count. Within a component
 * every node reaches every other; a tiny one (a fenced estate, a one-way trap, a piece cut off by
 * the extract's edge) is where a snapped point gets no route. `closedRoads`: roads left out (1).
 */
export function stronglyConnectedComponents(graph: RoadGraph, closedRoads?: Uint8Array): { component: Int32Array; size: Int32Array } {
  const steps = componentsInSteps(graph, closedRoads, () => false, graph.edgeTail);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Nodes or edges visited between two checks of `pause`. */
const STEP_WORK = 1 << 14;

/**
 * stronglyConnectedComponents in steps: yields whenever `pause` says so (a thread's trips go
 * first). `tails`: the graph's per-edge tails where the caller holds them (else read one at a time).
 */
export function* componentsInSteps(
  graph: RoadGraph, closedRoads: Uint8Array | undefined, pause: () => boolean, tails?: Uint32Array,
): Generator<void, { component: Int32Array; size: Int32Array }> {
  const n = graph.nodeCount;
  let work = 0;
  const { firstOut, edgeHead, firstIn, inEdge, edgeRoad } = graph;
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
      if ((++work & (STEP_WORK - 1)) === 0 && pause()) yield;
      const u = stack[top];
      if (nextEdge[u] < firstOut[u + 1]) {
        const e = nextEdge[u]++;
        if (closedRoads !== undefined && closedRoads[edgeRoad[e]] !== 0) continue;
        const v = edgeHead[e];
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
      if ((++work & (STEP_WORK - 1)) === 0 && pause()) yield;
      const u = stack[top--];
      size++;
      for (let k = firstIn[u]; k < firstIn[u + 1]; k++) {
        if (closedRoads !== undefined && closedRoads[edgeRoad[inEdge[k]]] !== 0) continue;
        const v = tails !== undefined ? tails[inEdge[k]] : graph.edgeTailOf(inEdge[k]);
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
 * Per node, 0 when it lies in the largest strongly connected component of the graph without
 * `closedRoads`, else (what those roads enclose) 1 + log2 of its own component's node count,
 * rounded down; on memory threads can share; in steps (componentsInSteps).
 */
export function* outsideLargestComponent(graph: RoadGraph, closedRoads: Uint8Array, pause: () => boolean): Generator<void, Uint8Array> {
  // Tails one at a time: a service holds no per-edge tail array (edgeTailOf).
  const { component, size } = yield* componentsInSteps(graph, closedRoads, pause);
  let largest = 0;
  for (let c = 1; c < size.length; c++) if (size[c] > size[largest]) largest = c;
  const out = new Uint8Array(new SharedOrPlainBuffer(graph.nodeCount));
  for (let v = 0; v < out.length; v++) out[v] = component[v] === largest ? 0 : 1 + Math.floor(Math.log2(size[component[v]]));
  return out;
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
