import type { RoadGraph } from '../graph/RoadGraph.js';

/* The sweeps that cut the graph into the cell overlay's cells (CellOverlay.cellPartition). */

/** A simple undirected graph (no loops, no parallel links) as CSR: neighbours of v are first[v] .. first[v+1]-1. */
export interface UndirectedAdjacency {
  first: Uint32Array;
  neighbour: Uint32Array;
}

/** The road graph's links without direction, each pair of nodes once. */
export function undirectedAdjacency(graph: RoadGraph): UndirectedAdjacency {
  const n = graph.nodeCount;
  const { edgeTail, edgeHead } = graph;
  const E = edgeHead.length;
  const start = new Uint32Array(n + 1);
  for (let e = 0; e < E; e++) {
    const t = edgeTail[e], h = edgeHead[e];
    if (t !== h) { start[t + 1]++; start[h + 1]++; }
  }
  for (let v = 0; v < n; v++) start[v + 1] += start[v];
  const all = new Uint32Array(start[n]);
  const fill = start.slice(0, n);
  for (let e = 0; e < E; e++) {
    const t = edgeTail[e], h = edgeHead[e];
    if (t !== h) { all[fill[t]++] = h; all[fill[h]++] = t; }
  }
  // Sort each list and drop repeats, compacting in place.
  const first = new Uint32Array(n + 1);
  let out = 0;
  for (let v = 0; v < n; v++) {
    const a = start[v], b = start[v + 1];
    if (b - a > 1) all.subarray(a, b).sort();
    first[v] = out;
    let last = -1;
    for (let k = a; k < b; k++) {
      const w = all[k];
      if (w !== last) { all[out++] = w; last = w; }
    }
  }
  first[n] = out;
  return { first, neighbour: all.slice(0, out) };
}

/** The cut is chosen among prefixes holding this share of the cell, or more, on each side. */
const MIN_SIDE = 0.2;
/** Projection directions tried for each cut (east, north and the two diagonals). */
const DIRECTIONS: Array<[number, number]> = [[1, 0], [0, 1], [Math.SQRT1_2, Math.SQRT1_2], [Math.SQRT1_2, -Math.SQRT1_2]];

/** Node coordinates projected to a plane (longitude scaled by the mean latitude's cosine), for the sweeps. */
export function projectedCoordinates(graph: RoadGraph): { px: Float64Array; py: Float64Array } {
  const n = graph.nodeCount;
  let latSum = 0;
  for (let v = 0; v < n; v++) latSum += graph.nodeLatitude(v);
  const cos = Math.cos(((n > 0 ? latSum / n : 0) * Math.PI) / 180);
  const px = new Float64Array(n), py = new Float64Array(n);
  for (let v = 0; v < n; v++) { px[v] = graph.nodeLongitude(v) * cos; py[v] = graph.nodeLatitude(v); }
  return { px, py };
}

export function iota(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

/** The cell's connected components (breadth first over links inside the cell). */
export function componentsOf(
  nodes: Uint32Array, id: number, cell: Int32Array, visited: Int32Array, first: Uint32Array, neighbour: Uint32Array, queue: Uint32Array,
): Uint32Array[] {
  const components: Uint32Array[] = [];
  let total = 0;
  for (let i = 0; i < nodes.length && total < nodes.length; i++) {
    const s = nodes[i];
    if (visited[s] === id) continue;
    visited[s] = id;
    let head = 0, tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++];
      for (let k = first[v], end = first[v + 1]; k < end; k++) {
        const w = neighbour[k];
        if (cell[w] === id && visited[w] !== id) { visited[w] = id; queue[tail++] = w; }
      }
    }
    if (tail === nodes.length) return [nodes];
    components.push(queue.slice(0, tail));
    total += tail;
  }
  return components;
}

/**
 * Tries each direction: sorts the cell along it and moves nodes one by one to the left side,
 * keeping the count of links between the sides; returns the order and prefix length with the
 * fewest, among prefixes leaving at least MIN_SIDE of the cell on each side (ties: the more even).
 */
export function bestSweep(
  nodes: Uint32Array, id: number, cell: Int32Array, side: Uint8Array, px: Float64Array, py: Float64Array, first: Uint32Array, neighbour: Uint32Array,
): { order: Uint32Array; split: number } {
  const m = nodes.length;
  const indexBits = Math.max(1, Math.ceil(Math.log2(m + 1)));
  const indexScale = 2 ** indexBits;
  const bucketMax = 2 ** (52 - indexBits) - 1;
  const keys = new Float64Array(m);
  const proj = new Float64Array(m);
  let best: Uint32Array = nodes, bestSplit = m >> 1, bestCut = Infinity, bestBalance = Infinity;
  const lowest = Math.max(1, Math.ceil(m * MIN_SIDE)), highest = Math.min(m - 1, Math.floor(m * (1 - MIN_SIDE)));
  for (const [dx, dy] of DIRECTIONS) {
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < m; i++) {
      const v = nodes[i];
      const p = px[v] * dx + py[v] * dy;
      proj[i] = p;
      if (p < min) min = p;
      if (p > max) max = p;
    }
    const scale = max > min ? bucketMax / (max - min) : 0;
    // Exact integers below 2^53: the projection's bucket, then the node's index in the cell.
    for (let i = 0; i < m; i++) keys[i] = Math.floor((proj[i] - min) * scale) * indexScale + i;
    keys.sort();
    const order = new Uint32Array(m);
    for (let i = 0; i < m; i++) order[i] = nodes[keys[i] % indexScale];
    for (let i = 0; i < m; i++) side[nodes[i]] = 0;
    let cut = 0;
    for (let i = 0; i < highest; i++) {
      const v = order[i];
      for (let k = first[v], end = first[v + 1]; k < end; k++) {
        const w = neighbour[k];
        if (cell[w] !== id) continue;
        if (side[w] === 1) cut--; else cut++;
      }
      side[v] = 1;
      const split = i + 1;
      if (split < lowest) continue;
      const balance = Math.abs(m - 2 * split);
      if (cut < bestCut || (cut === bestCut && balance < bestBalance)) {
        bestCut = cut; bestBalance = balance; bestSplit = split; best = order;
      }
    }
  }
  return { order: best, split: bestSplit };
}
