import type { RoadGraph } from '../graph/RoadGraph.js';

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

/** Below this many nodes a cell is not cut further (the fill-in inside it is bounded by its size). */
const LEAF_SIZE = 8;
/** The cut is chosen among prefixes holding this share of the cell, or more, on each side. */
const MIN_SIDE = 0.2;
/** Projection directions tried for each cut (east, north and the two diagonals). */
const DIRECTIONS: Array<[number, number]> = [[1, 0], [0, 1], [Math.SQRT1_2, Math.SQRT1_2], [Math.SQRT1_2, -Math.SQRT1_2]];

/**
 * A nested dissection order of the graph's nodes for a customizable contraction hierarchy
 * (Dibbelt, Strasser, Wagner: the order decides the hierarchy's size and depth, never its
 * exactness). Each cell is split where a sweep along one of four directions crosses the fewest
 * links, with at least a fifth of the cell on either side (a cheaper cousin of RoutingKit's
 * inertial flow, which finds the cut by max-flow between the two ends of the sweep); the smallest
 * set of nodes covering the cut links (a minimum vertex cover of the bipartite cut, by König's
 * theorem from a maximum matching) is the separator, ranked above both halves, which are cut
 * again. Cells fall apart into their connected components first. Returns rank[v]: the position of
 * node v in the order (0 contracted first).
 */
export function nestedDissectionOrder(graph: RoadGraph, adjacency = undirectedAdjacency(graph)): Uint32Array {
  const n = graph.nodeCount;
  const { first, neighbour } = adjacency;
  const { px, py } = projectedCoordinates(graph);

  const rank = new Uint32Array(n);
  const cell = new Int32Array(n).fill(-1); // the cell a node belongs to now
  const side = new Uint8Array(n);
  const visited = new Int32Array(n).fill(-1);
  let cellId = 0;
  const tasks: Array<{ nodes: Uint32Array; lo: number }> = [{ nodes: iota(n), lo: 0 }];
  const queue = new Uint32Array(n);

  while (tasks.length > 0) {
    const { nodes, lo } = tasks.pop()!;
    const m = nodes.length;
    if (m <= LEAF_SIZE) {
      for (let i = 0; i < m; i++) rank[nodes[i]] = lo + i;
      continue;
    }
    const id = cellId++;
    for (let i = 0; i < m; i++) cell[nodes[i]] = id;

    // Connected components of the cell: each is ordered on its own, no separator needed.
    const components = componentsOf(nodes, id, cell, visited, first, neighbour, queue);
    if (components.length > 1) {
      let at = lo;
      for (const c of components) { tasks.push({ nodes: c, lo: at }); at += c.length; }
      continue;
    }

    // The sweep with the fewest crossing links.
    const order = bestSweep(nodes, id, cell, side, px, py, first, neighbour);
    const left = order.order.subarray(0, order.split);
    for (let i = 0; i < m; i++) side[nodes[i]] = 0;
    for (let i = 0; i < left.length; i++) side[left[i]] = 1;
    const separator = vertexCover(left, id, cell, side, first, neighbour);
    for (const v of separator) side[v] = 2;
    const a: number[] = [], b: number[] = [];
    for (let i = 0; i < m; i++) {
      const v = order.order[i];
      if (side[v] === 1) a.push(v);
      else if (side[v] === 0) b.push(v);
    }
    const top = lo + m - separator.length;
    for (let i = 0; i < separator.length; i++) rank[separator[i]] = top + i;
    tasks.push({ nodes: Uint32Array.from(a), lo });
    tasks.push({ nodes: Uint32Array.from(b), lo: lo + a.length });
  }
  return rank;
}

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

/**
 * A minimum set of nodes touching every link between the sides (side 1 = `left`, side 0 the
 * rest of the cell): a maximum matching of the bipartite cut by augmenting paths, then König's
 * construction (left nodes not reached by alternating paths from unmatched left nodes, plus
 * right nodes reached).
 */
function vertexCover(left: Uint32Array, id: number, cell: Int32Array, side: Uint8Array, first: Uint32Array, neighbour: Uint32Array): number[] {
  // Local bipartite graph of the cut links.
  const leftNodes: number[] = [];
  const rightIndex = new Map<number, number>();
  const rightNodes: number[] = [];
  const adjStart: number[] = [0];
  const adj: number[] = [];
  for (let i = 0; i < left.length; i++) {
    const v = left[i];
    const before = adj.length;
    for (let k = first[v], end = first[v + 1]; k < end; k++) {
      const w = neighbour[k];
      if (cell[w] !== id || side[w] !== 0) continue;
      let r = rightIndex.get(w);
      if (r === undefined) { r = rightNodes.length; rightIndex.set(w, r); rightNodes.push(w); }
      adj.push(r);
    }
    if (adj.length > before) { leftNodes.push(v); adjStart.push(adj.length); }
  }
  const L = leftNodes.length, R = rightNodes.length;
  if (L === 0) return [];
  const matchLeft = new Int32Array(L).fill(-1), matchRight = new Int32Array(R).fill(-1);
  const seen = new Int32Array(R).fill(-1);
  // Augmenting paths by iterative depth-first search (Kuhn), one round per left node.
  const stackL: number[] = [], stackK: number[] = [];
  for (let s = 0; s < L; s++) {
    stackL.length = 0; stackK.length = 0;
    stackL.push(s); stackK.push(adjStart[s]);
    let found = false;
    while (stackL.length > 0 && !found) {
      const top = stackL.length - 1;
      const l = stackL[top];
      const k = stackK[top];
      if (k >= adjStart[l + 1]) { stackL.pop(); stackK.pop(); continue; }
      stackK[top] = k + 1;
      const r = adj[k];
      if (seen[r] === s) continue;
      seen[r] = s;
      if (matchRight[r] < 0) {
        // Flip the path: every left node on the stack takes the right node it went through.
        let rr = r;
        for (let j = top; j >= 0; j--) {
          const lj = stackL[j];
          const prev = matchLeft[lj];
          matchLeft[lj] = rr; matchRight[rr] = lj;
          rr = prev;
        }
        found = true;
      } else {
        stackL.push(matchRight[r]); stackK.push(adjStart[matchRight[r]]);
      }
    }
  }
  // König: alternate from unmatched left nodes (free links left to right, matched right to left).
  const reachedLeft = new Uint8Array(L), reachedRight = new Uint8Array(R);
  const queue: number[] = [];
  for (let l = 0; l < L; l++) if (matchLeft[l] < 0) { reachedLeft[l] = 1; queue.push(l); }
  while (queue.length > 0) {
    const l = queue.pop()!;
    for (let k = adjStart[l]; k < adjStart[l + 1]; k++) {
      const r = adj[k];
      if (reachedRight[r] || matchLeft[l] === r) continue;
      reachedRight[r] = 1;
      const back = matchRight[r];
      if (back >= 0 && !reachedLeft[back]) { reachedLeft[back] = 1; queue.push(back); }
    }
  }
  const cover: number[] = [];
  for (let l = 0; l < L; l++) if (!reachedLeft[l]) cover.push(leftNodes[l]);
  for (let r = 0; r < R; r++) if (reachedRight[r]) cover.push(rightNodes[r]);
  return cover;
}
