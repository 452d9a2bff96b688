import type { RoadGraph } from '../graph/RoadGraph.js';
import { junctionNodeRange } from '../graph/junctionNodes.js';

/**
 * Where paths cross into and out of a set of roads (`marked[road] === 1`, `roadLists` listing
 * them): a path that drives some of them, starting and ending off them, first drives one from an
 * entry node and last leaves one at an exit node. So a cost through the set splits at those nodes.
 */

/** Calls visit(e) for every edge of the listed roads (from any copy of their end junctions). */
function forEachEdge(graph: RoadGraph, roadLists: readonly ArrayLike<number>[], visit: (e: number) => void): void {
  const { firstOut, edgeRoad, roadFrom, roadTo } = graph;
  for (const list of roadLists) {
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      for (const end of [roadFrom[r], roadTo[r]]) {
        const [first, last] = junctionNodeRange(graph, end);
        for (let v = first; v < last; v++) {
          for (let e = firstOut[v]; e < firstOut[v + 1]; e++) if (edgeRoad[e] === r) visit(e);
        }
      }
    }
  }
}

/** Nodes where a marked road's edge starts and some unmarked road's edge ends, ascending. */
export function entryNodes(graph: RoadGraph, marked: Uint8Array, roadLists: readonly ArrayLike<number>[]): Uint32Array {
  const { edgeRoad } = graph;
  // The reverse adjacency the overlay's many-to-many reads too (made with it).
  const { firstIn, inEdge } = graph.reverseAdjacency();
  const seen = new Set<number>();
  const out: number[] = [];
  forEachEdge(graph, roadLists, (e) => {
    const v = graph.edgeTailOf(e);
    if (seen.has(v)) return;
    seen.add(v);
    for (let k = firstIn[v]; k < firstIn[v + 1]; k++) {
      if (marked[edgeRoad[inEdge[k]]] !== 1) { out.push(v); return; }
    }
  });
  return Uint32Array.from(out).sort();
}

/** Nodes where a marked road's edge ends and some unmarked road's edge starts, ascending. */
export function exitNodes(graph: RoadGraph, marked: Uint8Array, roadLists: readonly ArrayLike<number>[]): Uint32Array {
  const { firstOut, edgeHead, edgeRoad } = graph;
  const seen = new Set<number>();
  const out: number[] = [];
  forEachEdge(graph, roadLists, (e) => {
    const h = edgeHead[e];
    if (seen.has(h)) return;
    seen.add(h);
    for (let f = firstOut[h]; f < firstOut[h + 1]; f++) {
      if (marked[edgeRoad[f]] !== 1) { out.push(h); return; }
    }
  });
  return Uint32Array.from(out).sort();
}

/**
 * Costs through crossing nodes, for the rows `rows` says of an O x D matrix: per element the
 * least start(first[o][b]) + then[b][d] over the B nodes (row-major arrays), with the other
 * metric's sum of the same two parts (ties to the lesser); Infinity where none connects.
 * `start` turns the cost to a node into when the path may go on from it (Infinity: it may not).
 */
export function costsThrough(
  O: number, B: number, D: number, rows: Uint8Array,
  first: Float64Array, firstSecond: Float64Array, then: Float64Array, thenSecond: Float64Array,
  start: (cost: number) => number, outCost: Float64Array, outSecond: Float64Array,
): void {
  outCost.fill(Infinity);
  outSecond.fill(Infinity);
  for (let o = 0; o < O; o++) {
    if (!rows[o]) continue;
    const row = o * D;
    for (let b = 0; b < B; b++) {
      const t0 = start(first[o * B + b]);
      if (!(t0 < Infinity)) continue;
      const s0 = firstSecond[o * B + b], base = b * D;
      for (let d = 0; d < D; d++) {
        const c = t0 + then[base + d];
        if (c < outCost[row + d] || (c === outCost[row + d] && s0 + thenSecond[base + d] < outSecond[row + d])) {
          outCost[row + d] = c;
          outSecond[row + d] = s0 + thenSecond[base + d];
        }
      }
    }
  }
}
