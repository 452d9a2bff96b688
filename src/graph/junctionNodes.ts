import type { RoadGraph } from './RoadGraph.js';

/**
 * Turn restrictions split a junction into copies (turnExpansion.ts): the original node, which
 * roadFrom / roadTo name, and right after it in id order its copies, at the same position, each
 * with only the turns its state allows. So a road's edges may start or end at copies of its end
 * nodes (edgeTail / edgeHead are not always roadFrom / roadTo). These helpers find the copies from
 * the graph's own arrays. Distinct points at exactly one position (the two sides of a barrier)
 * count as one junction here too: a stop there is reached from either side.
 */

/** Node ids [first, end) at the same position as `node`: the junction with its copies. */
export function junctionNodeRange(graph: RoadGraph, node: number): [number, number] {
  const { nodeLatE7: nodeLat, nodeLonE7: nodeLon } = graph;
  let first = node;
  while (first > 0 && nodeLat[first - 1] === nodeLat[node] && nodeLon[first - 1] === nodeLon[node]) first--;
  let end = node + 1;
  while (end < graph.nodeCount && nodeLat[end] === nodeLat[node] && nodeLon[end] === nodeLon[node]) end++;
  return [first, end];
}

/** The out-edge of `node` driving `road` in the given direction (reversed = against its shape), or -1. */
export function edgeAlong(graph: RoadGraph, node: number, road: number, reversed: boolean): number {
  const want = reversed ? 1 : 0;
  for (let e = graph.firstOut[node]; e < graph.firstOut[node + 1]; e++) {
    if (graph.edgeRoad[e] === road && graph.edgeReversed[e] === want) return e;
  }
  return -1;
}

/**
 * The node a route reaches when it starts on `road` and drives to its end in the given
 * direction: the copy of the end junction that remembers having come along this road (so a
 * restriction from this road applies). Falls back to the plain end node.
 */
export function roadExitNode(graph: RoadGraph, road: number, reversed: boolean): number {
  const tail = reversed ? graph.roadTo[road] : graph.roadFrom[road];
  const e = edgeAlong(graph, tail, road, reversed);
  return e >= 0 ? graph.edgeHead[e] : reversed ? graph.roadFrom[road] : graph.roadTo[road];
}

/**
 * The nodes from which a route may drive onto `road` in the given direction: every copy of the
 * start junction whose turns allow it (at least the original when the direction is drivable).
 */
export function roadEntryNodes(graph: RoadGraph, road: number, reversed: boolean): number[] {
  const tail = reversed ? graph.roadTo[road] : graph.roadFrom[road];
  const [first, end] = junctionNodeRange(graph, tail);
  const out: number[] = [];
  for (let v = first; v < end; v++) if (edgeAlong(graph, v, road, reversed) >= 0) out.push(v);
  return out.length > 0 ? out : [tail];
}

/** Every node a route may arrive at to be at `node`'s junction (the junction and its copies). */
export function junctionNodes(graph: RoadGraph, node: number): number[] {
  const [first, end] = junctionNodeRange(graph, node);
  const out: number[] = [];
  for (let v = first; v < end; v++) out.push(v);
  return out;
}

/**
 * Per road, the strongly connected component it lies in, judged by its edges (copies included):
 * the biggest component holding both ends of one of them, or -1 when none does. A junction split
 * for turn restrictions can leave its original node without in-edges (every way in is restricted),
 * so judging a road by its end nodes alone would call it cut off.
 */
export function roadComponents(graph: RoadGraph, component: Int32Array, size: Int32Array): Int32Array {
  const out = new Int32Array(graph.roadCount).fill(-1);
  for (let e = 0; e < graph.edgeCount; e++) {
    const a = component[graph.edgeTail[e]];
    if (a !== component[graph.edgeHead[e]]) continue;
    const r = graph.edgeRoad[e];
    if (out[r] < 0 || size[a] > size[out[r]]) out[r] = a;
  }
  return out;
}
