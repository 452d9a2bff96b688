import { DetourError, ErrorCode } from '../errors.js';
import { COST_STEP, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../routing/MinHeap.js';
import { bestSweep, componentsOf, iota, projectedCoordinates, undirectedAdjacency } from './nestedDissection.js';

/** A clique entry between boundary nodes that no path inside the cell joins. */
export const UNREACHABLE = 0xffffffff;

/** The cells' size bound at import. On the 5M-node country (tiles of real cities), routes around zones were as fast with 2,048-8,192 (1,024 no faster; 16,384 twice as slow), and memory falls with size: 8,192 holds 2.3 B per directed edge, 4,096 3.6. */
export const DEFAULT_CELL_SIZE = 8192;

/**
 * A one-level overlay in the manner of CRP / multi-level Dijkstra (Delling, Goldberg, Pajor,
 * Werneck, "Customizable route planning"): the nodes fall into cells of at most a given size, cut
 * where few links cross; a node a link from another cell enters is an entry, one a link to
 * another cell leaves is an exit; per cell and metric a clique holds the cost from each entry to
 * each exit through the cell alone (entries x exits: a one-way road's end is only one of them).
 * A search may cross a cell by its clique instead of its roads whenever nothing inside the cell is
 * blocked, so its work follows the cells the zones touch rather than every node a detour might.
 * Plain typed arrays, saved in the graph file with the hierarchy.
 */
export interface CellOverlay {
  /** Per node: its cell (16 bits while the cells fit). */
  cellOf: Uint16Array | Uint32Array;
  /** Per cell (CSR, length cells + 1): its entries, ascending, are entryNode[entryFirst[c] .. entryFirst[c+1]-1]. */
  entryFirst: Uint32Array;
  entryNode: Uint32Array;
  /** Per cell, its exits, the same way. */
  exitFirst: Uint32Array;
  exitNode: Uint32Array;
  /**
   * Per metric, the cells' cliques one after the other (cell c's entries x exits block at
   * cliqueOffsets[c], row i from its entry i): costs in whole steps of the metric (COST_STEP),
   * UNREACHABLE where no path inside the cell joins the pair.
   */
  duration: Uint32Array;
  distance: Uint32Array;
}

/** The array members of a CellOverlay, in file order. */
export const OVERLAY_ARRAY_KEYS = ['cellOf', 'entryFirst', 'entryNode', 'exitFirst', 'exitNode', 'duration', 'distance'] as const;

/** Where each cell's clique starts (length cells + 1; float64: the sum of the blocks may pass 2^32). */
export function cliqueOffsets(entryFirst: Uint32Array, exitFirst: Uint32Array): Float64Array {
  const cells = entryFirst.length - 1;
  const first = new Float64Array(cells + 1);
  for (let c = 0; c < cells; c++) first[c + 1] = first[c] + (entryFirst[c + 1] - entryFirst[c]) * (exitFirst[c + 1] - exitFirst[c]);
  return first;
}

/** v's place in the ascending nodes[first[c] .. first[c+1]-1] (binary search), or -1. */
export function slotIn(first: Uint32Array, nodes: Uint32Array, c: number, v: number): number {
  let lo = first[c], hi = first[c + 1];
  const b0 = lo;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (nodes[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo < first[c + 1] && nodes[lo] === v ? lo - b0 : -1;
}

/**
 * Cells of at most `maxCellSize` nodes by recursive bisection: each part is cut where a sweep
 * along one of four directions crosses the fewest links (the nested dissection's sweep), after
 * falling apart into its connected components (small components share a cell). Cells are
 * numbered in the order the recursion reaches them, so neighbouring cells have near numbers.
 */
export function cellPartition(graph: RoadGraph, maxCellSize: number, adjacency = undirectedAdjacency(graph)): { cellOf: Uint32Array; cellCount: number } {
  const n = graph.nodeCount;
  const { first, neighbour } = adjacency;
  const { px, py } = projectedCoordinates(graph);
  const cellOf = new Uint32Array(n);
  const cell = new Int32Array(n).fill(-1);
  const side = new Uint8Array(n);
  const visited = new Int32Array(n).fill(-1);
  const queue = new Uint32Array(n);
  let cellCount = 0, partId = 0;
  const tasks: Uint32Array[] = [iota(n)];
  while (tasks.length > 0) {
    const nodes = tasks.pop()!;
    const m = nodes.length;
    if (m <= maxCellSize) {
      for (let i = 0; i < m; i++) cellOf[nodes[i]] = cellCount;
      cellCount++;
      continue;
    }
    const id = partId++;
    for (let i = 0; i < m; i++) cell[nodes[i]] = id;
    const components = componentsOf(nodes, id, cell, visited, first, neighbour, queue);
    if (components.length > 1) {
      // Small components are packed together (a cell need not be connected): a country has
      // thousands of tiny ones, each a cell would be a clique and a boundary of its own.
      let bin: Uint32Array[] = [], binSize = 0;
      for (const c of components) {
        if (c.length > maxCellSize / 2) { tasks.push(c); continue; }
        if (binSize + c.length > maxCellSize) { tasks.push(concat(bin, binSize)); bin = []; binSize = 0; }
        bin.push(c); binSize += c.length;
      }
      if (binSize > 0) tasks.push(concat(bin, binSize));
      continue;
    }
    const { order, split } = bestSweep(nodes, id, cell, side, px, py, first, neighbour);
    tasks.push(order.slice(split), order.slice(0, split));
  }
  return { cellOf, cellCount };
}

function concat(parts: Uint32Array[], size: number): Uint32Array {
  const all = new Uint32Array(size);
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return all;
}

/** Per road, its cost in whole steps of the metric (the hierarchy's unit). */
export function roadSteps(graph: RoadGraph, metric: Metric): Uint32Array {
  if (metric === 'duration') return graph.roadMillis;
  const length = graph.roadLength, steps = new Uint32Array(length.length);
  for (let r = 0; r < length.length; r++) steps[r] = Math.round(length[r] / COST_STEP.distance);
  return steps;
}

/** The overlay of a graph: partition, boundary nodes and both metrics' cliques (on the calling thread: about 95 s for 5M nodes). */
export function buildCellOverlay(graph: RoadGraph, maxCellSize = DEFAULT_CELL_SIZE): CellOverlay {
  const n = graph.nodeCount;
  const partition = cellPartition(graph, maxCellSize);
  const cellCount = partition.cellCount;
  const cellOf = cellCount <= 0x10000 ? Uint16Array.from(partition.cellOf) : partition.cellOf;
  const { firstOut, edgeHead, edgeRoad } = graph;
  const edgeTail = graph.edgeTail;
  // Entries and exits: the heads and tails of links between two cells.
  const isEntry = new Uint8Array(n), isExit = new Uint8Array(n);
  for (let e = 0; e < edgeHead.length; e++) {
    const t = edgeTail[e], h = edgeHead[e];
    if (cellOf[t] !== cellOf[h]) { isExit[t] = 1; isEntry[h] = 1; }
  }
  const [entryFirst, entryNode] = nodesPerCell(cellOf, cellCount, isEntry);
  const [exitFirst, exitNode] = nodesPerCell(cellOf, cellCount, isExit);
  const first = cliqueOffsets(entryFirst, exitFirst);
  const dist = new Float64Array(n).fill(Infinity);
  const heap = new MinHeap(1024);
  const touched: number[] = [];
  const cliques = {} as Record<Metric, Uint32Array>;
  for (const metric of ['duration', 'distance'] as const) {
    const steps = roadSteps(graph, metric);
    const clique = new Uint32Array(first[cellCount]).fill(UNREACHABLE);
    for (let c = 0; c < cellCount; c++) {
      const e0 = entryFirst[c], E = entryFirst[c + 1] - e0, x0 = exitFirst[c], X = exitFirst[c + 1] - x0;
      for (let i = 0; i < E; i++) {
        // Dijkstra from entry i over the cell's own links.
        const s = entryNode[e0 + i];
        dist[s] = 0; touched.push(s);
        heap.clear(); heap.push(0, s);
        while (heap.size > 0) {
          const key = heap.peekKey();
          const u = heap.pop();
          if (key !== dist[u]) continue;
          for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
            const v = edgeHead[e];
            if (cellOf[v] !== c) continue;
            const d = key + steps[edgeRoad[e]];
            if (d < dist[v]) {
              if (dist[v] === Infinity) touched.push(v);
              dist[v] = d;
              heap.push(d, v);
            }
          }
        }
        const row = first[c] + i * X;
        for (let j = 0; j < X; j++) {
          const d = dist[exitNode[x0 + j]];
          if (d === Infinity) continue;
          if (d >= UNREACHABLE) throw new DetourError(ErrorCode.INVALID_INPUT, `a path inside one cell costs ${d} ${metric} steps, past 32 bits`);
          clique[row + j] = d;
        }
        for (const v of touched) dist[v] = Infinity;
        touched.length = 0;
      }
    }
    cliques[metric] = clique;
  }
  return { cellOf, entryFirst, entryNode, exitFirst, exitNode, duration: cliques.duration, distance: cliques.distance };
}

/** The marked nodes of each cell, ascending, as CSR by cell. */
function nodesPerCell(cellOf: Uint16Array | Uint32Array, cellCount: number, marked: Uint8Array): [Uint32Array, Uint32Array] {
  const first = new Uint32Array(cellCount + 1);
  for (let v = 0; v < marked.length; v++) if (marked[v]) first[cellOf[v] + 1]++;
  for (let c = 0; c < cellCount; c++) first[c + 1] += first[c];
  const nodes = new Uint32Array(first[cellCount]);
  const fill = first.slice(0, cellCount);
  for (let v = 0; v < marked.length; v++) if (marked[v]) nodes[fill[cellOf[v]]++] = v;
  return [first, nodes];
}

/** Bytes the overlay holds. */
export function cellOverlayBytes(o: CellOverlay): number {
  return OVERLAY_ARRAY_KEYS.reduce((sum, key) => sum + o[key].byteLength, 0);
}
