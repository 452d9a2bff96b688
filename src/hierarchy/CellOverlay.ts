import { DetourError, ErrorCode } from '../errors.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../routing/MinHeap.js';
import { bestSweep, componentsOf, iota, projectedCoordinates, undirectedAdjacency } from './nestedDissection.js';

/** A clique entry between boundary nodes that no path inside the cell joins. */
export const UNREACHABLE = 0xffffffff;

/** The cells' size bound at import. On the 5M-node country (tiles of real cities), routes around zones were as fast with 2,048-8,192 (1,024 no faster; 16,384 twice as slow), and memory falls with size: 8,192 holds 2.3 B per directed edge, 4,096 3.6. */
export const DEFAULT_CELL_SIZE = 8192;

/**
 * A one-level overlay in the manner of CRP / multi-level Dijkstra (Delling, Goldberg, Pajor,
 * Werneck, "Customizable route planning"): the nodes fall into cells of at most a given size, cut
 * where few links cross; a node with a link to another cell is a boundary node; per cell and
 * metric a clique holds the cost between each pair of its boundary nodes through the cell alone.
 * A search may cross a cell by its clique instead of its roads whenever nothing inside the cell is
 * blocked, so its work follows the cells the zones touch rather than every node a detour might.
 * Plain typed arrays, saved in the graph file with the hierarchy.
 */
export interface CellOverlay {
  /** Per node: its cell (16 bits while the cells fit). */
  cellOf: Uint16Array | Uint32Array;
  /** Per cell (CSR, length cells + 1): its boundary nodes, ascending, are boundaryNode[boundaryFirst[c] .. boundaryFirst[c+1]-1]. */
  boundaryFirst: Uint32Array;
  boundaryNode: Uint32Array;
  /**
   * Per metric, the cells' cliques one after the other (cell c's B x B block at cliqueOffsets[c],
   * row i from its boundary node i): costs in whole steps of the metric (COST_STEP), UNREACHABLE
   * where no path inside the cell joins the pair.
   */
  duration: Uint32Array;
  distance: Uint32Array;
}

/** The array members of a CellOverlay, in file order. */
export const OVERLAY_ARRAY_KEYS = ['cellOf', 'boundaryFirst', 'boundaryNode', 'duration', 'distance'] as const;

/** Where each cell's clique starts (length cells + 1; float64: the sum of B^2 may pass 2^32). */
export function cliqueOffsets(boundaryFirst: Uint32Array): Float64Array {
  const cells = boundaryFirst.length - 1;
  const first = new Float64Array(cells + 1);
  for (let c = 0; c < cells; c++) {
    const B = boundaryFirst[c + 1] - boundaryFirst[c];
    first[c + 1] = first[c] + B * B;
  }
  return first;
}

/** Node v's place among its cell's boundary nodes (binary search), or -1 when it has no link out of the cell. */
export function boundarySlot(o: CellOverlay, v: number): number {
  const c = o.cellOf[v], nodes = o.boundaryNode;
  let lo = o.boundaryFirst[c], hi = o.boundaryFirst[c + 1];
  const b0 = lo;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (nodes[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo < o.boundaryFirst[c + 1] && nodes[lo] === v ? lo - b0 : -1;
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
  for (let r = 0; r < length.length; r++) steps[r] = Math.round(length[r] / 0.01);
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
  // Boundary nodes: an end of a link between two cells.
  const isBoundary = new Uint8Array(n);
  for (let e = 0; e < edgeHead.length; e++) {
    const t = edgeTail[e], h = edgeHead[e];
    if (cellOf[t] !== cellOf[h]) { isBoundary[t] = 1; isBoundary[h] = 1; }
  }
  const boundaryFirst = new Uint32Array(cellCount + 1);
  for (let v = 0; v < n; v++) if (isBoundary[v]) boundaryFirst[cellOf[v] + 1]++;
  for (let c = 0; c < cellCount; c++) boundaryFirst[c + 1] += boundaryFirst[c];
  const boundaryNode = new Uint32Array(boundaryFirst[cellCount]);
  const fill = boundaryFirst.slice(0, cellCount);
  for (let v = 0; v < n; v++) if (isBoundary[v]) boundaryNode[fill[cellOf[v]]++] = v; // ascending per cell
  const first = cliqueOffsets(boundaryFirst);
  const dist = new Float64Array(n).fill(Infinity);
  const heap = new MinHeap(1024);
  const touched: number[] = [];
  const cliques = {} as Record<Metric, Uint32Array>;
  for (const metric of ['duration', 'distance'] as const) {
    const steps = roadSteps(graph, metric);
    const clique = new Uint32Array(first[cellCount]).fill(UNREACHABLE);
    for (let c = 0; c < cellCount; c++) {
      const b0 = boundaryFirst[c], B = boundaryFirst[c + 1] - b0;
      for (let i = 0; i < B; i++) {
        // Dijkstra from boundary node i over the cell's own links.
        const s = boundaryNode[b0 + i];
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
        const row = first[c] + i * B;
        for (let j = 0; j < B; j++) {
          const d = dist[boundaryNode[b0 + j]];
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
  return { cellOf, boundaryFirst, boundaryNode, duration: cliques.duration, distance: cliques.distance };
}

/** Bytes the overlay holds. */
export function cellOverlayBytes(o: CellOverlay): number {
  return OVERLAY_ARRAY_KEYS.reduce((sum, key) => sum + o[key].byteLength, 0);
}
